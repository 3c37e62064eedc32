package io.sluice.core.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.sluice.core.tls.TlsSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

/**
 * Opening a client connection for a thread that waits for it: on Netty (producer.Forward, producer.OTLP's gRPC) or a
 * blocking socket (core's HTTP client, producer.Socket). The connect and, with TLS, the handshake each take at most
 * the timeout; a connection that fails either is closed, and the failure is an IOException.
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

    /**
     * A blocking socket connected to {@code host:port} with {@code TCP_NODELAY}, and with TLS from the group when
     * {@code tls} is not null; reads on it wait at most {@code timeoutMillis}, as the connect and the handshake do.
     * {@code sendBufferBytes} sets {@code SO_SNDBUF} before the connect (so the window scale can follow); 0 leaves
     * the system's.
     */
    public static Socket blocking(String host, int port, TlsSettings tls, int timeoutMillis, int sendBufferBytes)
            throws IOException {
        Socket s = new Socket();
        try {
            if (sendBufferBytes > 0) {
                s.setSendBufferSize(sendBufferBytes);
            }
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), timeoutMillis);
            // Before the handshake: a server that never answers it fails the connection in time.
            s.setSoTimeout(timeoutMillis);
            if (tls != null) {
                s = tls.clientSocket(s, host, port);
                s.setSoTimeout(timeoutMillis);
            }
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    private static void handshake(Channel c, String server, long timeoutMillis)
            throws IOException, InterruptedException {
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
