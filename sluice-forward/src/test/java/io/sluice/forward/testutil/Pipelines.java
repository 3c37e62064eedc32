package io.sluice.forward.testutil;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerRunner;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Builds pipelines from YAML with test plugins, and waits without sleeping for a fixed time. */
public final class Pipelines {
    private Pipelines() {
    }

    /** One delivered event, copied out of its reused message. */
    public record Event(String tag, String stream, long timestamp, String payload, Map<String, String> fields,
                        Map<String, Byte> kinds) {
    }

    /** Keeps every delivered message. */
    public static final class Collect extends Producer {
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "test.Collect", "collects")
                .factory(Collect::new);
        public final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();

        Collect(PluginConfig c) {
            super(c);
        }

        @Override
        public void deliver(Batch batch) {
            for (int i = 0; i < batch.size(); i++) {
                Message m = batch.get(i);
                Map<String, String> fields = new LinkedHashMap<>();
                Map<String, Byte> kinds = new LinkedHashMap<>();
                if (m.hasMetadata()) {
                    Metadata md = m.metadata();
                    for (int f = 0; f < md.size(); f++) {
                        fields.put(md.key(f), md.value(f));
                        kinds.put(md.key(f), md.kind(f));
                    }
                }
                events.add(new Event(m.tag(), Streams.name(m.stream()), m.timestamp(), m.payloadString(), fields, kinds));
            }
        }
    }

    /** Delivers one batch per permit: holds batches back as long as a test wants. */
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

    /** Counts delivered messages and keeps nothing else (for floods too big to keep). */
    public static final class Count extends Producer {
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "test.Count", "counts")
                .factory(Count::new);
        public final java.util.concurrent.atomic.AtomicLong delivered = new java.util.concurrent.atomic.AtomicLong();

        Count(PluginConfig c) {
            super(c);
        }

        @Override
        public void deliver(Batch batch) {
            delivered.addAndGet(batch.size());
        }
    }

    /** Default plugins (core and Forward) plus the test ones. */
    public static PluginRegistry registry() {
        List<PluginSpec> all = new ArrayList<>(PluginRegistry.defaultRegistry().all());
        all.add(Collect.SPEC);
        all.add(Gate.SPEC);
        all.add(Count.SPEC);
        return new PluginRegistry(all);
    }

    /** A started pipeline built from YAML, logging into {@code log}. */
    public static Pipeline start(String yaml, Log log) throws Exception {
        return start(yaml, log, io.sluice.core.message.MemoryBudget.ofHeapShare());
    }

    /** A started pipeline whose inputs reserve from {@code memory}. */
    public static Pipeline start(String yaml, Log log, io.sluice.core.message.MemoryBudget memory) throws Exception {
        PluginRegistry r = registry();
        Pipeline p = new Pipeline(new ConfigLoader(r, Map.of()).loadString(yaml, "test.yaml"), r, log, memory);
        p.start();
        return p;
    }

    /** The plugin configs of a YAML pipeline, for tests that drive one plugin themselves. */
    public static List<PluginConfig> configs(String yaml) {
        return new ConfigLoader(registry(), Map.of()).loadString(yaml, "test.yaml");
    }

    /** A log kept in memory, so tests can check what an operator would read. */
    public static final class MemoryLog {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        public final Log log = new Log(new PrintStream(bytes, true, StandardCharsets.UTF_8), Log.DEBUG);

        public synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    /** A log that keeps quiet. */
    public static Log quietLog() {
        return new Log(new PrintStream(OutputStream.nullOutputStream()), Log.ERROR);
    }

    /** A real PluginStats, borrowed from a pipeline that is built but never started (its constructor is core's). */
    public static PluginStats stats() {
        PluginRegistry r = registry();
        Pipeline p = new Pipeline(new ConfigLoader(r, Map.of()).loadString(
                "C:\n  Type: consumer.Forward\n  Address: 127.0.0.1:0\nP:\n  Type: test.Collect\n", "stats.yaml"), r, quietLog());
        return p.consumerStats().get(0);
    }

    @SuppressWarnings("unchecked")
    public static <T extends Producer> T producer(Pipeline p, String id) {
        return (T) runner(p, id).producer();
    }

    public static ProducerRunner runner(Pipeline p, String id) {
        for (ProducerRunner r : p.producers()) {
            if (r.producer().config().id().equals(id)) {
                return r;
            }
        }
        throw new AssertionError("no producer " + id);
    }

    /** A port free right now on 127.0.0.1. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Polls until the condition holds; fails after the deadline. */
    public static void await(String what, long timeoutMillis, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeoutMillis + " ms waiting for " + what);
            }
            Thread.sleep(2);
        }
    }

    /** Waits until the pipeline reports ready (consumers listening, producers connected). */
    public static void awaitReady(Pipeline p) throws InterruptedException {
        await("pipeline ready", 10_000, p::isReady);
    }
}
