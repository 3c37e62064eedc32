package io.sluice.core.testing;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.PermanentDeliveryException;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerContext;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plugins that only tests use, registered by {@link PipelineHarness} (never through ServiceLoader, so a module's
 * default registry stays its own): a numbered source, a capturing sink, a counting sink, a gated sink, an odd-number
 * filter.
 */
public final class HarnessPlugins {
    private HarnessPlugins() {
    }

    /** Every plugin declared here. */
    public static List<PluginSpec> specs() {
        return List.of(Numbers.SPEC, Collect.SPEC, Count.SPEC, Gate.SPEC, DropOdd.SPEC);
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

    /**
     * The capturing producer: keeps every delivered payload and a {@link Captured} copy of each message. Tests may
     * hold it shut ({@link #hold()}, or after some messages {@link #holdAfter}), make it fail for good ({@link #fail})
     * or not ready ({@link #ready}), and count the distinct batch completions it saw ({@link #completions()}).
     */
    public static final class Collect extends CaptureProducer {
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "test.Collect", "collects")
                .factory(Collect::new);
        /** What {@link #isReady()} answers: tests switch it to see /ready flip. */
        public volatile boolean ready = true;
        /** While true, every delivery fails for good (PermanentDeliveryException). */
        public volatile boolean fail;
        /** Calls of deliver, counted here and in a counter of the plugin's own (exported on /metrics). */
        public final AtomicLong deliveries = new AtomicLong();
        private AtomicLong deliveriesCounter;
        private final Set<Object> completions = Collections.newSetFromMap(new IdentityHashMap<>());
        private volatile CountDownLatch gate;
        private volatile int gateAfter;

        Collect(PluginConfig c) {
            super(c);
        }

        @Override
        public void start(ProducerContext ctx) throws Exception {
            super.start(ctx);
            deliveriesCounter = ctx.stats().counter("test_collect_deliveries_total", "Calls of deliver.");
        }

        @Override
        public boolean isReady() {
            return ready;
        }

        /** Holds deliveries until {@link #open()}: the queues in front fill up. */
        public void hold() {
            holdAfter(0);
        }

        /**
         * Holds deliveries once {@code n} messages arrived, until {@link #open()}: a batch that starts below {@code n}
         * is delivered whole. Set before start to hold from the first delivery on.
         */
        public void holdAfter(int n) {
            gateAfter = n;
            gate = new CountDownLatch(1);
        }

        /** Forgets what was delivered so far (payloads, events, completions): for a sink reused across runs. */
        @Override
        public void clear() {
            synchronized (completions) {
                completions.clear();
            }
            super.clear();
        }

        /**
         * Distinct completions of the delivered batches: a consumer that acknowledges per request (consumer.HEC)
         * attaches one completion to all the batches of a request, so this counts the requests.
         */
        public int completions() {
            synchronized (completions) {
                return completions.size();
            }
        }

        /** Lets held deliveries through. */
        public void open() {
            CountDownLatch g = gate;
            gate = null;
            if (g != null) {
                g.countDown();
            }
        }

        @Override
        public void close() throws Exception {
            open();
            super.close();
        }

        @Override
        public void deliver(Batch batch) throws InterruptedException, PermanentDeliveryException {
            CountDownLatch g = gate;
            if (g != null && size() >= gateAfter) {
                g.await();
            }
            if (fail) {
                throw new PermanentDeliveryException("Collect " + config.id() + " told to fail");
            }
            // Counted before the payloads are added: a test that waits for the payloads then sees final counts.
            deliveriesCounter.incrementAndGet();
            deliveries.incrementAndGet();
            if (batch.completion() != null) {
                synchronized (completions) {
                    completions.add(batch.completion());
                }
            }
            capture(batch);
        }
    }

    /** Counts delivered messages and keeps nothing else: for floods too big to keep. */
    public static final class Count extends Producer {
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "test.Count", "counts")
                .factory(Count::new);
        /** Messages delivered so far. */
        public final AtomicLong delivered = new AtomicLong();

        Count(PluginConfig c) {
            super(c);
        }

        @Override
        public void deliver(Batch batch) {
            delivered.addAndGet(batch.size());
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
}
