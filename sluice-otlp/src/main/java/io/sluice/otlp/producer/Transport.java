package io.sluice.otlp.producer;

import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.sluice.core.tls.NettyTls;
import java.io.IOException;

/**
 * Sends one export request and returns the classified outcome; one request at a time per transport. Holds the
 * one connection ({@link Connector}) and the rule both protocols share: a request that failed on a reused
 * connection before the server could have seen it ({@link Stale}) goes once more on a new connection.
 */
abstract class Transport implements AutoCloseable {
    /** The logs and metrics services, their gRPC method and their OTLP/HTTP path. */
    enum Signal {
        LOGS("/opentelemetry.proto.collector.logs.v1.LogsService/Export", "/v1/logs"),
        METRICS("/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", "/v1/metrics");

        final String grpcPath;
        final String httpPath;

        Signal(String grpcPath, String httpPath) {
            this.grpcPath = grpcPath;
            this.httpPath = httpPath;
        }
    }

    /**
     * The connection failed the request before the server could have taken it: no gRPC stream could be opened on
     * it, or it closed before any answer. On a reused connection that is the server closing it (gRPC: GOAWAY after
     * its idle or age limit; HTTP: a keep-alive connection closed while idle), no failure of the request.
     */
    static final class Stale extends IOException {
        private static final long serialVersionUID = 1L;

        Stale(String message, Throwable cause) {
            super(message, cause);
        }
    }

    final Connector connector;
    final long timeoutMillis;

    /** A transport to {@code host:port} whose connections are set up with {@link #handlers()}. */
    Transport(EventLoopGroup group, String host, int port, NettyTls tls, long timeoutMillis) {
        this.connector = new Connector(group, host, port, tls, timeoutMillis, this::handlers);
        this.timeoutMillis = timeoutMillis;
    }

    /** The pipeline of a new connection, after TLS: the protocol's codec and the handler of its answers. */
    abstract ChannelHandler[] handlers();

    /**
     * Sends {@code body[off, off+len)} (gzip-compressed when {@code gzip}) and waits for the answer. An I/O error or
     * a timeout throws IOException, which the caller retries.
     */
    final Reply export(Signal signal, byte[] body, int off, int len, boolean gzip)
            throws IOException, InterruptedException {
        boolean reused = connector.isOpen();
        try {
            return exportOnce(signal, body, off, len, gzip);
        } catch (Stale e) {
            if (!reused) {
                throw e;
            }
            // The server closed the connection between requests: the request goes at once on a new connection
            // rather than through the pipeline's backoff.
            return exportOnce(signal, body, off, len, gzip);
        }
    }

    /** One attempt of {@link #export}, on the open connection or a new one. */
    abstract Reply exportOnce(Signal signal, byte[] body, int off, int len, boolean gzip)
            throws IOException, InterruptedException;

    /** Whether a connection is up (or none was needed yet). */
    boolean isConnected() {
        return connector.isOpen();
    }

    @Override
    public void close() {
        connector.drop();
    }
}
