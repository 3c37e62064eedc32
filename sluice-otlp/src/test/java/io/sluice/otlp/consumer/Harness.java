package io.sluice.otlp.consumer;

import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.HarnessPlugins;
import io.sluice.core.testing.PipelineHarness;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

/**
 * consumer.OTLP's receiving side for the tests: core's {@link PipelineHarness} running consumer.OTLP "in" on two free
 * loopback ports (gRPC and HTTP) into test.Collect, as sluice-hec's Support builds one for consumer.HEC; the ports,
 * OTLP's own counter and curl exchanges are what stays here.
 */
final class Harness implements AutoCloseable {
    final int grpcPort;
    final int httpPort;
    final String capture;
    final MemoryBudget memory;
    /** The running pipeline: stats("in") are consumer.OTLP's counters, collect(capture) what it published. */
    final PipelineHarness pipeline;

    /** consumer.OTLP with {@code settings} (Address and HTTPAddress are set here) → test.Collect {@code capture}. */
    Harness(String capture, Map<String, Object> settings, MemoryBudget memory) throws Exception {
        this(capture, settings, memory, PipelineHarness.freePort(), PipelineHarness.freePort());
    }

    /** The same on the given ports (a second receiver on the ports of a first one). */
    Harness(String capture, Map<String, Object> settings, MemoryBudget memory, int grpcPort, int httpPort)
            throws Exception {
        this.capture = capture;
        this.memory = memory;
        this.grpcPort = grpcPort;
        this.httpPort = httpPort;
        Map<String, Object> in = new HashMap<>(settings);
        in.put("Address", "127.0.0.1:" + grpcPort);
        in.put("HTTPAddress", "127.0.0.1:" + httpPort);
        in.put("Streams", "otlp");
        pipeline = PipelineHarness.builder().plugin("in", "consumer.OTLP", in)
                .plugin(capture, "test.Collect", Map.of("Streams", "otlp"))
                .log(PipelineHarness.stderrLog()).memory(memory).start(); // open() binds both listeners first
    }

    Harness(String capture, Map<String, Object> settings) throws Exception {
        this(capture, settings, MemoryBudget.ofHeapShare());
    }

    @Override
    public void close() {
        pipeline.collect(capture).open();
        pipeline.close();
    }

    String httpUrl(String path) {
        return "http://127.0.0.1:" + httpPort + path;
    }

    /** consumer.OTLP's counters. */
    PluginStats stats() {
        return pipeline.stats("in");
    }

    /** The capturing producer: hold()/open() it, make it fail, clear() it. */
    HarnessPlugins.Collect out() {
        return pipeline.collect(capture);
    }

    /** Requests answered with success, as consumer.OTLP counts them. */
    long requestsOk() {
        return pipeline.counter("in", "sluice_otlp_requests_total");
    }

    /** What reached the capturing producer so far. */
    List<Captured> received() {
        return pipeline.captured(capture);
    }

    /** Waits until every reservation went back to the budget. */
    void awaitBudgetEmpty() {
        PipelineHarness.await("the memory budget to be empty (used " + memory.used() + ")", 10_000,
                () -> memory.used() == 0);
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
