package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code sluice} with no arguments, as a real process: events flow (stats line on stderr, sample events on
 * stdout), and SIGTERM stops it gracefully with a summary and exit code 0.
 */
class QuickstartProcessTest {
    @Test
    void defaultPipelineShowsEventsAndStopsCleanlyOnSigterm() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"), Main.class.getName())
                .start();
        List<String> out = new CopyOnWriteArrayList<>();
        List<String> err = new CopyOnWriteArrayList<>();
        Thread outReader = drain(p.getInputStream(), out);
        Thread errReader = drain(p.getErrorStream(), err);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(err.stream().anyMatch(l -> l.startsWith("[stats]")) && !out.isEmpty())) {
                assertThat(System.nanoTime()).as("stats line and a sample event within 30 s; stderr: " + err).isLessThan(deadline);
                assertThat(p.isAlive()).as("still running; stderr: " + err).isTrue();
                Thread.sleep(20);
            }
            p.toHandle().destroy(); // SIGTERM; Process.destroy() would also close our end of its pipes
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("stopped within 30 s").isTrue();
            outReader.join(5000);
            errReader.join(5000);
            assertThat(p.exitValue()).as("exit code; stderr: " + err).isZero();
            assertThat(out.get(0)).matches("\\d{4}-\\d\\d-\\d\\dT.* \\{\"level\":\"info\",\"service\":\"demo\",\"msg\":\".{24}\"}");
            assertThat(String.join("\n", err)).as("stdout: " + out).contains("stop requested").contains("summary after")
                    .containsPattern("Counter\\s+producer.Benchmark\\s+in [\\d,]+\\s+out [\\d,]+");
            // Delivered equals generated: the drain lost nothing.
            String summary = String.join("\n", err);
            assertThat(number(summary, "Load\\s+consumer.Profiler\\s+in ([\\d,]+)"))
                    .isEqualTo(number(summary, "Counter\\s+producer.Benchmark\\s+in [\\d,]+\\s+out ([\\d,]+)"));
        } finally {
            p.destroyForcibly();
        }
    }

    private static long number(String text, String regex) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(regex).matcher(text);
        assertThat(m.find()).as(regex).isTrue();
        return Long.parseLong(m.group(1).replace(",", ""));
    }

    private static Thread drain(java.io.InputStream in, List<String> lines) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (java.io.IOException ignored) {
                // The process ended.
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }
}
