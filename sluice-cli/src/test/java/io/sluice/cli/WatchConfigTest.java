package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --watch-config} on a real process: a changed file is applied (the output moves to another file), a broken
 * one is refused with an ERROR while the pipeline runs on, and the process still stops cleanly.
 */
@Timeout(120)
class WatchConfigTest {
    private static String config(Path out) {
        return "Gen:\n  Type: consumer.Profiler\n  Runs: 100000000\n  KeepRunning: true\n  DelayMs: 1\n"
                + "  Message: \"{\\\"n\\\":\\\"%20s\\\"}\"\n  Streams: s\n"
                + "Out:\n  Type: producer.File\n  Streams: s\n  File: " + out + "\n";
    }

    private static void await(String what, List<String> err, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what + "; stderr " + err).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static long size(Path p) {
        try {
            return Files.exists(p) ? Files.size(p) : 0;
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    /** {@code sluice -c PATH --watch-config}, its stderr lines collected into {@code err}. */
    private static Process start(Path conf, List<String> err) throws java.io.IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "-c", conf.toString(), "--no-stats", "--no-admin", "--watch-config")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    err.add(line);
                }
            } catch (java.io.IOException ignored) {
                // ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        return p;
    }

    /** issue 21: a watched directory of pieces; a piece added is a plugin started, the others keep running. */
    @Test
    void aPieceAddedToAWatchedDirectoryStartsItsPlugin(@TempDir Path dir) throws Exception {
        Path confD = Files.createDirectories(dir.resolve("conf.d"));
        Path first = dir.resolve("first.ndjson");
        Path more = dir.resolve("more.ndjson");
        Files.writeString(confD.resolve("10-pipeline.yaml"), config(first));
        List<String> err = new CopyOnWriteArrayList<>();
        Process p = start(confD, err);
        try {
            await("the first file growing", err, () -> size(first) > 0);
            Files.writeString(confD.resolve("20-more.yaml"), "More:\n  Type: producer.File\n  Streams: s\n  File: " + more + "\n");
            await("the new piece applied", err, () -> err.stream().anyMatch(l -> l.contains("reloaded: added [More]")
                    && l.contains("2 plugins kept running")));
            await("the new piece's file growing", err, () -> size(more) > 0);
            long firstSize = size(first);
            await("the first file still growing", err, () -> size(first) > firstSize);
            p.toHandle().destroy(); // SIGTERM
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("graceful exit; stderr " + err).isZero();
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aChangedFileIsAppliedAndABrokenOneRefused(@TempDir Path dir) throws Exception {
        Path first = dir.resolve("first.ndjson");
        Path second = dir.resolve("second.ndjson");
        Path conf = Files.writeString(dir.resolve("watched.yaml"), config(first));
        List<String> err = new CopyOnWriteArrayList<>();
        Process p = start(conf, err);
        try {
            await("the first file growing", err, () -> size(first) > 0);
            Files.writeString(conf, config(second));
            await("the reload applied", err, () -> err.stream().anyMatch(l -> l.contains("reloaded: ")
                    && l.contains("replaced [Out]")));
            long firstSize = size(first);
            await("the second file growing", err, () -> size(second) > 0);
            assertThat(size(first)).as("nothing more written to the first file").isEqualTo(firstSize);

            Files.writeString(conf, config(second).replace("producer.File", "producer.Fiel"));
            await("the broken config refused", err, () -> err.stream().anyMatch(l -> l.contains("reload failed")
                    && l.contains("producer.Fiel")));
            long secondSize = size(second);
            await("the second file still growing", err, () -> size(second) > secondSize);
            assertThat(p.isAlive()).isTrue();

            p.toHandle().destroy(); // SIGTERM
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("graceful exit; stderr " + err).isZero();
        } finally {
            p.destroyForcibly();
        }
    }
}
