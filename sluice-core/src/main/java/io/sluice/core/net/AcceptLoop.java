package io.sluice.core.net;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

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

    /** Runs {@code task} on {@code ch}'s event loop and waits for it. */
    static void run(Channel ch, Runnable task) {
        if (ch.eventLoop().inEventLoop()) {
            task.run();
        } else {
            ch.eventLoop().submit(task).syncUninterruptibly();
        }
    }
}
