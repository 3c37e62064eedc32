package io.sluice.io;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.Producer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Runs a pipeline from YAML with a capturing producer ({@code producer.Capture}) next to the real plugins. */
public final class TestPipeline implements AutoCloseable {
    private static final Map<String, Capture> CAPTURES = new ConcurrentHashMap<>();

    /** Keeps every delivered message (payload and metadata) in order; can be held at a gate. */
    public static final class Capture extends Producer {
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "producer.Capture",
                "Test producer keeping every message.").factory(Capture::new);
        private final List<String> payloads = new ArrayList<>();
        private final List<Map<String, String>> metadata = new ArrayList<>();
        private volatile CountDownLatch gate;
        private volatile int gateAfter = Integer.MAX_VALUE;

        private static volatile int holdNextAfter = -1;

        Capture(PluginConfig config) {
            super(config);
            CAPTURES.put(config.id(), this);
        }

        @Override
        public void start(io.sluice.core.pipeline.ProducerContext ctx) {
            CAPTURES.put(config.id(), this);
            if (holdNextAfter >= 0) {
                holdAfter(holdNextAfter);
                holdNextAfter = -1;
            }
        }

        /** The next capture created holds deliveries once {@code after} messages arrived (set before start). */
        public static void holdNextAfter(int after) {
            holdNextAfter = after;
        }

        @Override
        public void deliver(Batch batch) throws InterruptedException {
            CountDownLatch g = gate;
            if (g != null && size() >= gateAfter) {
                g.await();
            }
            synchronized (this) {
                for (int i = 0; i < batch.size(); i++) {
                    Message m = batch.get(i);
                    payloads.add(m.payloadString());
                    Map<String, String> md = new java.util.LinkedHashMap<>();
                    if (m.hasMetadata()) {
                        for (int k = 0; k < m.metadata().size(); k++) {
                            md.put(m.metadata().key(k), m.metadata().value(k));
                        }
                    }
                    metadata.add(md);
                }
            }
        }

        /** Holds deliveries once {@code after} messages arrived, until {@link #open()}. */
        public void holdAfter(int after) {
            gate = new CountDownLatch(1);
            gateAfter = after;
        }

        public void open() {
            CountDownLatch g = gate;
            if (g != null) {
                g.countDown();
            }
        }

        public synchronized int size() {
            return payloads.size();
        }

        public synchronized List<String> payloads() {
            return new ArrayList<>(payloads);
        }

        public synchronized List<Map<String, String>> metadata() {
            return new ArrayList<>(metadata);
        }
    }

    private final Pipeline pipeline;
    private final List<PluginConfig> configs;
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();

    private TestPipeline(String yaml, MemoryBudget budget) {
        List<PluginSpec> specs = new ArrayList<>(PluginRegistry.defaultRegistry().all());
        specs.add(Capture.SPEC);
        PluginRegistry registry = new PluginRegistry(specs);
        configs = new ConfigLoader(registry, Map.of()).loadString(yaml, "test.yaml");
        Log log = new Log(new PrintStream(logBytes, true, StandardCharsets.UTF_8), Log.DEBUG);
        pipeline = budget == null ? new Pipeline(configs, registry, log) : new Pipeline(configs, registry, log, budget);
    }

    /** Builds and starts a pipeline. */
    public static TestPipeline start(String yaml) throws Exception {
        return start(yaml, null);
    }

    /** Builds and starts a pipeline with its own memory budget (null: the default). */
    public static TestPipeline start(String yaml, MemoryBudget budget) throws Exception {
        TestPipeline p = new TestPipeline(yaml, budget);
        p.pipeline.start();
        return p;
    }

    /** The counters of the consumer with this id. */
    public PluginStats consumerStats(String id) {
        return pipeline.consumerStats().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow();
    }

    /** The capture producer with this id. */
    public Capture capture(String id) {
        return CAPTURES.get(id);
    }

    public Pipeline pipeline() {
        return pipeline;
    }

    /** What the pipeline logged. */
    public String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    /** Polls until the condition holds; fails with the log after the deadline. */
    public void await(String what, BooleanSupplier condition) throws InterruptedException {
        awaitUntil(what, condition, 20_000, this);
    }

    /** Polls until the condition holds or fails after {@code millis}. */
    public static void awaitUntil(String what, BooleanSupplier condition, long millis, TestPipeline p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + (p == null ? "" : "\nlog:\n" + p.log()));
            }
            Thread.sleep(5);
        }
    }

    @Override
    public void close() {
        pipeline.stop();
    }
}
