package io.sluice.bench.buffer;

import io.sluice.bench.BenchDefaults;
import io.sluice.core.buffer.DiskBuffer;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginStats;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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
 * A disk buffer appending and replaying 250-byte events: each operation writes a batch of 512 (checksummed,
 * under the fsync policy) and reads it back for delivery, so the score is the cost per event of both.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx256m"})
public class DiskBufferBenchmark extends BenchDefaults {
    @Param({"interval", "never"})
    public String fsync;

    private Path dir;
    private DiskBuffer buffer;
    private BatchPool pool;
    private final byte[] payload = "e".repeat(250).getBytes(StandardCharsets.UTF_8);
    private final int stream = Streams.id("bench");

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("sluice-disk-bench");
        pool = new BatchPool(BATCH);
        Pipeline p = new Pipeline(new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of()).loadString(
                "S:\n  Type: consumer.Profiler\n  Streams: s\nN:\n  Type: producer.Null\n  Streams: s\n", "b.yaml"),
                PluginRegistry.defaultRegistry(), quiet());
        PluginStats stats = p.producers().get(0).stats();
        buffer = new DiskBuffer(dir, 1L << 30, 64L << 20, DiskBuffer.WhenFull.BLOCK,
                DiskBuffer.Fsync.valueOf(fsync.toUpperCase()), 1000, pool, stats, quiet(), "bench");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        buffer.shutdown();
        deleteTree(dir);
    }

    /** Append 512 events, then replay and acknowledge them. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int appendAndReplay() throws InterruptedException {
        Batch b = pool.acquire();
        for (int i = 0; i < BATCH; i++) {
            b.add().setPayload(payload, 0, payload.length);
            b.get(i).setStream(stream);
        }
        buffer.put(b, 0);
        int n = 0;
        while (n < BATCH) {
            Batch r = buffer.poll(1, TimeUnit.SECONDS);
            n += r.size();
            buffer.delivered(r);
            r.release();
        }
        return n;
    }
}
