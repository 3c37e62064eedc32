package io.sluice.bench;

import io.sluice.core.message.BatchPool;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.ProducerContext;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.random.RandomGenerator;
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
        return producerContext(new Log(System.err, Log.ERROR), null);
    }

    /** A producer's context with this log and these counters (null: none). */
    public static ProducerContext producerContext(Log log, PluginStats stats) {
        return ProducerContext.of(log, stats, () -> 0);
    }

    /** {@code n} characters of {@code chars} drawn by {@code r}. */
    public static String randomText(RandomGenerator r, String chars, int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append(chars.charAt(r.nextInt(chars.length())));
        }
        return b.toString();
    }

    /** A message of Gollum's JSON profiles (profile_json): four fields of random text from its character set. */
    public static String profileJson(RandomGenerator r) {
        String chars = "abcdefghijklmnopqrstuvwxyz .,!;:-_";
        return "{\"test\":\"" + randomText(r, chars, 64) + "\",\"foo\":\"" + randomText(r, chars, 32) + "|"
                + randomText(r, chars, 32) + "\",\"bar\":\"" + randomText(r, chars, 64)
                + "\",\"thisisquitealongstring\":\"" + randomText(r, chars, 64) + "\"}";
    }

    /** Deletes a benchmark's temporary directory and everything in it, best effort (what cannot go, stays). */
    public static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    /** One op of a tool timed with {@link #cpuNanos}. */
    public interface Op {
        void run() throws Exception;
    }

    /**
     * Times {@code op} in this thread's CPU time, which a busy neighbour on a shared machine does not stretch as it
     * does wall time: {@code warmup} ops, then {@code rounds} rounds of {@code ops} ops; returns the nanoseconds per
     * op of each round, sorted (the median in the middle).
     */
    public static double[] cpuNanos(int warmup, int rounds, int ops, Op op) throws Exception {
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < warmup; i++) {
            op.run();
        }
        double[] ns = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long start = cpu.getCurrentThreadCpuTime();
            for (int i = 0; i < ops; i++) {
                op.run();
            }
            ns[r] = (double) (cpu.getCurrentThreadCpuTime() - start) / ops;
        }
        Arrays.sort(ns);
        return ns;
    }
}
