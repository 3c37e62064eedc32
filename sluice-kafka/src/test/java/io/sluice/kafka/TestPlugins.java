package io.sluice.kafka;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Completion;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerRunner;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/** Test-only plugins: a numbered event source that records its acknowledgements, and a collecting sink. */
public final class TestPlugins {
    private TestPlugins() {
    }

    /**
     * Publishes events Start .. Start+Count-1, payload "event-N", with metadata {@code k} ("key-" N%97) and {@code h}
     * ("hdr-" N), in batches of BatchSize. With Gated, each batch waits for a permit from {@link #permits}.
     * Every batch carries a completion that adds its event numbers to {@link #acked} when the pipeline
     * acknowledges it: what a real source would then tell its sender.
     */
    public static final class Events extends Consumer {
        static final Param<Integer> START = Param.integer("Start", 0, "First event number.");
        static final Param<Integer> COUNT = Param.integer("Count", 1000, "How many events.");
        static final Param<Integer> BATCH_SIZE = Param.integer("BatchSize", 500, "Events per batch.");
        static final Param<Boolean> GATED = Param.bool("Gated", false, "One permit per batch.");
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "test.Events", "events")
                .params(START, COUNT, BATCH_SIZE, GATED).factory(Events::new);
        private static final byte[] K = "k".getBytes();
        private static final byte[] H = "h".getBytes();

        public final Semaphore permits = new Semaphore(0);
        public final ConcurrentHashMap<Integer, Boolean> acked = new ConcurrentHashMap<>();
        public final AtomicLong published = new AtomicLong();
        public static volatile Events last;

        Events(PluginConfig c) {
            super(c);
            last = this;
        }

        @Override
        public void consume(ConsumerContext ctx) throws InterruptedException {
            int first = config.get(START);
            int count = first + config.get(COUNT);
            int size = config.get(BATCH_SIZE);
            boolean gated = config.get(GATED);
            for (int start = first; start < count && ctx.isActive(); start += size) {
                if (gated) {
                    while (!permits.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                        if (!ctx.isActive()) {
                            return;
                        }
                    }
                }
                int end = Math.min(count, start + size);
                Batch b = ctx.newBatch();
                for (int i = start; i < end; i++) {
                    Message m = b.add();
                    m.setPayload("event-" + i);
                    m.setTimestamp(1_700_000_000_000_000_000L + i * 1_000_000L);
                    byte[] k = ("key-" + (i % 97)).getBytes();
                    byte[] h = ("hdr-" + i).getBytes();
                    m.metadata().set(K, k, Metadata.STRING);
                    m.metadata().set(H, h, Metadata.STRING);
                }
                final int from = start;
                b.setCompletion(new Completion() {
                    @Override
                    protected void onComplete() {
                        for (int i = from; i < end; i++) {
                            acked.put(i, Boolean.TRUE);
                        }
                    }
                });
                published.addAndGet(end - start);
                ctx.publish(b);
            }
        }

        @Override
        public boolean endsPipeline() {
            return true;
        }
    }

    /** One received message, as strings. */
    public static final class Received {
        public final String payload;
        public final Map<String, String> metadata;
        public final long timestamp;

        Received(Message m) {
            this.payload = m.payloadString();
            Map<String, String> md = new java.util.HashMap<>();
            if (m.hasMetadata()) {
                Metadata meta = m.metadata();
                for (int i = 0; i < meta.size(); i++) {
                    md.put(meta.key(i), meta.value(i));
                }
            }
            this.metadata = md;
            this.timestamp = m.timestamp();
        }
    }

    /** Keeps what it receives; a shared {@link #sink} collects across pipelines (one consumer group). */
    public static final class Collect extends Producer {
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "test.Collect", "collects")
                .factory(Collect::new);
        public static volatile java.util.Queue<Received> sink;
        public final java.util.concurrent.ConcurrentLinkedQueue<Received> received = new java.util.concurrent.ConcurrentLinkedQueue<>();

        Collect(PluginConfig c) {
            super(c);
        }

        @Override
        public void deliver(Batch batch) {
            java.util.Queue<Received> shared = sink;
            for (int i = 0; i < batch.size(); i++) {
                Received r = new Received(batch.get(i));
                received.add(r);
                if (shared != null) {
                    shared.add(r);
                }
            }
        }
    }

    /** The default registry (core and Kafka plugins) plus these. */
    public static PluginRegistry registry() {
        List<PluginSpec> all = new ArrayList<>(PluginRegistry.defaultRegistry().all());
        all.addAll(List.of(Events.SPEC, Collect.SPEC));
        return new PluginRegistry(all);
    }

    /** A pipeline from YAML, with a quiet log (errors only, on stderr so surefire keeps them). */
    public static Pipeline pipeline(String yaml) {
        PluginRegistry r = registry();
        return new Pipeline(new ConfigLoader(r, Map.of()).loadString(yaml, "test.yaml"), r, log());
    }

    public static Log log() {
        return new Log(System.err, Log.WARNING);
    }

    public static Log quiet() {
        return new Log(new PrintStream(OutputStream.nullOutputStream()), Log.ERROR);
    }

    /** The producer instance of plugin {@code id}. */
    @SuppressWarnings("unchecked")
    public static <T extends Producer> T producer(Pipeline p, String id) {
        for (ProducerRunner r : p.producers()) {
            if (r.producer().config().id().equals(id)) {
                return (T) r.producer();
            }
        }
        throw new AssertionError("no producer " + id);
    }

    /** Polls until the condition holds; fails after the deadline. */
    public static void await(String what, long timeoutMillis, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeoutMillis + " ms waiting for " + what);
            }
            Thread.sleep(5);
        }
    }
}
