package io.sluice.bench.forward;

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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What consumer.Forward's event loop does per event of a PackedForward frame, without the network: decode a frame
 * of 1,000 records of ForwardLoad's shape (~234 bytes) and copy each record into a pooled message, as
 * {@code ForwardConnection.onEvent} does with {@code Payload: msgpack}. One op is one event.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class ForwardDecodeBenchmark {
    static final int EVENTS = 1000;

    private final ForwardDecoder decoder = new ForwardDecoder();
    private final BatchPool pool = new BatchPool();
    private byte[] frame;
    private final Sink sink = new Sink();

    /** Fills pooled batches the way the connection does and releases each full one at once. */
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
            m.setTimestamp(epochSeconds * 1_000_000_000L + nanos);
            m.setTag(tag);
            m.setPayload(record.buffer(), record.offset(), record.length());
            if (current.isFull()) {
                count += current.size();
                current.release();
                current = null;
            }
        }
    }

    @Setup
    public void setup() {
        EventBatch batch = new EventBatch();
        long t = System.currentTimeMillis() / 1000;
        for (int i = 0; i < EVENTS; i++) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("level", "info");
            r.put("service", "checkout");
            r.put("n", (long) i);
            r.put("message", "x".repeat(190));
            batch.add(t, 0, r);
        }
        MsgPackWriter out = new MsgPackWriter(1 << 20);
        new ForwardEncoder().frame(ForwardMode.PACKED_FORWARD, out, "bench.load", batch, null);
        frame = out.toByteArray();
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long packed() throws ForwardProtocolException {
        decoder.decode(frame, 0, frame.length, sink);
        return sink.count;
    }
}
