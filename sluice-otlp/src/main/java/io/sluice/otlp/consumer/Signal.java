package io.sluice.otlp.consumer;

/** The OTLP signals consumer.OTLP accepts, with where each is posted and how its answer names refused items. */
enum Signal {
    LOGS("/opentelemetry.proto.collector.logs.v1.LogsService/Export", "/v1/logs", "rejectedLogRecords", "log records"),
    METRICS("/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", "/v1/metrics", "rejectedDataPoints",
            "data points");

    /** The gRPC method path. */
    final String grpcPath;
    /** The OTLP/HTTP path. */
    final String httpPath;
    /** The JSON name of partial_success's field 1 (rejected_log_records, rejected_data_points). */
    final String rejectedJson;
    /** What one item is called, for messages. */
    final String items;

    Signal(String grpcPath, String httpPath, String rejectedJson, String items) {
        this.grpcPath = grpcPath;
        this.httpPath = httpPath;
        this.rejectedJson = rejectedJson;
        this.items = items;
    }

    /** The signal exported at gRPC path {@code path}, or null. */
    static Signal ofGrpcPath(CharSequence path) {
        for (Signal s : values()) {
            if (s.grpcPath.contentEquals(path)) {
                return s;
            }
        }
        return null;
    }

    /** The signal posted to HTTP path {@code path} (a trailing slash allowed), or null. */
    static Signal ofHttpPath(String path) {
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        for (Signal s : values()) {
            if (s.httpPath.equals(p)) {
                return s;
            }
        }
        return null;
    }
}
