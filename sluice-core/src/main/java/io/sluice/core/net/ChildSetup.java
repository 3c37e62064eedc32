package io.sluice.core.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What a server does with the connections its {@link ServerListener} accepts: the event loops that serve them,
 * their socket options ({@code TCP_NODELAY} always) and the code that sets up their pipeline. Kept apart from the
 * listening socket, which may outlive it: after a reload, the same socket hands its connections to the new
 * server's setup. A stopping server closes its connections with {@link #closeAll} before it shuts its event loops
 * down: Netty's shutdown does not always close them.
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
    /** Every connection registered on the workers and not closed yet (a closed one leaves by itself). */
    private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
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
                children.add(ch);
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

    /** The connections handed to the workers and not closed yet: what a stopping server waits on. */
    public Iterable<Channel> connections() {
        return children;
    }

    /**
     * Closes every connection handed to the workers, those whose registration was still queued included, and waits
     * (up to {@code timeoutMillis}). Call it once the listener no longer hands connections here (after
     * {@link ServerListener#close()}) and before shutting the workers down: an event loop shut down with no quiet
     * period whose shutdown begins while it runs a task ends without closing its channels (Netty closes them only
     * when it sees the shutdown after its I/O), and would leave their sockets open with nobody reading them, their
     * clients waiting for an answer for ever.
     */
    public void closeAll(long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        // A registration queued on a loop before the listener let go runs before this no-op: then it is a child.
        for (EventExecutor loop : workers) {
            if (loop.inEventLoop()) {
                continue; // called from this loop: what it queued runs after us, and waiting here would block it
            }
            try {
                loop.submit(() -> { }).awaitUninterruptibly(remainingMillis(deadline));
            } catch (RejectedExecutionException stopped) {
                // a loop already shutting down runs no more registrations; its open channels are closed below
            }
        }
        children.close().awaitUninterruptibly(remainingMillis(deadline));
    }

    private static long remainingMillis(long deadline) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }

    private static void forceClose(Channel child, Throwable cause) {
        child.unsafe().closeForcibly();
        LOG.warn("failed to register an accepted connection: {}", child, cause);
    }
}
