package io.sluice.core.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The event loop of the listening sockets ({@link ServerListener}, {@link UdpListener}), started on first use and
 * owned by no server, so that a socket outlives the server that opened it. One daemon thread: accepting (and
 * answering heartbeats) is a small part of the work.
 */
final class AcceptLoop {
    static final EventLoopGroup GROUP = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("sluice-accept", true), NioIoHandler.newFactory());

    private AcceptLoop() {
    }

    /**
     * Registers {@code ch} on this loop and binds it to {@code want}, waiting for both.
     *
     * @param named what the error names after "cannot listen on" (host:port, and the transport when not TCP)
     * @return the port bound
     * @throws IOException "cannot listen on NAMED: why" when it cannot be bound; the channel is closed
     */
    static int bind(Channel ch, InetSocketAddress want, String named) throws IOException {
        ChannelFuture f = GROUP.register(ch).awaitUninterruptibly();
        if (f.isSuccess()) {
            f = ch.bind(want).awaitUninterruptibly();
        }
        if (!f.isSuccess()) {
            ch.close().awaitUninterruptibly();
            Throwable c = f.cause();
            String why = c == null ? "bind failed" : c.getMessage() != null ? c.getMessage() : c.toString();
            throw new IOException("cannot listen on " + named + ": " + why, c);
        }
        return ((InetSocketAddress) ch.localAddress()).getPort();
    }

    /** Runs {@code task} on {@code ch}'s event loop and waits for it. */
    static void run(Channel ch, Runnable task) {
        if (ch.eventLoop().inEventLoop()) {
            task.run();
        } else {
            ch.eventLoop().submit(task).syncUninterruptibly();
        }
    }
}
