package io.sluice.core;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerRunner;
import java.io.PrintStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Plugins that only tests use: a numbered source, a collecting sink, a gated sink, an odd-number filter. */
public final class TestPlugins {
    private TestPlugins() {
    }

    /** Publishes payloads "0" .. "Count-1" in batches, then ends the pipeline. */
    public static final class Numbers extends Consumer {
        static final Param<Integer> COUNT = Param.integer("Count", 1000, "How many numbers.");
        static final Param<Boolean> KEEP_RUNNING = Param.bool("KeepRunning", false, "Keep the pipeline up at the end.");
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "test.Numbers", "numbers")
                .params(COUNT, KEEP_RUNNING).factory(Numbers::new);

        Numbers(PluginConfig c) {
            super(c);
        }

        @Override
        public void consume(ConsumerContext ctx) throws InterruptedException {
            int count = config.get(COUNT);
            Batch b = null;
            for (int i = 0; i < count && ctx.isActive(); i++) {
                if (b == null) {
                    b = ctx.newBatch();
                }
                b.add().setPayload(Integer.toString(i));
                if (b.isFull()) {
                    ctx.publish(b);
                    b = null;
                }
            }
            if (b != null) {
                ctx.publish(b);
            }
        }

        @Override
        public boolean endsPipeline() {
            return !config.get(KEEP_RUNNING);
        }
    }

    /** Keeps every delivered payload. */
    public static final class Collect extends Producer {
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "test.Collect", "collects")
                .factory(Collect::new);
        public final ConcurrentLinkedQueue<String> payloads = new ConcurrentLinkedQueue<>();
        /** What {@link #isReady()} answers: tests switch it to see /ready flip. */
        public volatile boolean ready = true;
        /** Calls of deliver, counted here and in a counter of the plugin's own (exported on /metrics). */
        public final java.util.concurrent.atomic.AtomicLong deliveries = new java.util.concurrent.atomic.AtomicLong();
        private java.util.concurrent.atomic.AtomicLong deliveriesCounter;

        Collect(PluginConfig c) {
            super(c);
        }

        @Override
        public void start(io.sluice.core.pipeline.ProducerContext ctx) throws Exception {
            super.start(ctx);
            deliveriesCounter = ctx.stats().counter("test_collect_deliveries_total", "Calls of deliver.");
        }

        @Override
        public boolean isReady() {
            return ready;
        }

        @Override
        public void deliver(Batch batch) {
            // Counted before the payloads are added: a test that waits for the payloads then sees final counts.
            deliveriesCounter.incrementAndGet();
            deliveries.incrementAndGet();
            for (int i = 0; i < batch.size(); i++) {
                payloads.add(batch.get(i).payloadString());
            }
        }
    }

    /** Delivers one batch per permit: a producer as slow as the test wants, without sleeping. */
    public static final class Gate extends Producer {
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "test.Gate", "gated")
                .factory(Gate::new);
        public final Semaphore permits = new Semaphore(0);
        public volatile long delivered;

        Gate(PluginConfig c) {
            super(c);
        }

        @Override
        public void deliver(Batch batch) throws InterruptedException {
            permits.acquire();
            delivered += batch.size();
        }
    }

    /** Drops messages whose payload is an odd number. */
    public static final class DropOdd implements Modulator {
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "test.DropOdd", "drops odd")
                .factory(c -> new DropOdd());

        @Override
        public Result modulate(Message m) {
            return (m.payload()[m.length() - 1] - '0') % 2 == 1 ? Result.DROP : Result.CONTINUE;
        }
    }

    /** Core plugins plus the test ones. */
    public static PluginRegistry registry() {
        List<PluginSpec> all = new ArrayList<>(PluginRegistry.defaultRegistry().all());
        all.addAll(List.of(Numbers.SPEC, Collect.SPEC, Gate.SPEC, DropOdd.SPEC));
        return new PluginRegistry(all);
    }

    /** Builds a pipeline from YAML text with the test registry and a quiet log. */
    public static Pipeline pipeline(String yaml) {
        PluginRegistry r = registry();
        return new Pipeline(new ConfigLoader(r, Map.of()).loadString(yaml, "test.yaml"), r, quietLog());
    }

    /** A log that keeps quiet, so test output stays readable. */
    public static Log quietLog() {
        return new Log(new PrintStream(OutputStream.nullOutputStream()), Log.ERROR);
    }

    /** The producer instance of plugin {@code id}. */
    @SuppressWarnings("unchecked")
    public static <T extends Producer> T producer(Pipeline p, String id) {
        return (T) runner(p, id).producer();
    }

    /** The runner (queue, counters) of producer {@code id}. */
    public static ProducerRunner runner(Pipeline p, String id) {
        for (ProducerRunner r : p.producers()) {
            if (r.producer().config().id().equals(id)) {
                return r;
            }
        }
        throw new AssertionError("no producer " + id);
    }

    /** Polls until the condition holds; fails after the deadline. */
    public static void await(String what, long timeoutMillis, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(1);
        }
    }
}
