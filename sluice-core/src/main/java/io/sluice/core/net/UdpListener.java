package io.sluice.core.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A server's UDP socket on Netty (such as the heartbeat socket next to a Forward listener), kept across a reload
 * as {@link ServerListener} keeps a TCP one: it lives on the process-wide accept loop; under a
 * {@link ListenerHandover#hold()}, {@link #close()} parks it (datagrams wait in its receive buffer) and the next
 * server that binds the same address takes it over with its own handler. Its handler runs on that loop, so it
 * must be light.
 */
public final class UdpListener {
    private static final String HANDLER = "udp-handler";

    private final Channel channel;
    private final ListenerHandover.Address address;
    private boolean closed;

    /** What a parked socket is, in {@link ListenerHandover}. */
    private record Parked(Channel channel, ListenerHandover.Address address) implements AutoCloseable {
        @Override
        public void close() {
            channel.close().awaitUninterruptibly();
        }
    }

    private UdpListener(Channel channel, ListenerHandover.Address address) {
        this.channel = channel;
        this.address = address;
    }

    /**
     * Takes the socket parked on {@code host:port}, or binds one; {@code handler} reads its datagrams from now on.
     *
     * @throws IOException "cannot listen on host:port (UDP): why" when it cannot be bound
     */
    public static UdpListener bind(String host, int port, ChannelHandler handler) throws IOException {
        InetSocketAddress want = new InetSocketAddress(host, port);
        Parked parked = ListenerHandover.take(ListenerHandover.at("udp", want), Parked.class);
        if (parked != null && parked.channel().isOpen()) {
            AcceptLoop.run(parked.channel(), () -> {
                parked.channel().pipeline().replace(HANDLER, HANDLER, handler);
                parked.channel().config().setAutoRead(true);
            });
            return new UdpListener(parked.channel(), parked.address());
        }
        NioDatagramChannel ch = new NioDatagramChannel();
        ch.pipeline().addLast(HANDLER, handler);
        int bound = AcceptLoop.bind(ch, want, host + ":" + port + " (UDP)");
        return new UdpListener(ch, ListenerHandover.at("udp", new InetSocketAddress(want.getAddress(), bound)));
    }

    /** The bound address. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /**
     * Stops reading and waits for it: under a hold the socket stays bound, parked for the next server on its
     * address; otherwise it is closed. Idempotent.
     */
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (ListenerHandover.holding() && channel.isOpen()) {
            AcceptLoop.run(channel, () -> channel.config().setAutoRead(false));
            if (ListenerHandover.park(address, new Parked(channel, address))) {
                return;
            }
        }
        channel.close().awaitUninterruptibly();
    }
}
