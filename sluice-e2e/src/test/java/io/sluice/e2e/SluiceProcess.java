package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Sluice process ({@code io.sluice.cli.Main -c CONF --no-stats --admin 127.0.0.1:0}) on this test's class
 * path. Its stderr and stdout are drained into memory and appended to {@code target/e2e-logs/NAME.log} (every
 * start of the same name goes to the same file, so a crash test keeps the whole story). SIGTERM goes through
 * {@code ProcessHandle.destroy()} ({@code Process.destroy()} would close our end of the pipes); SIGKILL through
 * {@code destroyForcibly()}.
 */
final class SluiceProcess implements AutoCloseable {
    private static final Pattern ADMIN = Pattern.compile("admin endpoint on http://127\\.0\\.0\\.1:(\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private static final java.util.Set<String> STARTED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    final String name;
    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread errReader;
    private final Thread outReader;
    private volatile int adminPort = -1;

    private SluiceProcess(String name, Process process, Path logFile) throws IOException {
        this.name = name;
        this.process = process;
        PrintWriter log = new PrintWriter(Files.newBufferedWriter(logFile, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND), true);
        log.println("=== " + name + " pid " + process.pid() + " started " + java.time.Instant.now());
        errReader = drain(process.getErrorStream(), log);
        outReader = drain(process.getInputStream(), log);
    }

    /** Writes {@code config} next to the other files of the test and starts a process on it. */
    static SluiceProcess start(String name, Path dir, String config) throws IOException {
        return start(name, dir, config, 0);
    }

    /** Like {@link #start(String, Path, String)} with the admin endpoint on {@code adminPort} (0: any free port). */
    static SluiceProcess start(String name, Path dir, String config, int adminPort) throws IOException {
        return start(name, dir, config, adminPort, List.of("-Xmx256m"));
    }

    /** Like {@link #start(String, Path, String, int)} with the given JVM options (e.g. the launcher's). */
    static SluiceProcess start(String name, Path dir, String config, int adminPort, List<String> jvmOptions) throws IOException {
        Path conf = dir.resolve(name + ".yaml");
        Files.writeString(conf, config);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new java.util.ArrayList<>();
        command.add(java);
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
                "io.sluice.cli.Main", "-c", conf.toString(), "--no-stats", "--admin", "127.0.0.1:" + adminPort));
        Process p = new ProcessBuilder(command).start();
        Path logs = Path.of("target", "e2e-logs");
        Files.createDirectories(logs);
        Path logFile = logs.resolve(name + ".log");
        if (STARTED.add(name)) {
            Files.deleteIfExists(logFile); // a new test run: start the story afresh
        }
        return new SluiceProcess(name, p, logFile);
    }

    private Thread drain(InputStream in, PrintWriter log) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                    synchronized (log) {
                        log.println(line);
                    }
                    Matcher m = ADMIN.matcher(line);
                    if (m.find()) {
                        adminPort = Integer.parseInt(m.group(1));
                    }
                }
            } catch (IOException ignored) {
                // The process ended.
            }
        }, "drain-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Waits until the admin endpoint is up and every given TCP port accepts connections. */
    /** The admin endpoint's port, once the process said it (-1 before). */
    int adminPort() {
        return adminPort;
    }

    SluiceProcess awaitListening(int... ports) {
        Await.until(name + " admin endpoint and ports listening", 60, () -> {
            assertThat(process.isAlive()).as(name + " alive; log: " + tail()).isTrue();
            if (adminPort < 0) {
                return false;
            }
            for (int port : ports) {
                if (!accepts(port)) {
                    return false;
                }
            }
            return true;
        });
        return this;
    }

    static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Resident set size from /proc/PID/status (VmRSS), in KiB; -1 once the process is gone. */
    long rssKb() {
        return procStatus("VmRSS:");
    }

    /** The largest resident set size the process has had (VmHWM), in KiB; -1 once the process is gone. */
    long peakRssKb() {
        return procStatus("VmHWM:");
    }

    /** Live threads of the process (Threads: in /proc/PID/status); -1 once it is gone. */
    long threads() {
        return procStatus("Threads:");
    }

    /** Waits for the process to end by itself; its exit code, or fails after {@code seconds}. */
    int awaitExit(long seconds) throws InterruptedException {
        assertThat(process.waitFor(seconds, TimeUnit.SECONDS)).as(name + " exited within " + seconds + " s; log: " + tail()).isTrue();
        errReader.join(5000);
        outReader.join(5000);
        return process.exitValue();
    }

    private long procStatus(String field) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (l.startsWith(field)) {
                    return Long.parseLong(l.replaceAll("\\D", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** The Prometheus text of {@code /metrics}. */
    String metrics() throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    /** One per-plugin sample of {@code /metrics}, e.g. {@code metric("sluice_messages_discarded_total", "ToHec")}. */
    long metric(String name, String plugin) throws IOException, InterruptedException {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{plugin=\"" + Pattern.quote(plugin) + "\"[^}]*} (\\d+)$")
                .matcher(metrics());
        assertThat(m.find()).as(name + " of " + plugin + " in /metrics").isTrue();
        return Long.parseLong(m.group(1));
    }

    /** Whether plugin {@code id} reports itself ready in {@code /api/plugins}. */
    boolean pluginReady(String id) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/api/plugins"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        Matcher m = Pattern.compile("\\{\"id\":\"" + Pattern.quote(id) + "\",\"type\":\"[^\"]*\",\"kind\":\"[^\"]*\","
                + "\"ready\":(true|false)").matcher(r.body());
        assertThat(m.find()).as(id + " in /api/plugins: " + r.body()).isTrue();
        return Boolean.parseBoolean(m.group(1));
    }

    List<String> lines() {
        return lines;
    }

    String tail() {
        int n = lines.size();
        return String.join("\n", lines.subList(Math.max(0, n - 40), n));
    }

    /**
     * SIGHUP: the process reloads its config file. A test run whose environment starts processes with SIGHUP ignored
     * (under nohup, which every child inherits and the JVM cannot undo) cannot test it: the test is skipped, saying so.
     */
    void hangup() throws IOException, InterruptedException {
        org.junit.jupiter.api.Assumptions.assumeFalse(sighupIgnored(), name + " was started with SIGHUP ignored "
                + "(SigIgn in /proc/" + process.pid() + "/status): this environment cannot deliver it");
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(process.pid())).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -HUP " + process.pid()).isZero();
    }

    /** Whether SIGHUP reaches the process ({@link #hangup()} would skip the test otherwise). */
    boolean canHangup() throws IOException {
        return !sighupIgnored();
    }

    /** Whether the process ignores SIGHUP (bit 0 of SigIgn, a hexadecimal mask in /proc/PID/status). */
    private boolean sighupIgnored() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
            if (l.startsWith("SigIgn:")) {
                return (Long.parseLong(l.substring(7).trim(), 16) & 1) != 0;
            }
        }
        return false;
    }

    /** {@code POST /api/reload}: the status code and the JSON outcome. */
    HttpResponse<String> postReload() throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/api/reload"))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(120)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A process-wide sample of {@code /metrics} without labels, or with exactly {@code labels}, e.g. {@code result="applied"}. */
    long globalMetric(String name, String labels) throws IOException, InterruptedException {
        String key = labels.isEmpty() ? name : name + "{" + labels + "}";
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(key) + " (\\d+)$").matcher(metrics());
        assertThat(m.find()).as(key + " in /metrics").isTrue();
        return Long.parseLong(m.group(1));
    }

    /** SIGKILL: no shutdown code runs, as in a crash or the OOM killer. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(name + " killed").isTrue();
    }

    /** SIGTERM, then waits for the graceful stop; returns the exit code. */
    int stop() throws InterruptedException {
        process.toHandle().destroy();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(name + " stopped within 60 s after SIGTERM; log: " + tail()).isTrue();
        errReader.join(5000);
        outReader.join(5000);
        return process.exitValue();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
