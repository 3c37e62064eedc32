package io.sluice.otlp.producer;

import java.io.IOException;

/**
 * Sends one export request and returns the classified outcome, one request at a time: OTLP/gRPC
 * ({@link GrpcTransport}) or OTLP/HTTP ({@link HttpTransport}).
 */
interface Transport extends AutoCloseable {
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
     * Sends {@code body[off, off+len)} (gzip-compressed when {@code gzip}) and waits for the answer. An I/O error or
     * a timeout throws IOException, which the caller retries.
     */
    Reply export(Signal signal, byte[] body, int off, int len, boolean gzip) throws IOException, InterruptedException;

    @Override
    void close();
}
