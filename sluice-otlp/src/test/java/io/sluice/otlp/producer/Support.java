package io.sluice.otlp.producer;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.core.pipeline.ProducerRunner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Test helpers: producers started without a pipeline, pipelines from YAML with a collecting producer, polling. */
final class Support {
    private Support() {
    }

    /** A log kept in memory, so tests can check what an operator would read. */
    static final class MemoryLog {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final Log log = new Log(new PrintStream(bytes, true, StandardCharsets.UTF_8), Log.DEBUG);

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    /** Keeps the payloads of every message it is given (the fallback stream's reader). */
    static final class Collect extends Producer {
        static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "test.Collect", "collects").factory(Collect::new);
        final ConcurrentLinkedQueue<String> payloads = new ConcurrentLinkedQueue<>();

        Collect(PluginConfig c) {
            super(c);
        }

        @Override
        public void deliver(Batch batch) {
            for (int i = 0; i < batch.size(); i++) {
                payloads.add(batch.get(i).payloadString());
            }
        }
    }

    static PluginRegistry registry() {
        List<PluginSpec> all = new ArrayList<>(PluginRegistry.defaultRegistry().all());
        all.add(Collect.SPEC);
        return new PluginRegistry(all);
    }

    /** The counters of the last producer made by {@link #producer}. */
    static volatile PluginStats lastStats;

    /** producer.OTLP with these settings, started with a real PluginStats and the given log. */
    static OtlpProducer producer(Map<String, Object> settings, Log log) throws Exception {
        OtlpProducer p = new OtlpProducer(PluginConfig.of("otlp", "producer.OTLP", new HashMap<>(settings)));
        PluginStats stats = new PluginStats("otlp", "producer.OTLP");
        lastStats = stats;
        p.start(new ProducerContext() {
            @Override
            public long firstGeneratedNanos() {
                return 0;
            }

            @Override
            public Log log() {
                return log;
            }

            @Override
            public PluginStats stats() {
                return stats;
            }
        });
        return p;
    }

    /** A started pipeline from YAML (core plugins, producer.OTLP, test.Collect). */
    static Pipeline start(String yaml, Log log) throws Exception {
        PluginRegistry r = registry();
        Pipeline p = new Pipeline(new ConfigLoader(r, Map.of()).loadString(yaml, "test.yaml"), r, log);
        p.start();
        return p;
    }

    static ProducerRunner runner(Pipeline p, String id) {
        for (ProducerRunner r : p.producers()) {
            if (r.producer().config().id().equals(id)) {
                return r;
            }
        }
        throw new AssertionError("no producer " + id);
    }

    /** Polls until the condition holds; fails after the deadline. */
    static void await(String what, long timeoutMillis, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeoutMillis + " ms waiting for " + what);
            }
            Thread.sleep(2);
        }
    }

    static Log quietLog() {
        return new Log(new PrintStream(java.io.OutputStream.nullOutputStream()), Log.ERROR);
    }
}
