package io.sluice.core.admin;

import static io.sluice.core.testing.PipelineHarness.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AdminServerTest {
    private final HttpClient http = HttpClient.newHttpClient();
    private Pipeline pipeline;
    private AdminServer admin;

    @AfterEach
    void tearDown() {
        if (admin != null) {
            admin.close();
        }
        if (pipeline != null) {
            pipeline.stop();
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static long metric(String text, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
        assertThat(m.find()).as("series " + series + " in\n" + text).isTrue();
        return (long) Double.parseDouble(m.group(1));
    }

    private void start(String yaml) throws Exception {
        start(yaml, false);
    }

    /** Like {@link #start(String)} with /api/tap turned on (--admin-tap). */
    private void startWithTap(String yaml) throws Exception {
        start(yaml, true);
    }

    private void start(String yaml, boolean tap) throws Exception {
        pipeline = PipelineHarness.pipeline(yaml);
        pipeline.start();
        AdminServer.Settings s = new AdminServer.Settings();
        s.port = 0;
        s.tap = tap;
        admin = AdminServer.start(pipeline, s, null, PipelineHarness.quietLog());
    }

    @Test
    void metricsCountExactlyWhatFlowed() throws Exception {
        start("Src:\n  Type: test.Numbers\n  Count: 1234\n  KeepRunning: true\n  Streams: s\n  Modulators: [test.DropOdd]\n"
                + "Out:\n  Type: test.Collect\n  Streams: s\n  Channel: 4096\n");
        Collect out = PipelineHarness.producer(pipeline, "Out");
        await("delivered", 10_000, () -> out.payloads.size() == 617);
        String text = get("/metrics").body();
        assertThat(metric(text, "sluice_messages_in_total{plugin=\"Src\",type=\"test.Numbers\",kind=\"consumer\"}")).isEqualTo(1234);
        assertThat(metric(text, "sluice_messages_dropped_total{plugin=\"Src\",type=\"test.Numbers\",kind=\"consumer\"}")).isEqualTo(617);
        assertThat(metric(text, "sluice_messages_out_total{plugin=\"Out\",type=\"test.Collect\",kind=\"producer\"}")).isEqualTo(617);
        long bytes = out.payloads.stream().mapToLong(String::length).sum();
        assertThat(metric(text, "sluice_bytes_out_total{plugin=\"Out\",type=\"test.Collect\",kind=\"producer\"}")).isEqualTo(bytes);
        assertThat(metric(text, "sluice_queue_capacity{plugin=\"Out\",type=\"test.Collect\",kind=\"producer\"}")).isEqualTo(4096);
        assertThat(metric(text, "sluice_unrouted_discarded_total")).isEqualTo(617);
        assertThat(metric(text, "sluice_send_latency_seconds_count{plugin=\"Out\",type=\"test.Collect\"}")).isPositive();
        assertThat(metric(text, "sluice_send_latency_seconds_bucket{plugin=\"Out\",type=\"test.Collect\",le=\"+Inf\"}"))
                .isEqualTo(metric(text, "sluice_send_latency_seconds_count{plugin=\"Out\",type=\"test.Collect\"}"));
        assertThat(metric(text, "jvm_memory_used_bytes{area=\"heap\"}")).isPositive();
        assertThat(text).contains("# TYPE sluice_messages_out_total counter").contains("jvm_gc_collections_total{gc=");
        // A plugin's own counter, registered through its stats, with the plugin's labels and one header.
        assertThat(out.deliveries.get()).isPositive();
        assertThat(metric(text, "test_collect_deliveries_total{plugin=\"Out\",type=\"test.Collect\",kind=\"producer\"}"))
                .isEqualTo(out.deliveries.get());
        assertThat(text).containsOnlyOnce("# TYPE test_collect_deliveries_total counter");
    }

    @Test
    void readyFlipsWhenAProducerCannotDeliver() throws Exception {
        start("Src:\n  Type: test.Numbers\n  Count: 10\n  KeepRunning: true\n  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n");
        assertThat(get("/health").statusCode()).isEqualTo(200);
        assertThat(get("/ready").statusCode()).isEqualTo(200);
        Collect out = PipelineHarness.producer(pipeline, "Out");
        out.ready = false;
        HttpResponse<String> r = get("/ready");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(get("/api/plugins").body()).contains("\"id\":\"Out\"").contains("\"ready\":false");
        out.ready = true;
        assertThat(get("/ready").statusCode()).isEqualTo(200);
    }

    @Test
    void pluginsApiDescribesTheGraph() throws Exception {
        start("Src:\n  Type: test.Numbers\n  Count: 5\n  KeepRunning: true\n  Streams: s\n  Modulators: [format.Envelope]\n"
                + "Out:\n  Type: test.Collect\n  Streams: s\n");
        await("delivered", 10_000, () -> ((Collect) PipelineHarness.producer(pipeline, "Out")).payloads.size() == 5);
        String json = get("/api/plugins").body();
        assertThat(json).contains("{\"id\":\"Src\",\"type\":\"test.Numbers\",\"kind\":\"consumer\",\"ready\":true,\"streams\":[\"s\"],\"modulators\":[\"format.Envelope\"],\"in\":5,\"out\":5");
        assertThat(json).contains("\"id\":\"Out\"").contains("\"queueCapacity\":8192");
    }

    @Test
    void tapSamplesMessagesOfAPluginAndUnknownPluginIs404() throws Exception {
        startWithTap("Gen:\n  Type: consumer.Profiler\n  Runs: 100000000\n  KeepRunning: true\n  Message: \"hello %4s\"\n  Streams: s\n"
                + "Out:\n  Type: producer.Null\n  Streams: s\n  Modulators:\n    - format.Envelope:\n        Prefix: \"<\"\n        Postfix: \">\"\n");
        HttpResponse<String> r = get("/api/tap?plugin=Out&limit=3");
        List<String> lines = r.body().lines().collect(Collectors.toList());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(lines).hasSize(3).allMatch(l -> l.matches("\\{\"stream\":\"s\",\"timestamp\":\\d+,\"payload\":\"<hello .{4}>\"}"));
        assertThat(get("/api/tap?plugin=Nope").statusCode()).isEqualTo(404);
    }

    @Test
    void aRequestPipelinedBehindATapIsAnsweredOnceTheTapEnded() throws Exception {
        startWithTap("Gen:\n  Type: consumer.Profiler\n  Runs: 100000000\n  KeepRunning: true\n  Message: \"hello %4s\"\n  Streams: s\n"
                + "Out:\n  Type: producer.Null\n  Streams: s\n");
        try (java.net.Socket c = new java.net.Socket("127.0.0.1", admin.port())) {
            c.setSoTimeout(10_000);
            c.getOutputStream().write(("GET /api/tap?plugin=Out&limit=2 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            c.getOutputStream().flush();
            String all = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8); // to the server's close
            assertThat(all).startsWith("HTTP/1.1 200 OK").contains("transfer-encoding: chunked");
            int end = all.indexOf("\r\n0\r\n\r\n");
            assertThat(end).as("the tap's last chunk in\n" + all).isPositive();
            assertThat(all.substring(0, end).split("\"payload\":\"hello ", -1)).as("two messages").hasSize(3);
            assertThat(all.substring(end)).contains("HTTP/1.1 200 OK").endsWith("\r\n\r\nok\n");
        }
    }

    @Test
    void repeatedLogLinesAreLimitedAndSummarised() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Log log = new Log(new PrintStream(bytes, true, StandardCharsets.UTF_8), Log.INFO, true);
        for (int i = 0; i < 10_000; i++) {
            log.limited(Log.WARNING, "peer 1.2.3.4: garbage", "peer 1.2.3.4 sent garbage #" + i);
        }
        log.flushSuppressed();
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().collect(Collectors.toList());
        assertThat(lines).hasSize(6);
        assertThat(lines.get(0)).matches("\\{\"time\":\"[^\"]+\",\"level\":\"warning\",\"msg\":\"peer 1.2.3.4 sent garbage #0\"}");
        assertThat(lines.get(5)).contains("9995 more like this (suppressed)");
    }

    @Test
    void halfSentRequestsAreClosedAndNeverHoldHealthForLong() throws Exception {
        start("Src:\n  Type: test.Numbers\n  Count: 1\n  KeepRunning: true\n  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n");
        List<java.net.Socket> slow = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 16; i++) {
                java.net.Socket c = new java.net.Socket("127.0.0.1", admin.port());
                c.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                c.getOutputStream().flush();
                slow.add(c);
            }
            long start = System.nanoTime();
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + "/health"))
                    .timeout(java.time.Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat((System.nanoTime() - start) / 1_000_000_000.0).as("seconds /health waited behind slow clients")
                    .isLessThan(AdminServer.REQUEST_SECONDS * 3);
            for (java.net.Socket c : slow) {
                assertThat(closedByServer(c)).as("the server closed a half-sent request").isTrue();
            }
        } finally {
            for (java.net.Socket c : slow) {
                c.close();
            }
        }
    }

    @Test
    void tapsBeyondTheLimitAreRefusedSoTheyCannotTakeEveryThread() throws Exception {
        startWithTap("Src:\n  Type: test.Numbers\n  Count: 1\n  KeepRunning: true\n  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n");
        List<java.util.concurrent.CompletableFuture<HttpResponse<java.io.InputStream>>> open = new java.util.ArrayList<>();
        for (int i = 0; i < AdminServer.MAX_TAPS; i++) {
            open.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + "/api/tap?plugin=Out&limit=5")).build(),
                    HttpResponse.BodyHandlers.ofInputStream()));
        }
        for (var f : open) {
            assertThat(f.get(10, java.util.concurrent.TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(get("/api/tap?plugin=Out&limit=5").statusCode()).isEqualTo(429);
        assertThat(get("/health").statusCode()).isEqualTo(200);
        for (var f : open) {
            f.get().body().close();
        }
    }

    /** Whether the server closed the connection (end of stream or reset) within 30 s; false if it answered. */
    private static boolean closedByServer(java.net.Socket c) throws IOException {
        c.setSoTimeout(30_000);
        try {
            return c.getInputStream().read() == -1;
        } catch (java.net.SocketException reset) {
            return true;
        }
    }
}
