package io.sluice.core.testing;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerRunner;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;

/**
 * The one pipeline test harness, shared through core's test-jar: builds a pipeline from YAML text or from settings
 * maps with the module's plugins plus {@link HarnessPlugins} (and any the test adds), starts it, finds its plugins
 * and counters, waits on conditions by polling against a deadline (never a fixed sleep), and stops it on close.
 *
 * <pre>{@code
 * try (PipelineHarness h = PipelineHarness.builder().yaml("In: ...\nOut:\n  Type: test.Collect\n").start()) {
 *     List<Captured> got = h.awaitCaptured("Out", 100, 10_000);
 * }
 * }</pre>
 */
public final class PipelineHarness implements AutoCloseable {
    /** How long {@link #run} and {@link #awaitEnd()} wait for a pipeline to end by itself. */
    public static final long DEFAULT_END_MILLIS = 30_000;

    /** How long {@link #await(String, BooleanSupplier)} waits unless {@link Builder#awaitMillis} says otherwise. */
    public static final long AWAIT_MILLIS = 20_000;

    private final Pipeline pipeline;
    private final PluginRegistry registry;
    private final MemoryLog memoryLog;
    private final long awaitMillis;

    private PipelineHarness(Pipeline pipeline, PluginRegistry registry, MemoryLog memoryLog, long awaitMillis) {
        this.pipeline = pipeline;
        this.registry = registry;
        this.memoryLog = memoryLog;
        this.awaitMillis = awaitMillis;
    }

    /** A builder: the default registry plus {@link HarnessPlugins}, a quiet log, the heap-share memory budget. */
    public static Builder builder() {
        return new Builder();
    }

    /** A pipeline built (not started) from YAML with the default settings of {@link #builder()}. */
    public static PipelineHarness of(String yaml) {
        return builder().yaml(yaml).build();
    }

    /** A {@link Pipeline} built (not started) from YAML, for tests that drive the pipeline themselves. */
    public static Pipeline pipeline(String yaml) {
        return of(yaml).pipeline();
    }

    /** Builds, starts and waits (up to {@link #DEFAULT_END_MILLIS}) for a pipeline that ends by itself. */
    public static PipelineHarness run(String yaml) throws Exception {
        return builder().yaml(yaml).run();
    }

    /** Starts the pipeline: consumers' listeners are open when this returns. */
    public PipelineHarness start() throws Exception {
        pipeline.start();
        return this;
    }

    /** Reloads the running pipeline with the config in {@code yaml}, read with the same registry. */
    public io.sluice.core.pipeline.ReloadResult reload(String yaml) {
        return pipeline.reload(() -> new ConfigLoader(registry, Map.of()).loadString(yaml, "reload.yaml"));
    }

    /** The pipeline under test. */
    public Pipeline pipeline() {
        return pipeline;
    }

    /** Waits up to {@link #DEFAULT_END_MILLIS} for the pipeline to end by itself; fails if it does not. */
    public PipelineHarness awaitEnd() throws InterruptedException {
        return awaitEnd(DEFAULT_END_MILLIS);
    }

    /** Waits up to {@code millis} for the pipeline to end by itself; fails if it does not. */
    public PipelineHarness awaitEnd(long millis) throws InterruptedException {
        if (!pipeline.awaitTermination(millis, TimeUnit.MILLISECONDS)) {
            throw new AssertionError("pipeline did not end within " + millis + " ms");
        }
        return this;
    }

    /** Waits until the pipeline reports ready (consumers listening, producers connected). */
    public void awaitReady(long millis) throws InterruptedException {
        await("pipeline ready", millis, pipeline::isReady);
    }

    /** Graceful stop, as {@link Pipeline#stop()}; idempotent. */
    @Override
    public void close() {
        pipeline.stop();
    }

    /** The producer instance of plugin {@code id}. */
    @SuppressWarnings("unchecked")
    public <T extends Producer> T producer(String id) {
        return (T) runner(id).producer();
    }

    /** The runner (queue, counters) of producer {@code id}. */
    public ProducerRunner runner(String id) {
        return runner(pipeline, id);
    }

    /** The capturing producer {@code id} (type test.Collect). */
    public HarnessPlugins.Collect collect(String id) {
        return producer(id);
    }

    /** The counters of plugin {@code id}, consumer or producer. */
    public PluginStats stats(String id) {
        for (PluginStats s : pipeline.stats()) {
            if (s.id().equals(id)) {
                return s;
            }
        }
        throw new AssertionError("no plugin " + id);
    }

    /** The value of the plugin's own counter {@code name} (see {@link PluginStats#counter}), 0 if not registered. */
    public long counter(String id, String name) {
        for (PluginStats.Counter c : stats(id).counters()) {
            if (c.name().equals(name)) {
                return c.value().get();
            }
        }
        return 0;
    }

    /** Messages delivered by producer {@code id}, as its counters say (any producer type). */
    public long delivered(String id) {
        return runner(id).stats().out();
    }

    /** Waits until capturing producer {@code id} holds at least {@code n} messages; returns what it holds then. */
    public List<Captured> awaitCaptured(String id, int n, long millis) throws InterruptedException {
        HarnessPlugins.Collect c = collect(id);
        await(n + " messages at " + id + " (has " + c.events.size() + ")", millis, () -> c.events.size() >= n);
        return new ArrayList<>(c.events);
    }

    /** A copy of what capturing producer {@code id} holds now. */
    public List<Captured> captured(String id) {
        return new ArrayList<>(collect(id).events);
    }

    /** A copy of the payloads capturing producer {@code id} holds now, in delivery order. */
    public List<String> payloads(String id) {
        return new ArrayList<>(collect(id).payloads);
    }

    /** What the pipeline logged, if it was built with {@link Builder#log(MemoryLog)}; fails otherwise. */
    public String logText() {
        if (memoryLog == null) {
            throw new AssertionError("the harness was not built with a MemoryLog");
        }
        return memoryLog.text();
    }

    /**
     * As {@link #await(String, long, BooleanSupplier)} for up to {@link #AWAIT_MILLIS} (or {@link Builder#awaitMillis}),
     * with what the pipeline logged in the failure when it logs into a {@link MemoryLog}.
     */
    public void await(String what, BooleanSupplier condition) {
        try {
            await(what, awaitMillis, condition);
        } catch (AssertionError e) {
            throw memoryLog == null ? e : new AssertionError(e.getMessage() + "\nlog:\n" + memoryLog.text(), e);
        }
    }

    /** The runner of producer {@code id} of any pipeline. */
    public static ProducerRunner runner(Pipeline p, String id) {
        for (ProducerRunner r : p.producers()) {
            if (r.producer().config().id().equals(id)) {
                return r;
            }
        }
        throw new AssertionError("no producer " + id);
    }

    /** The producer instance {@code id} of any pipeline. */
    @SuppressWarnings("unchecked")
    public static <T extends Producer> T producer(Pipeline p, String id) {
        return (T) runner(p, id).producer();
    }

    /** Polls until the condition holds (every millisecond or so); fails naming {@code what} after the deadline. */
    public static void await(String what, long timeoutMillis, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeoutMillis + " ms waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** A log that keeps quiet (errors only, discarded), so test output stays readable. */
    public static Log quietLog() {
        return new Log(new PrintStream(OutputStream.nullOutputStream()), Log.ERROR);
    }

    /** A log of warnings and errors on stderr, which surefire keeps with the test's report. */
    public static Log stderrLog() {
        return new Log(System.err, Log.WARNING);
    }

    /** A port free right now on the loopback address. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A log kept in memory at DEBUG, so tests can check what an operator would read. */
    public static final class MemoryLog {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        /** The log to hand to the pipeline. */
        public final Log log = new Log(new PrintStream(bytes, true, StandardCharsets.UTF_8), Log.DEBUG);

        /** Everything logged so far. */
        public synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    /** What the pipeline is built from; each setter returns the builder. */
    public static final class Builder {
        private final List<PluginSpec> extra = new ArrayList<>(HarnessPlugins.specs());
        private final Map<String, Map<String, Object>> plugins = new LinkedHashMap<>();
        private String yaml;
        private Log log = quietLog();
        private MemoryLog memoryLog;
        private long awaitMillis = AWAIT_MILLIS;
        private MemoryBudget memory = MemoryBudget.ofHeapShare();

        private Builder() {
        }

        /** The pipeline's YAML text (plugins given with {@link #plugin} come after it). */
        public Builder yaml(String text) {
            this.yaml = text;
            return this;
        }

        /**
         * Adds plugin {@code id} of {@code type} with raw YAML-like settings, validated like a file's. Values YAML
         * has no type for (a {@link java.nio.file.Path}, say) are given as their text, as a file would have them.
         */
        public Builder plugin(String id, String type, Map<String, Object> settings) {
            Map<String, Object> plugin = new LinkedHashMap<>();
            plugin.put("Type", type);
            settings.forEach((k, v) -> plugin.put(k, yamlValue(v)));
            plugins.put(id, plugin);
            return this;
        }

        private static Object yamlValue(Object v) {
            if (v instanceof Map<?, ?> m) {
                Map<Object, Object> out = new LinkedHashMap<>();
                m.forEach((k, x) -> out.put(k, yamlValue(x)));
                return out;
            }
            if (v instanceof Collection<?> c) {
                List<Object> out = new ArrayList<>();
                c.forEach(x -> out.add(yamlValue(x)));
                return out;
            }
            return v == null || v instanceof String || v instanceof Number || v instanceof Boolean ? v : v.toString();
        }

        /**
         * Registers test plugins of the module's own besides the default registry and {@link HarnessPlugins}; their
         * type names must differ from those (test.Numbers, test.Collect, test.Count, test.Gate, test.DropOdd).
         */
        public Builder plugins(Collection<PluginSpec> specs) {
            extra.addAll(specs);
            return this;
        }

        /** As {@link #plugins(Collection)}. */
        public Builder plugins(PluginSpec... specs) {
            return plugins(List.of(specs));
        }

        /** The pipeline's log (default {@link #quietLog()}). */
        public Builder log(Log log) {
            this.log = log;
            this.memoryLog = null;
            return this;
        }

        /** Logs into {@code log}, which {@link PipelineHarness#logText()} reads and failed awaits show. */
        public Builder log(MemoryLog log) {
            this.log = log.log;
            this.memoryLog = log;
            return this;
        }

        /** How long {@link PipelineHarness#await(String, BooleanSupplier)} waits (default {@link #AWAIT_MILLIS}). */
        public Builder awaitMillis(long millis) {
            this.awaitMillis = millis;
            return this;
        }

        /** The budget the inputs reserve from (default: a share of the heap, as the pipeline's own). */
        public Builder memory(MemoryBudget memory) {
            this.memory = memory;
            return this;
        }

        /** The registry the pipeline is built with: the default one plus the test plugins. */
        public PluginRegistry registry() {
            List<PluginSpec> all = new ArrayList<>(PluginRegistry.defaultRegistry().all());
            all.addAll(extra);
            return new PluginRegistry(all);
        }

        /** The plugin configs, validated, for tests that drive one plugin themselves. */
        public List<PluginConfig> configs() {
            return configs(registry());
        }

        private List<PluginConfig> configs(PluginRegistry registry) {
            // Settings maps go through YAML as well, so nested modulators resolve in the same registry.
            StringBuilder text = new StringBuilder(yaml == null ? "" : yaml);
            if (!plugins.isEmpty()) {
                if (text.length() > 0 && text.charAt(text.length() - 1) != '\n') {
                    text.append('\n');
                }
                text.append(new Dump(DumpSettings.builder().build()).dumpToString(plugins));
            }
            return new ConfigLoader(registry, Map.of()).loadString(text.toString(), "test.yaml");
        }

        /** The pipeline, built and not started. */
        public PipelineHarness build() {
            PluginRegistry registry = registry();
            return new PipelineHarness(new Pipeline(configs(registry), registry, log, memory), registry, memoryLog,
                    awaitMillis);
        }

        /** The pipeline, built and started. */
        public PipelineHarness start() throws Exception {
            return build().start();
        }

        /** Builds, starts and waits for a pipeline that ends by itself (up to {@link #DEFAULT_END_MILLIS}). */
        public PipelineHarness run() throws Exception {
            return start().awaitEnd();
        }
    }
}
