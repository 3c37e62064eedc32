package io.sluice.forward.consumer;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.codec.EventSink;
import io.sluice.forward.codec.ForwardDecoder;
import io.sluice.forward.codec.ForwardEncoder;
import io.sluice.forward.codec.ForwardMode;
import io.sluice.forward.codec.ForwardProtocolException;
import io.sluice.forward.codec.MsgPackWriter;
import io.sluice.forward.codec.RecordView;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * consumer.Forward's per-event work on its default settings, without the network: decode a PackedForward frame
 * of 1,000 records (five string/integer fields, ~180 bytes, the shape of the side-by-side benchmark) and map each
 * into a pooled message with the connection's {@link RecordMapper}: the record as a JSON payload and its fields as
 * metadata ({@code json/true}, the defaults), or the cheaper settings for comparison. One op is one event.
 *
 * <p>In consumer.Forward's package because the mapper is package-private: the benchmark measures the class the
 * connection runs, not a copy of it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class ForwardMapBenchmark {
    static final int EVENTS = 1000;

    @Param({"json"})
    public String payload;
    @Param({"true"})
    public boolean metadata;

    private final ForwardDecoder decoder = new ForwardDecoder();
    private final BatchPool pool = new BatchPool();
    private RecordMapper mapper;
    private byte[] frame;
    private final Sink sink = new Sink();

    /** Fills pooled batches as ForwardConnection.onEvent does and releases each full one at once. */
    final class Sink implements EventSink {
        Batch current;
        long count;

        @Override
        public void onOptions(String chunk, long size, String compressed) {
        }

        @Override
        public void onEvent(String tag, long epochSeconds, int nanos, RecordView record) {
            if (current == null) {
                current = pool.acquire();
            }
            Message m = current.add();
            mapper.map(record.buffer(), record.offset(), record.length(), record.metadataOffset(),
                    record.metadataLength(), m);
            m.setTimestamp(epochSeconds * 1_000_000_000L + nanos);
            m.setTag(tag);
            if (current.isFull()) {
                count += current.size();
                current.release();
                current = null;
            }
        }
    }

    @Setup
    public void setup() {
        mapper = new RecordMapper(RecordMapper.PayloadMode.valueOf(payload.toUpperCase()), null, metadata, "_meta.");
        EventBatch batch = new EventBatch();
        long t = System.currentTimeMillis() / 1000;
        for (int i = 0; i < EVENTS; i++) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("level", i % 10 == 0 ? "warn" : "info");
            r.put("service", "checkout-" + (i % 7));
            r.put("n", (long) i * 7919);
            r.put("user", "user-" + (i * 31 % 1000));
            r.put("message", "GET /api/v1/orders/" + i + " HTTP/1.1 200 OK took 12ms " + "x".repeat(90));
            batch.add(t, 0, r);
        }
        MsgPackWriter out = new MsgPackWriter(1 << 20);
        new ForwardEncoder().frame(ForwardMode.PACKED_FORWARD, out, "bench", batch, null);
        frame = out.toByteArray();
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long map() throws ForwardProtocolException {
        decoder.decode(frame, 0, frame.length, sink);
        return sink.count;
    }
}
