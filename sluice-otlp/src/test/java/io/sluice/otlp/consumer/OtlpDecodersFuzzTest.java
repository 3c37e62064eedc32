package io.sluice.otlp.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.otlp.codec.OtlpFormatException;
import io.sluice.otlp.codec.RecordSink;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzz targets for consumer.OTLP's request decoding, as {@code Ingest.run} does it for a body (plain, or already
 * inflated): {@link Decoders#count} first, which sizes the memory reserved for the request, then
 * {@link Decoders#decode} into messages, for logs and metrics, protobuf and JSON. The contract: both succeed or
 * throw {@link OtlpFormatException} (answered 400); and a decode never yields more messages than the count
 * promised, since only that many were reserved.
 */
class OtlpDecodersFuzzTest {
    private final Decoders decoders = new Decoders();
    private final BatchPool pool = new BatchPool();

    @FuzzTest(maxDuration = "5m")
    void protobufLogs(byte[] body) {
        run(Signal.LOGS, false, body);
    }

    @FuzzTest(maxDuration = "5m")
    void protobufMetrics(byte[] body) {
        run(Signal.METRICS, false, body);
    }

    @FuzzTest(maxDuration = "5m")
    void jsonLogs(byte[] body) {
        run(Signal.LOGS, true, body);
    }

    @FuzzTest(maxDuration = "5m")
    void jsonMetrics(byte[] body) {
        run(Signal.METRICS, true, body);
    }

    private void run(Signal signal, boolean json, byte[] body) {
        int count;
        try {
            count = Decoders.count(signal, json, body, 0, body.length);
        } catch (OtlpFormatException e) {
            return; // answered 400 before anything is reserved
        }
        assertThat(count).isGreaterThanOrEqualTo(0);
        Sink sink = new Sink();
        try {
            int n = decoders.decode(signal, json, body, 0, body.length, sink);
            assertThat(n).isEqualTo(sink.made);
            assertThat(n).as("messages decoded beyond the %d counted and reserved", count).isLessThanOrEqualTo(count);
        } catch (OtlpFormatException e) {
            // answered 400
        } finally {
            sink.release();
        }
    }

    /** Messages in batches from the pool, a new batch when one is full, as the consumer's sink does. */
    private final class Sink implements RecordSink {
        private final List<Batch> batches = new ArrayList<>();
        private Batch current;
        int made;

        @Override
        public Message next() {
            if (current == null || current.isFull()) {
                current = pool.acquire();
                batches.add(current);
            }
            made++;
            return current.add();
        }

        void release() {
            batches.forEach(Batch::release);
        }
    }
}
