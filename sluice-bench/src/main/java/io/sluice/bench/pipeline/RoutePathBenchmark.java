package io.sluice.bench.pipeline;

import io.sluice.bench.BenchDefaults;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Pipeline;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The route + queue + producer path of a running pipeline, per message: a batch of 512 messages (each with its
 * own copy of a 256-byte payload, as the raw profile) is published, routed to its stream, queued, taken by the
 * producer's worker thread, delivered to producer.Benchmark and returned to the pool. {@code -prof gc} counts
 * the allocations of every thread, so the figure covers the whole path.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx256m"})
public class RoutePathBenchmark extends BenchDefaults {
    /** How the stream fans out: one producer, or broadcast to two. */
    @Param({"1", "2"})
    public int producers;

    private Pipeline pipeline;
    private ConsumerContext ctx;
    private final byte[] payload = "x".repeat(256).getBytes(StandardCharsets.UTF_8);

    /** A consumer driven by the benchmark thread: it hands its context out and waits for shutdown. */
    public static final class Driven extends Consumer {
        static final CompletableFuture<ConsumerContext> CONTEXT = new CompletableFuture<>();
        static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "bench.Driven", "driven by JMH")
                .factory(Driven::new);

        Driven(io.sluice.core.config.PluginConfig c) {
            super(c);
        }

        @Override
        public void consume(ConsumerContext context) throws InterruptedException {
            CONTEXT.complete(context);
            while (context.isActive()) {
                Thread.sleep(50);
            }
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        List<PluginSpec> specs = new ArrayList<>(PluginRegistry.defaultRegistry().all());
        specs.add(Driven.SPEC);
        PluginRegistry registry = new PluginRegistry(specs);
        StringBuilder yaml = new StringBuilder("In:\n  Type: bench.Driven\n  Streams: s\n");
        for (int i = 0; i < producers; i++) {
            yaml.append("Out").append(i).append(":\n  Type: producer.Benchmark\n  Streams: s\n");
        }
        pipeline = new Pipeline(new ConfigLoader(registry, Map.of()).loadString(yaml.toString(), "bench.yaml"), registry,
                quiet());
        pipeline.start();
        ctx = Driven.CONTEXT.get(10, TimeUnit.SECONDS);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pipeline.stop();
    }

    /** One batch of 512 messages through the whole path; the score is per message. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void publishBatch() throws InterruptedException {
        Batch b = ctx.newBatch();
        for (int i = 0; i < BATCH; i++) {
            b.add().setPayload(payload, 0, payload.length);
        }
        ctx.publish(b);
    }
}
