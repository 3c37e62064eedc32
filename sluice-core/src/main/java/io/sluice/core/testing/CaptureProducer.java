package io.sluice.core.testing;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Producer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A producer that keeps a {@link Captured} copy of every message delivered to it, in delivery order, and sends
 * nothing anywhere. {@code sluice test} puts it in place of a config's producers; tests use it through the
 * harness's {@code test.Collect}. Copying every message allocates: it is for tests, never for a running pipeline.
 */
public class CaptureProducer extends Producer {
    /** Delivered payloads, in delivery order. */
    public final ConcurrentLinkedQueue<String> payloads = new ConcurrentLinkedQueue<>();
    /** Delivered messages (tag, stream, time, payload, metadata), in delivery order. */
    public final ConcurrentLinkedQueue<Captured> events = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();

    /** A capture with the settings (streams, modulators) of {@code config}. */
    public CaptureProducer(PluginConfig config) {
        super(config);
    }

    /** Copies every message of the batch. */
    @Override
    public void deliver(Batch batch) throws Exception {
        capture(batch);
    }

    /** Copies every message of the batch; for subclasses that do more on delivery. */
    protected final void capture(Batch batch) {
        for (int i = 0; i < batch.size(); i++) {
            Message m = batch.get(i);
            events.add(Captured.of(m));
            payloads.add(m.payloadString());
            size.incrementAndGet();
        }
    }

    /** Messages delivered so far: once it says n, {@link #payloads} and {@link #events} hold n. */
    public int size() {
        return size.get();
    }

    /** Forgets what was delivered so far. */
    public void clear() {
        events.clear();
        payloads.clear();
        size.set(0);
    }
}
