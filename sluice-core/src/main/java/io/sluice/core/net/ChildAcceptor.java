package io.sluice.core.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The handler on a listening channel, in place of Netty's ServerBootstrap acceptor: it hands each accepted
 * connection to the {@link ChildSetup} of the listener's current owner, so that the socket can change owners
 * across a reload. Parked (no owner), it stops accepting; connections accepted just before wait here for the
 * next owner. Its owner and waiting connections are touched on the channel's event loop only.
 */
final class ChildAcceptor extends ChannelInboundHandlerAdapter implements AutoCloseable {
    private final Channel server;
    private final ArrayDeque<Channel> waiting = new ArrayDeque<>();
    private ServerListener owner;
    /** Set by the binding thread, read by whichever thread closes the listener. */
    private volatile ListenerHandover.Address address;

    ChildAcceptor(Channel server, ServerListener firstOwner) {
        this.server = server;
        this.owner = firstOwner; // published to the event loop by the channel's registration
    }

    Channel channel() {
        return server;
    }

    /** Where it is parked: set once bound. */
    ListenerHandover.Address address() {
        return address;
    }

    void bound(ListenerHandover.Address address) {
        this.address = address;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Channel child = (Channel) msg;
        ServerListener o = owner;
        if (o != null) {
            o.children().serve(child);
        } else {
            waiting.add(child);
        }
    }

    /** As Netty's acceptor: an accept that fails (out of descriptors) pauses accepting for a second. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ChannelConfig config = server.config();
        if (config.isAutoRead()) {
            config.setAutoRead(false);
            server.eventLoop().schedule(() -> {
                if (owner != null) {
                    config.setAutoRead(true);
                }
            }, 1, TimeUnit.SECONDS);
        }
        ctx.fireExceptionCaught(cause);
    }

    /** {@code next} serves from now on, starting with the connections that waited; accepting resumes. */
    void adopt(ServerListener next) {
        onLoop(() -> {
            owner = next;
            if (!server.isOpen()) {
                socketClosed(); // closed while parked: its close was heard by nobody, so the new owner hears it now
                return;
            }
            for (Channel c; (c = waiting.poll()) != null; ) {
                next.children().serve(c);
            }
            server.config().setAutoRead(true);
        });
    }

    /** {@code from} no longer serves: accepting stops, new connections wait in the kernel's backlog. */
    void detach(ServerListener from) {
        onLoop(() -> {
            if (owner == from) {
                owner = null;
                server.config().setAutoRead(false);
            }
        });
    }

    /** The socket closed (on the event loop): its owner, if any, hears of it; waiting connections are closed. */
    void socketClosed() {
        ServerListener o = owner;
        owner = null;
        for (Channel c; (c = waiting.poll()) != null; ) {
            c.unsafe().closeForcibly();
        }
        if (o != null) {
            o.socketClosed();
        }
    }

    /** Closes the socket: a parked listener nobody took. */
    @Override
    public void close() {
        server.close().awaitUninterruptibly();
    }

    private void onLoop(Runnable task) {
        AcceptLoop.run(server, task);
    }
}
