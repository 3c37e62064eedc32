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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real sluice process writing NDJSON to a {@code .gz} file is stopped with SIGTERM mid-stream: the file must be a
 * complete gzip stream ({@code gzip -t}) holding exactly the lines the process reports as delivered, even when the
 * signal arrives twice at once.
 */
class GzipFileSigtermTest {
    @Test
    void sigtermLeavesACompleteGzipFileWithEveryDeliveredLine(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("events.ndjson.gz");
        Path conf = Files.writeString(dir.resolve("gz.yaml"), "Gen:\n  Type: consumer.Profiler\n  Runs: 100000000\n"
                + "  KeepRunning: true\n  Message: \"{\\\"n\\\":\\\"%40s\\\"}\"\n  Streams: s\n"
                + "Out:\n  Type: producer.File\n  Streams: s\n  File: " + out + "\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "-c", conf.toString(), "--no-stats", "--no-admin").redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        List<String> err = new CopyOnWriteArrayList<>();
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
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.exists(out) || Files.size(out) < 64 * 1024) {
                assertThat(System.nanoTime()).as("file growing; stderr " + err).isLessThan(deadline);
                assertThat(p.isAlive()).as("running; stderr " + err).isTrue();
                Thread.sleep(20);
            }
            p.toHandle().destroy(); // SIGTERM
            // Delivered twice, as GNU timeout does (to the process, then to its group): still one graceful stop.
            p.toHandle().destroy();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            reader.join(5000);
            assertThat(p.exitValue()).as("graceful exit; stderr " + err).isZero();
        } finally {
            p.destroyForcibly();
        }
        Process gzip = new ProcessBuilder("gzip", "-t", out.toString()).redirectErrorStream(true).start();
        String gzipSays = new String(gzip.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(gzip.waitFor()).as("gzip -t: " + gzipSays).isZero();
        long lines = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(out)), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                assertThat(line).matches("\\{\"n\":\".{40}\"}");
                lines++;
            }
        }
        Matcher m = Pattern.compile("Out\\s+producer.File\\s+in [\\d,]+\\s+out ([\\d,]+)").matcher(String.join("\n", err));
        assertThat(m.find()).as("summary in stderr " + err).isTrue();
        assertThat(lines).isPositive().isEqualTo(Long.parseLong(m.group(1).replace(",", "")));
    }
}
