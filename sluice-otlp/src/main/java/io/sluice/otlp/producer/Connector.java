package io.sluice.otlp.producer;

import io.sluice.core.net.Connect;
import io.sluice.core.tls.NettyTls;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * One keep-alive connection of a transport: opened on first use and again after it closed, with TLS when set,
 * within the request timeout. Only the delivering thread uses it.
 */
final class Connector {
    private final Bootstrap bootstrap;
    private final String host;
    private final int port;
    private final NettyTls tls;
    private final long timeoutMillis;
    private volatile Channel channel;

    /** {@code handlers} makes the protocol's handlers of a new connection (after TLS). */
    Connector(EventLoopGroup group, String host, int port, NettyTls tls, long timeoutMillis,
              Supplier<ChannelHandler[]> handlers) {
        this.host = host;
        this.port = port;
        this.tls = tls;
        this.timeoutMillis = timeoutMillis;
        this.bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeoutMillis))
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.clientHandler(ch.alloc(), host, port));
                        }
                        ch.pipeline().addLast(handlers.get());
                    }
                });
    }

    /** The open connection, connecting (and completing the TLS handshake) first if there is none. */
    Channel channel() throws IOException, InterruptedException {
        Channel c = channel;
        if (c != null && c.isActive()) {
            return c;
        }
        c = Connect.open(bootstrap, host, port, tls != null, timeoutMillis);
        channel = c;
        return c;
    }

    /** The protocol ALPN settled on, or null without TLS. */
    String applicationProtocol(Channel c) {
        SslHandler h = c.pipeline().get(SslHandler.class);
        return h == null ? null : h.applicationProtocol();
    }

    /** Whether a connection is open. */
    boolean isOpen() {
        Channel c = channel;
        return c != null && c.isActive();
    }

    /** Closes the connection (the next request opens a new one) and waits for it to close. */
    void drop() {
        Channel c = channel;
        channel = null;
        if (c != null) {
            c.close().awaitUninterruptibly(timeoutMillis);
        }
    }

    String address() {
        return host + ":" + port;
    }
}
