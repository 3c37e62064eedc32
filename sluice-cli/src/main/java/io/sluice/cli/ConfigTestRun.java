package io.sluice.cli;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.config.Suggest;
import io.sluice.core.message.Batch;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.ProducerRunner;
import io.sluice.core.pipeline.StreamWatch;
import io.sluice.core.testing.CaptureProducer;
import io.sluice.core.testing.Captured;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs one {@code sluice test} case on the real pipeline (routers, modulators, queues, fallback streams) built from
 * a validated config, with stand-ins at its edges only: every consumer is an {@link InjectConsumer} that opens
 * nothing, every producer a {@link CaptureProducer} that sends nothing. The stand-ins keep the plugins' settings
 * but two: {@code ModulatorRoutines} (one thread, so messages keep their order) and {@code Buffer/Type} (memory,
 * so no disk buffer is written).
 */
final class ConfigTestRun {
    /** How long a case may take to drain through the pipeline. */
    static final long END_MILLIS = 30_000;
    private static final List<Param<?>> RESET = List.of(PluginSpec.MODULATOR_ROUTINES, PluginSpec.BUFFER_TYPE);

    private final List<PluginConfig> configs;

    /** Cases on the pipeline of {@code configs}, already validated as {@code sluice run} validates them. */
    ConfigTestRun(List<PluginConfig> configs) {
        this.configs = configs;
    }

    /**
     * What came out of a case.
     *
     * @param arrived what reached each target an expectation names ({@link TestExpectation#target()}), in order
     * @param problem why the pipeline did not run the case through (a plugin failed, it did not end), or null
     * @param log the pipeline's warnings and errors while it ran
     */
    record Outcome(Map<String, List<Captured>> arrived, String problem, String log) {
    }

    /** Runs the case; names that are not in the config (a consumer, a producer) are a {@link ConfigException}. */
    Outcome run(ConfigTestCase c) throws Exception {
        Map<String, List<TestInput.Message>> byConsumer = new LinkedHashMap<>();
        List<PluginConfig> all = new ArrayList<>();
        for (TestInput in : c.inputs()) {
            if (in.consumer() != null) {
                check(c, "consumer", in.consumer(), PluginKind.CONSUMER);
                byConsumer.computeIfAbsent(in.consumer(), k -> new ArrayList<>()).addAll(in.messages());
            } else {
                String id = "input" + all.size() + "(" + in.stream() + ")";
                all.add(PluginConfig.of(id, InjectConsumer.spec(in.messages()), Map.of("Streams", in.stream())));
            }
        }
        c.expectations().stream().filter(e -> e.producer() != null)
                .forEach(e -> check(c, "producer", e.producer(), PluginKind.PRODUCER));
        configs.forEach(p -> all.add(standIn(p, byConsumer.getOrDefault(p.id(), List.of()))));
        ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
        Log log = new Log(new PrintStream(logBytes, true, StandardCharsets.UTF_8), Log.WARNING);
        Pipeline pipeline = new Pipeline(all, PluginRegistry.defaultRegistry(), log, MemoryBudget.ofHeapShare());
        Map<Integer, ConcurrentLinkedQueue<Captured>> streams = watchStreams(pipeline, c);
        String problem = runToEnd(pipeline);
        Map<String, List<Captured>> arrived = new LinkedHashMap<>();
        streams.forEach((id, got) -> arrived.put("stream " + Streams.name(id), List.copyOf(got)));
        for (ProducerRunner r : pipeline.producers()) {
            if (r.producer() instanceof CaptureProducer capture) {
                arrived.put("producer " + capture.config().id(), List.copyOf(capture.events));
            }
        }
        return new Outcome(arrived, problem, logBytes.toString(StandardCharsets.UTF_8));
    }

    /** The plugin with the case's stand-in in place of a consumer or producer; routers and the rest as they are. */
    private static PluginConfig standIn(PluginConfig p, List<TestInput.Message> messages) {
        PluginKind kind = p.spec().kind();
        if (kind == PluginKind.CONSUMER) {
            return p.substitute(p.spec().withFactory(x -> new InjectConsumer(x, messages)), RESET);
        }
        if (kind == PluginKind.PRODUCER) {
            return p.substitute(p.spec().withFactory(CaptureProducer::new), RESET);
        }
        return p;
    }

    /** Copies what reaches each stream an expectation names. */
    private static Map<Integer, ConcurrentLinkedQueue<Captured>> watchStreams(Pipeline pipeline, ConfigTestCase c) {
        Map<Integer, ConcurrentLinkedQueue<Captured>> streams = new ConcurrentHashMap<>();
        c.expectations().stream().filter(e -> e.stream() != null)
                .forEach(e -> streams.put(Streams.id(e.stream()), new ConcurrentLinkedQueue<>()));
        if (!streams.isEmpty()) {
            StreamWatch.install(pipeline, (stream, batch) -> copy(streams.get(stream), batch));
        }
        return streams;
    }

    private static void copy(ConcurrentLinkedQueue<Captured> to, Batch batch) {
        if (to != null) {
            for (int i = 0; i < batch.size(); i++) {
                to.add(Captured.of(batch.get(i)));
            }
        }
    }

    /** Starts the pipeline and waits for it to end by itself once the inputs are spent; null when it did. */
    private static String runToEnd(Pipeline pipeline) throws Exception {
        pipeline.start();
        if (!pipeline.awaitTermination(END_MILLIS, TimeUnit.MILLISECONDS)) {
            pipeline.stop();
            return "the pipeline did not drain within " + END_MILLIS / 1000 + " s";
        }
        return pipeline.failure();
    }

    private void check(ConfigTestCase c, String what, String id, PluginKind kind) {
        List<String> ids = configs.stream().filter(p -> p.spec().kind() == kind && p.get(PluginSpec.ENABLE))
                .map(PluginConfig::id).toList();
        if (!ids.contains(id)) {
            throw new ConfigException("test '" + c.name() + "': no enabled " + what + " '" + id + "' in the config"
                    + Suggest.didYouMean(id, ids) + "; " + what + "s: " + String.join(", ", ids));
        }
    }
}
