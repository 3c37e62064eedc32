package io.sluice.core.net;

import io.netty.channel.Channel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A server's TCP listener on Netty, bound the way every server of sluice binds: NIO, {@code TCP_NODELAY} on each
 * connection ({@link ChildSetup}), a bind failure as an {@link IOException} that names the address, and a
 * listener that closes on its own (not closed by its server) reported, so that its consumer can fail the process
 * rather than stay half-alive.
 *
 * <p>The listening socket lives on one small process-wide accept loop, not on the server's event loops, and
 * passes each connection to its server's {@link ChildSetup}: so it can outlive its server. Under a
 * {@link ListenerHandover#hold()}, {@link #close()} parks the socket instead of closing it, and the next server
 * that binds the same address takes it over: no connection is refused across a reload. Outside a hold, closing
 * closes.
 */
public final class ServerListener {
    private final ChildAcceptor acceptor;
    private final ChildSetup children;
    private final Promise<Void> closed = ImmediateEventExecutor.INSTANCE.newPromise();
    private boolean released;
    private boolean lost;
    private BooleanSupplier stopping = () -> true;
    private Consumer<Throwable> onLost = t -> { };

    private ServerListener(ChildAcceptor parked, ChildSetup children) {
        this.children = children;
        this.acceptor = parked;
    }

    /** A new socket, whose acceptor serves this listener from the start. */
    private ServerListener(NioServerSocketChannel fresh, ChildSetup children) {
        this.children = children;
        this.acceptor = new ChildAcceptor(fresh, this);
    }

    /**
     * Listens on {@code host:port}, taking over the socket parked there by a server stopped under a hold, or
     * binding it; waits for it.
     *
     * @param backlog connections the kernel queues before they are accepted (a parked socket keeps its own)
     * @param what said after the address in the error (such as {@code " (gRPC)"}), or empty
     * @throws IOException "cannot listen on host:port: why" when it cannot be bound (in use, not local, not resolvable)
     */
    public static ServerListener bind(String host, int port, int backlog, ChildSetup children, String what)
            throws IOException {
        InetSocketAddress want = new InetSocketAddress(host, port);
        ServerListener taken = takeParked(want, children);
        return taken != null ? taken : bindNew(want, backlog, children, host + ":" + port + what);
    }

    /** The socket parked at {@code want}, now serving {@code children}; null when none is. */
    private static ServerListener takeParked(InetSocketAddress want, ChildSetup children) {
        ChildAcceptor parked = ListenerHandover.take(ListenerHandover.at("tcp", want), ChildAcceptor.class);
        if (parked == null || !parked.channel().isOpen()) {
            return null;
        }
        ServerListener l = new ServerListener(parked, children);
        parked.adopt(l);
        return l;
    }

    private static ServerListener bindNew(InetSocketAddress want, int backlog, ChildSetup children, String named)
            throws IOException {
        NioServerSocketChannel ch = new NioServerSocketChannel();
        ch.config().setBacklog(backlog);
        ServerListener l = new ServerListener(ch, children);
        ch.pipeline().addLast(l.acceptor);
        int bound = AcceptLoop.bind(ch, want, named);
        // parked under the address asked for (0.0.0.0 stays 0.0.0.0 whatever the socket reports) and the port bound
        l.acceptor.bound(ListenerHandover.at("tcp", new InetSocketAddress(want.getAddress(), bound)));
        ch.closeFuture().addListener(cf -> l.acceptor.socketClosed());
        return l;
    }

    /**
     * Calls {@code lost} when the socket closes while this server listens on it (not by {@link #close()}) and
     * {@code stopping} is false.
     */
    public void onLost(BooleanSupplier stopping, Consumer<Throwable> lost) {
        boolean already;
        synchronized (this) {
            this.stopping = stopping;
            this.onLost = lost;
            already = this.lost;
        }
        if (already && !stopping.getAsBoolean()) {
            lost.accept(new IOException("the listening socket was closed"));
        }
    }

    /** The bound address (a port 0 asked for resolved). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) acceptor.channel().localAddress();
    }

    /** Whether this server still listens: not closed, and the socket open. */
    public synchronized boolean isActive() {
        return !released && !lost && acceptor.channel().isActive();
    }

    /** Completes when this server stops listening: by {@link #close()}, or the socket lost. */
    public Future<Void> closeFuture() {
        return closed;
    }

    /**
     * Stops listening and waits for it: under a {@link ListenerHandover#hold()} the socket stays bound and parked
     * for the next server on this address, otherwise it is closed. Connections already accepted are the caller's
     * to close. Idempotent.
     */
    public void close() {
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
        }
        Channel ch = acceptor.channel();
        if (ListenerHandover.holding() && ch.isOpen()) {
            acceptor.detach(this);
            if (ListenerHandover.park(acceptor.address(), acceptor)) {
                closed.trySuccess(null);
                return;
            }
        }
        ch.close().awaitUninterruptibly();
        closed.trySuccess(null);
    }

    /**
     * The listening socket itself, shared with whichever server holds it next: closing it closes it for good
     * (tests do, to see a lost listener handled).
     */
    public Channel channel() {
        return acceptor.channel();
    }

    ChildSetup children() {
        return children;
    }

    /** The socket closed while this server owned it. */
    void socketClosed() {
        BooleanSupplier s;
        Consumer<Throwable> cb;
        synchronized (this) {
            if (released || lost) {
                return;
            }
            lost = true;
            s = stopping;
            cb = onLost;
        }
        closed.trySuccess(null);
        if (!s.getAsBoolean()) {
            cb.accept(new IOException("the listening socket was closed"));
        }
    }
}
