package io.sluice.bench.io;

import io.sluice.bench.BenchDefaults;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.io.file.FileProducer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * producer.File: delivering batches of profile_json-shaped lines (~330 B, the Gollum profile's message) to a
 * plain {@code .ndjson} and a {@code .ndjson.gz} file: each deliver escapes, compresses and writes its lines before
 * it returns, so the rate is what reaches the disk. Multiply msg/s by
 * {@code inputBytesPerMessage} for MB/s of input (bar: ≥ 400 MB/s plain, ≥ 150 MB/s into .gz).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx512m"})
public class FileProducerBenchmark extends BenchDefaults {
    /** Output name: plain NDJSON or gzip. */
    @Param({"ndjson", "ndjson.gz"})
    public String ext;

    private Path dir;
    private FileProducer producer;
    private Batch batch;
    private int lineBytes;

    /** Bytes of input per message, reported next to the rate. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Bytes {
        public long inputBytes;
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("sluice-bench-file");
        PluginConfig c = PluginConfig.of("out", "producer.File", Map.of("File", dir.resolve("out." + ext).toString()));
        producer = new FileProducer(c);
        producer.start(producerContext(quiet(), new PluginStats("out", "producer.File")));
        // Ten templates of random text, as consumer.Profiler makes them for profile_json.
        Random r = new Random(42);
        String[] templates = new String[10];
        for (int t = 0; t < templates.length; t++) {
            templates[t] = profileJson(r);
        }
        batch = new BatchPool(BATCH).acquire();
        for (int i = 0; i < BATCH; i++) {
            byte[] line = templates[r.nextInt(templates.length)].getBytes(StandardCharsets.UTF_8);
            batch.add().setPayload(line);
            lineBytes += line.length + 1;
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void deliver(Bytes bytes) throws Exception {
        producer.deliver(batch);
        bytes.inputBytes += lineBytes;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        producer.close();
        deleteTree(dir);
    }
}
