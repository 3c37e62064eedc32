package io.sluice.core.net;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Binding a TCP listener on Netty the way every server of sluice does: NIO, {@code TCP_NODELAY} on each connection,
 * a bind failure as an {@link IOException} that names the address, and a listener that closes on its own (not
 * stopped) reported, so that its consumer can fail the process rather than stay half-alive.
 */
public final class ServerListener {
    private ServerListener() {
    }

    /**
     * A bootstrap on {@code boss} (accepting) and {@code workers} (serving; the same group for both is fine) that
     * hands every accepted connection to {@code accepted}; more options may be set on it before {@link #bind}.
     */
    public static ServerBootstrap bootstrap(EventLoopGroup boss, EventLoopGroup workers, int backlog,
            Consumer<SocketChannel> accepted) {
        return new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, backlog)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accepted.accept(ch);
                    }
                });
    }

    /**
     * Binds and waits for it.
     *
     * @param what said after the address in the error (such as {@code " (gRPC)"}), or empty
     * @return the listening channel
     * @throws IOException "cannot listen on host:port: why" when it cannot be bound (in use, not local, not resolvable)
     */
    public static Channel bind(ServerBootstrap b, String host, int port, String what) throws IOException {
        ChannelFuture f = b.bind(host, port).awaitUninterruptibly();
        if (!f.isSuccess()) {
            Throwable c = f.cause();
            String why = c == null ? "bind failed" : c.getMessage() != null ? c.getMessage() : c.toString();
            throw new IOException("cannot listen on " + host + ":" + port + what + ": " + why, c);
        }
        return f.channel();
    }

    /** Calls {@code lost} with the cause when {@code listener} closes while {@code stopping} is false. */
    public static void onLost(Channel listener, BooleanSupplier stopping, Consumer<Throwable> lost) {
        listener.closeFuture().addListener(cf -> {
            if (!stopping.getAsBoolean()) {
                lost.accept(cf.cause() != null ? cf.cause() : new IOException("the listening socket was closed"));
            }
        });
    }
}
