package io.sluice.core.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Opening a client connection on Netty for a thread that waits for it (producer.Forward, producer.OTLP's gRPC):
 * the connect and, with TLS, the handshake, each within the timeout. A connection that fails either is closed and
 * the failure is an IOException naming the server.
 */
public final class Connect {
    private Connect() {
    }

    /**
     * Connects {@code bootstrap} to {@code host:port}; with {@code tls} (its initializer adds an {@link SslHandler})
     * also waits for the handshake. Returns the open connection.
     */
    public static Channel open(Bootstrap bootstrap, String host, int port, boolean tls, long timeoutMillis)
            throws IOException, InterruptedException {
        String server = host + ":" + port;
        ChannelFuture f = bootstrap.connect(host, port);
        if (!f.await(timeoutMillis, TimeUnit.MILLISECONDS)) {
            f.cancel(false);
            f.channel().close();
            throw new IOException("connecting to " + server + " timed out after " + timeoutMillis + " ms");
        }
        if (!f.isSuccess()) {
            throw new IOException("cannot connect to " + server + ": " + f.cause().getMessage(), f.cause());
        }
        Channel c = f.channel();
        if (tls) {
            handshake(c, server, timeoutMillis);
        }
        return c;
    }

    private static void handshake(Channel c, String server, long timeoutMillis) throws IOException, InterruptedException {
        SslHandler h = c.pipeline().get(SslHandler.class);
        if (h == null) {
            // the server refused the handshake (a TLS 1.3 client certificate it wanted) and the connection closed,
            // taking its handlers, before this thread looked
            c.close();
            throw new IOException("TLS handshake with " + server + " failed: the server closed the connection");
        }
        Future<Channel> hs = h.handshakeFuture();
        if (!hs.await(timeoutMillis, TimeUnit.MILLISECONDS) || !hs.isSuccess()) {
            c.close();
            throw new IOException("TLS handshake with " + server + " failed: "
                    + (hs.cause() == null ? "timed out" : hs.cause().getMessage()), hs.cause());
        }
    }
}
