package io.sluice.otlp.consumer;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.Rejection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.zip.GZIPOutputStream;

/**
 * A receiving pipeline for the tests (consumer.OTLP "in" on two free loopback ports → test.Capture), as sluice-hec's
 * Support builds one for consumer.HEC; curl exchanges; polling with a deadline.
 */
final class Harness implements AutoCloseable {
    static final Log LOG = new Log(System.err, Log.WARNING);

    final int grpcPort;
    final int httpPort;
    final String capture;
    final MemoryBudget memory;
    final Pipeline pipeline;

    /** consumer.OTLP with {@code settings} (Address and HTTPAddress are set here) → test.Capture {@code capture}. */
    Harness(String capture, Map<String, Object> settings, MemoryBudget memory) throws Exception {
        this.capture = capture;
        this.memory = memory;
        this.grpcPort = freePort();
        this.httpPort = freePort();
        Map<String, Object> in = new HashMap<>(settings);
        in.put("Address", "127.0.0.1:" + grpcPort);
        in.put("HTTPAddress", "127.0.0.1:" + httpPort);
        in.put("Streams", "otlp");
        Capture.reset(capture);
        pipeline = new Pipeline(List.of(PluginConfig.of("in", "consumer.OTLP", in),
                PluginConfig.of(capture, "test.Capture", Map.of("Streams", "otlp"))), PluginRegistry.defaultRegistry(), LOG,
                memory);
        pipeline.start(); // open() binds both listeners before start returns
    }

    Harness(String capture, Map<String, Object> settings) throws Exception {
        this(capture, settings, MemoryBudget.ofHeapShare());
    }

    @Override
    public void close() {
        Capture.open(capture);
        pipeline.stop();
    }

    String httpUrl(String path) {
        return "http://127.0.0.1:" + httpPort + path;
    }

    PluginStats stats() {
        for (PluginStats s : pipeline.consumerStats()) {
            if (s.id().equals("in")) {
                return s;
            }
        }
        throw new AssertionError("no consumer 'in'");
    }

    long rejected(Rejection r) {
        return stats().rejected(r);
    }

    long requestsOk() {
        for (PluginStats.Counter c : stats().counters()) {
            if (c.name().equals("sluice_otlp_requests_total")) {
                return c.value().get();
            }
        }
        return 0;
    }

    List<Capture.Event> received() {
        return Capture.received(capture);
    }

    /** Waits until every reservation went back to the budget. */
    void awaitBudgetEmpty() throws InterruptedException {
        await(() -> memory.used() == 0, 10_000, "the memory budget to be empty (used " + memory.used() + ")");
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Polls until the condition holds, failing after {@code millis}. */
    static void await(BooleanSupplier cond, long millis, String what) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(z)) {
            g.write(data);
        }
        return z.toByteArray();
    }

    /** What curl got: the status, the response headers (lower-case names) and the body. */
    record Reply(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** Runs curl with {@code args} (plus the URL), posting {@code body} from a file; reads the response. */
    static Reply curl(String url, byte[] body, String... args) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("otlp-curl");
        try {
            Path in = dir.resolve("body");
            Path head = dir.resolve("head");
            Path out = dir.resolve("out");
            Files.write(in, body == null ? new byte[0] : body);
            List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20", "-o", out.toString(),
                    "-D", head.toString()));
            if (body != null) {
                cmd.add("--data-binary");
                cmd.add("@" + in);
            }
            cmd.addAll(List.of(args));
            cmd.add(url);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("curl did not finish");
            }
            if (p.exitValue() != 0) {
                throw new IOException("curl failed (" + p.exitValue() + "): " + log);
            }
            String[] lines = Files.readString(head, StandardCharsets.ISO_8859_1).split("\r\n");
            int status = 0;
            Map<String, String> headers = new HashMap<>();
            for (String line : lines) {
                if (line.startsWith("HTTP/")) {
                    status = Integer.parseInt(line.split(" ")[1]); // the last status line wins (after 100 Continue)
                    headers.clear();
                } else if (line.indexOf(':') > 0) {
                    int c = line.indexOf(':');
                    headers.put(line.substring(0, c).trim().toLowerCase(), line.substring(c + 1).trim());
                }
            }
            return new Reply(status, headers, Files.exists(out) ? Files.readAllBytes(out) : new byte[0]);
        } finally {
            try (var s = Files.list(dir)) {
                s.forEach(f -> f.toFile().delete());
            }
            Files.deleteIfExists(dir);
        }
    }
}
