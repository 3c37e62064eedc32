package io.sluice.core.producer;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Numbers;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerContext;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts delivered messages and drops them. At shutdown it reports messages delivered ÷ the time from the first
 * message generated to the last one delivered: delivery, not enqueueing, is what counts.
 */
public final class Benchmark extends Producer {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "producer.Benchmark",
            "Counts and drops messages; prints msg/s counted at delivery.")
            .factory(Benchmark::new);

    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private volatile long lastDeliveredNanos;
    private ProducerContext ctx;

    public Benchmark(PluginConfig config) {
        super(config);
    }

    @Override
    public void start(ProducerContext context) {
        this.ctx = context;
    }

    @Override
    public void deliver(Batch batch) {
        long size = 0;
        for (int i = 0; i < batch.size(); i++) {
            size += batch.get(i).length();
        }
        bytes.addAndGet(size);
        delivered.addAndGet(batch.size());
        lastDeliveredNanos = System.nanoTime();
    }

    @Override
    public boolean concurrent() {
        return true;
    }

    @Override
    public void close() {
        Log log = ctx.log();
        long n = delivered.get();
        long first = ctx.firstGeneratedNanos();
        if (n == 0 || first == 0) {
            log.info(config.id() + ": no messages delivered");
            return;
        }
        double secs = (lastDeliveredNanos - first) / 1e9;
        // The wall-clock time of the last delivery lets a load generator in another process time the whole
        // run, from its first byte sent to the last message delivered.
        Instant now = Instant.now();
        Instant last = now.minusNanos(System.nanoTime() - lastDeliveredNanos);
        // Numbers, not String.format: this line is on the way out of a finite run (see Numbers).
        log.info(config.id() + ": delivered " + Numbers.grouped(n) + " messages (" + Numbers.grouped(bytes.get())
                + " bytes) in " + Numbers.fixed(secs, 3) + " s = " + Numbers.groupedRound(n / secs)
                + " msg/s (first generated to last delivered); last delivered at epoch " + last.getEpochSecond() + "."
                + Numbers.zeroPadded(last.getNano() / 1000, 6) + " s");
    }

    /** Messages delivered so far. */
    public long delivered() {
        return delivered.get();
    }

    /** Messages per second from the first generated to the last delivered. */
    public double rate() {
        long first = ctx == null ? 0 : ctx.firstGeneratedNanos();
        long span = lastDeliveredNanos - first;
        return first == 0 || span <= 0 ? 0 : delivered.get() / (span / 1e9);
    }
}
