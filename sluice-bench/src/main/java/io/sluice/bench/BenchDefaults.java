package io.sluice.bench;

import io.sluice.core.message.BatchPool;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.ProducerContext;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The run settings most benchmarks here share, taken by extending this class (JMH reads its annotations from a
 * benchmark's superclasses, the benchmark's own winning): average time per op, 3 warm-up and 5 measured iterations
 * of 2 s, one fork. A benchmark adds its time unit and state scope, and says what it does differently. Also the
 * small fixtures several benchmarks need.
 */
@BenchmarkMode(Mode.AverageTime)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public abstract class BenchDefaults {
    /** Messages per op of the benchmarks that deliver batches: one full batch, as the pipeline makes them. */
    public static final int BATCH = BatchPool.DEFAULT_BATCH_SIZE;

    /** A log that writes nothing: for a pipeline or buffer whose messages are not what is measured. */
    public static Log quiet() {
        return new Log(new PrintStream(OutputStream.nullOutputStream()), Log.ERROR);
    }

    /** What a producer benchmark starts its producer with: errors to stderr, no counters (none are read). */
    public static ProducerContext producerContext() {
        Log log = new Log(System.err, Log.ERROR);
        return new ProducerContext() {
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
                return null;
            }
        };
    }

    /** Deletes a benchmark's temporary directory and everything in it, best effort (what cannot go, stays). */
    public static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
