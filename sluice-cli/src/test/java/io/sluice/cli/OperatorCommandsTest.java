package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * top, tap and graph driven against a real running sluice process (non-terminal mode), output asserted. The process
 * requires an admin token (from a file), which also turns /api/tap on; top and tap send it.
 */
class OperatorCommandsTest {
    private static final String CONFIG = "Gen:\n  Type: consumer.Profiler\n  Runs: 100000000\n  KeepRunning: true\n"
            + "  Message: \"event %6s\"\n  Streams: s\n  Modulators: [format.Envelope]\n"
            + "Slow:\n  Type: consumer.Profiler\n  Runs: 1000\n  KeepRunning: true\n  DelayMs: 100\n  Streams: other\n"
            + "Rr:\n  Type: router.RoundRobin\n  Stream: s\n"
            + "Out:\n  Type: producer.Null\n  Streams: s\n"
            + "All:\n  Type: producer.Benchmark\n  Streams: \"*\"\n";
    private static Process process;
    private static int port;
    private static Path tokenFile;
    private static final List<String> err = new CopyOnWriteArrayList<>();

    @TempDir
    static Path dir;

    @BeforeAll
    static void startSluice() throws Exception {
        Path conf = Files.writeString(dir.resolve("ops.yaml"), CONFIG);
        tokenFile = Files.writeString(dir.resolve("admin.token"), "ops-token-123\n");
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        process = new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "-c", conf.toString(), "--admin", "127.0.0.1:" + port, "--admin-token-file", tokenFile.toString(), "--no-stats").redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    err.add(line);
                }
            } catch (java.io.IOException ignored) {
                // ended
            }
        });
        t.setDaemon(true);
        t.start();
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready")).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode() == 200) {
                    break;
                }
            } catch (java.io.IOException notYet) {
                // not listening yet
            }
            assertThat(System.nanoTime()).as("admin endpoint up; stderr " + err).isLessThan(deadline);
            assertThat(process.isAlive()).as("sluice running; stderr " + err).isTrue();
            Thread.sleep(20);
        }
    }

    @AfterAll
    static void stopSluice() throws Exception {
        process.toHandle().destroy();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("graceful exit; stderr " + err).isZero();
    }

    private String run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int code = Main.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(errBytes, true, StandardCharsets.UTF_8));
        assertThat(code).as(String.join(" ", args) + ": " + errBytes.toString(StandardCharsets.UTF_8)).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void topPrintsOneRowPerPluginWithRates() {
        String text = run("top", "--url", "http://127.0.0.1:" + port, "-n", "2", "--interval", "300",
                "--admin-token-file", tokenFile.toString());
        List<String> blocks = List.of(text.split("(?m)^(?=sluice top)"));
        assertThat(blocks).hasSize(2);
        String second = blocks.get(1);
        assertThat(second).doesNotContain("\033[");
        Matcher gen = Pattern.compile("(?m)^Gen\\s+consumer.Profiler\\s+(\\S+)\\s+(\\S+)\\s+-\\s+0\\s+0\\s+yes$").matcher(second);
        assertThat(gen.find()).as(second).isTrue();
        assertThat(gen.group(1)).as("Gen generates at a visible rate").matches("[\\d.]+[kM]");
        assertThat(second).containsPattern("(?m)^Out\\s+producer.Null\\s+\\S+\\s+\\S+\\s+\\d+%\\s+0\\s+0\\s+yes$");
        assertThat(second).containsPattern("(?m)^All\\s+producer.Benchmark\\s+");
    }

    @Test
    void tapPrintsSampledMessagesOfAPlugin() {
        String text = run("tap", "Out", "--limit", "4", "--url", "http://127.0.0.1:" + port, "--admin-token", "ops-token-123");
        List<String> lines = text.lines().collect(Collectors.toList());
        assertThat(lines).hasSize(4).allMatch(l -> l.matches("\\{\"stream\":\"s\",\"timestamp\":\\d+,\"payload\":\"event .{6}\\\\n\"}"));
    }

    @Test
    void withoutTheTokenTapAndTopAreRefusedAndHealthStaysOpen() throws Exception {
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int code = Main.execute(new String[] {"tap", "Out", "--url", "http://127.0.0.1:" + port, "--admin-token", "wrong"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(errBytes, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(1);
        assertThat(errBytes.toString(StandardCharsets.UTF_8)).contains("answered 401");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        code = Main.execute(new String[] {"top", "--url", "http://127.0.0.1:" + port, "-n", "1"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("answered 401");
        HttpClient http = HttpClient.newHttpClient();
        assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
        assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }

    @Test
    void graphAsDotAndMermaidParsesBackToTheConfig() throws Exception {
        Path conf = Files.writeString(dir.resolve("g.yaml"), CONFIG
                + "Dropped:\n  Type: producer.Null\n  Streams: _DROPPED_\n");
        String dot = run("graph", conf.toString());
        Set<String> edges = new HashSet<>();
        Matcher m = Pattern.compile("\"([^\"]+)\" -> \"([^\"]+)\"").matcher(dot);
        while (m.find()) {
            edges.add(m.group(1) + " -> " + m.group(2));
        }
        assertThat(edges).contains("Gen -> stream:s", "Slow -> stream:other", "stream:s -> Rr", "stream:s -> Out",
                "stream:s -> All", "stream:other -> All", "Gen -> stream:_DROPPED_", "stream:_DROPPED_ -> Dropped");
        assertThat(edges).doesNotContain("stream:_DROPPED_ -> All");
        assertThat(dot).startsWith("digraph sluice {").contains("Gen\\nconsumer.Profiler\\n+ format.Envelope");
        String mermaid = run("graph", "--format", "mermaid", conf.toString());
        assertThat(mermaid).startsWith("flowchart LR").contains("n_Gen --> n_stream_3a_s").contains("n_Gen -. fallback .-> n_stream_3a__5f_DROPPED_5f_");
    }
}
