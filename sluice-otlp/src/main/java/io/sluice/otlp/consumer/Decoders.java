package io.sluice.otlp.consumer;

import io.sluice.otlp.codec.JsonLogsDecoder;
import io.sluice.otlp.codec.JsonMetricsDecoder;
import io.sluice.otlp.codec.LogsDecoder;
import io.sluice.otlp.codec.MetricsDecoder;
import io.sluice.otlp.codec.OtlpFormatException;
import io.sluice.otlp.codec.RecordSink;

/**
 * One thread's decoders (they keep scratch state, so each event loop has its own), chosen by signal and
 * encoding. The one place consumer.OTLP calls the codec package.
 */
final class Decoders {
    private final LogsDecoder logs = new LogsDecoder();
    private final MetricsDecoder metrics = new MetricsDecoder();
    private final JsonLogsDecoder jsonLogs = new JsonLogsDecoder();
    private final JsonMetricsDecoder jsonMetrics = new JsonMetricsDecoder();

    /** The records (logs) or points (metrics) in a request, counted before decoding so their memory is reserved. */
    static int count(Signal signal, boolean json, byte[] b, int off, int len) throws OtlpFormatException {
        if (signal == Signal.LOGS) {
            return json ? JsonLogsDecoder.countRecords(b, off, len) : LogsDecoder.countRecords(b, off, len);
        }
        return json ? JsonMetricsDecoder.countPoints(b, off, len) : MetricsDecoder.countPoints(b, off, len);
    }

    /** Decodes a request into {@code sink}, one message per record or point; returns how many. */
    int decode(Signal signal, boolean json, byte[] b, int off, int len, RecordSink sink) throws OtlpFormatException {
        if (signal == Signal.LOGS) {
            return json ? jsonLogs.decode(b, off, len, sink) : logs.decode(b, off, len, sink);
        }
        return json ? jsonMetrics.decode(b, off, len, sink) : metrics.decode(b, off, len, sink);
    }
}
