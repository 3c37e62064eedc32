package io.sluice.core.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a server does with the connections its {@link ServerListener} accepts: the event loops that serve them,
 * their socket options ({@code TCP_NODELAY} always) and the code that sets up their pipeline. Kept apart from the
 * listening socket, which may outlive it: after a reload, the same socket hands its connections to the new
 * server's setup.
 */
public final class ChildSetup {
    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(ChildSetup.class);

    private static final ChannelFutureListener CLOSE_UNREGISTERED = f -> {
        if (!f.isSuccess()) {
            forceClose(f.channel(), f.cause());
        } else if (f.channel().eventLoop().isShuttingDown()) {
            // Registered on a loop that is stopping (its server's stop raced this accept): the loop may have closed
            // its channels already and would leave this one open and unread, its client waiting for ever.
            f.channel().close();
        }
    };

    private final EventLoopGroup workers;
    private final ChannelInitializer<SocketChannel> initializer;
    private final List<Option<?>> options = new ArrayList<>();

    private record Option<T>(ChannelOption<T> option, T value) {
        void apply(Channel ch) {
            if (!ch.config().setOption(option, value)) {
                LOG.warn("unknown channel option {} for {}", option, ch);
            }
        }
    }

    /** Connections served on {@code workers}, each handed to {@code accepted} before it is registered there. */
    public ChildSetup(EventLoopGroup workers, Consumer<SocketChannel> accepted) {
        this.workers = workers;
        this.initializer = new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                accepted.accept(ch);
            }
        };
        options.add(new Option<>(ChannelOption.TCP_NODELAY, true));
    }

    /** Sets {@code option} on every connection; returns this. Call before the setup is bound. */
    public <T> ChildSetup option(ChannelOption<T> option, T value) {
        options.add(new Option<>(option, value));
        return this;
    }

    /** Sets up {@code child} and registers it on the workers; one that cannot be registered is closed. */
    void serve(Channel child) {
        child.pipeline().addLast(initializer);
        for (int i = 0; i < options.size(); i++) {
            options.get(i).apply(child);
        }
        try {
            workers.register(child).addListener(CLOSE_UNREGISTERED);
        } catch (Throwable t) {
            forceClose(child, t);
        }
    }

    private static void forceClose(Channel child, Throwable cause) {
        child.unsafe().closeForcibly();
        LOG.warn("failed to register an accepted connection: {}", child, cause);
    }
}
