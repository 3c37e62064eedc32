package io.sluice.hec.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.pipeline.Rejection;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.hec.Support;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** consumer.HEC facing bad input: Splunk's status and code for each, nothing published, the server stays up. */
@Timeout(60)
class BadInputTest {
    private static final String AUTH = "Authorization: Splunk good";
    private static int port;
    private static PipelineHarness receiver;

    @BeforeAll
    static void start() throws Exception {
        port = PipelineHarness.freePort();
        receiver = Support.receiver(port, "bad", Map.of("Tokens", List.of("good"), "Indexes", List.of("main", "ops"),
                "MaxBodySize", 4 * 1024 * 1024));
    }

    @AfterAll
    static void stop() {
        receiver.close();
    }

    private static Support.Reply post(String path, byte[] body, String... headers) throws Exception {
        return Support.exchange(port, Support.post(path, body, headers));
    }

    private static Support.Reply post(String body, String... headers) throws Exception {
        return post("/services/collector/event", body.getBytes(StandardCharsets.UTF_8), headers);
    }

    private static void assertReply(Support.Reply r, int status, String body) {
        assertThat(r.status()).isEqualTo(status);
        assertThat(r.body()).isEqualTo(body);
    }

    private static void assertStillUp() throws Exception {
        Support.Reply r = Support.exchange(port, "GET /services/collector/health HTTP/1.1\r\nHost: x\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        assertReply(r, 200, "{\"text\":\"HEC is healthy\",\"code\":17}");
    }

    @Test
    void tokens() throws Exception {
        String ev = "{\"event\":\"x\"}";
        assertReply(post(ev), 401, "{\"text\":\"Token is required\",\"code\":2}");
        assertReply(post(ev, "Authorization: Bearer good"), 401, "{\"text\":\"Invalid authorization\",\"code\":3}");
        // Only the whole scheme: a prefix of "Splunk", or a longer word, is not it (once "S good" was taken).
        assertReply(post(ev, "Authorization: S good"), 401, "{\"text\":\"Invalid authorization\",\"code\":3}");
        assertReply(post(ev, "Authorization: Splunkx good"), 401, "{\"text\":\"Invalid authorization\",\"code\":3}");
        assertReply(post(ev, "Authorization: splunk good"), 200, "{\"text\":\"Success\",\"code\":0}");
        assertReply(post(ev, "Authorization: Splunk wrong"), 403, "{\"text\":\"Invalid token\",\"code\":4}");
        assertReply(post(ev, AUTH), 200, "{\"text\":\"Success\",\"code\":0}");
    }

    @Test
    void eventErrorsNameTheFailingEventAndPublishNothing() throws Exception {
        int before = receiver.captured("bad").size();
        assertReply(post("", AUTH), 400, "{\"text\":\"No data\",\"code\":5}");
        assertReply(post("{\"event\":\"a\"}{\"event\":", AUTH), 400,
                "{\"text\":\"Invalid data format\",\"code\":6,\"invalid-event-number\":1}");
        assertReply(post("{\"event\":\"a\"}[1]", AUTH), 400,
                "{\"text\":\"Invalid data format\",\"code\":6,\"invalid-event-number\":1}");
        assertReply(post("{\"event\":\"a\",\"time\":\"soon\"}", AUTH), 400,
                "{\"text\":\"Invalid data format\",\"code\":6,\"invalid-event-number\":0}");
        assertReply(post("{\"event\":\"a\"}{\"host\":\"h\"}", AUTH), 400,
                "{\"text\":\"Event field is required\",\"code\":12,\"invalid-event-number\":1}");
        assertReply(post("{\"event\":\"\"}", AUTH), 400,
                "{\"text\":\"Event field cannot be blank\",\"code\":13,\"invalid-event-number\":0}");
        long auth = receiver.stats("in").rejected(Rejection.AUTH);
        assertReply(post("{\"event\":\"a\",\"index\":\"main\"}{\"event\":\"b\",\"index\":\"secret\"}", AUTH), 400,
                "{\"text\":\"Incorrect index\",\"code\":7,\"invalid-event-number\":1}");
        // Not malformed: a good request asking for an index it may not write, so counted with the token refusals.
        assertThat(receiver.stats("in").rejected(Rejection.AUTH)).isEqualTo(auth + 1);
        assertReply(post("/services/collector/nope", new byte[] {1}, AUTH), 404,
                "{\"text\":\"The requested URL was not found on this server.\",\"code\":404}");
        assertThat(receiver.captured("bad")).hasSize(before);
        assertStillUp();
    }

    @Test
    void nonUtf8AndDeepNestingAreInvalidDataFormat() throws Exception {
        byte[] bad = "{\"event\":\"caf\u00e9 \"}".getBytes(StandardCharsets.ISO_8859_1); // a lone 0xE9 byte
        assertThat(post("/services/collector/event", bad, AUTH).body()).contains("\"code\":6");
        String deep = "{\"event\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";
        assertReply(post(deep, AUTH), 400, "{\"text\":\"Invalid data format\",\"code\":6,\"invalid-event-number\":0}");
        assertStillUp();
    }

    @Test
    void truncatedGzipIsRejectedAndAGoodOneAccepted() throws Exception {
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(z)) {
            for (int i = 0; i < 200; i++) {
                g.write(("{\"event\":\"line " + i + "\"}").getBytes(StandardCharsets.UTF_8));
            }
        }
        byte[] full = z.toByteArray();
        byte[] cut = Arrays.copyOf(full, full.length / 2);
        int before = receiver.captured("bad").size();
        assertReply(post("/services/collector/event", cut, AUTH, "Content-Encoding: gzip"), 400,
                "{\"text\":\"Invalid data format\",\"code\":6}");
        assertReply(post("/services/collector/event", Arrays.copyOf(full, full.length - 4), AUTH, "Content-Encoding: gzip"),
                400, "{\"text\":\"Invalid data format\",\"code\":6}");
        assertReply(post("/services/collector/event", full, AUTH, "Content-Encoding: gzip"), 200,
                "{\"text\":\"Success\",\"code\":0}");
        PipelineHarness.await("200 events", 10_000, () -> receiver.captured("bad").size() == before + 200);
        assertStillUp();
    }

    @Test
    void aHundredMegabyteBodyGets413WithoutBeingRead() throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /services/collector/event HTTP/1.1\r\nHost: x\r\n" + AUTH + "\r\nContent-Length: "
                    + (100 * 1024 * 1024) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[64 * 1024]);
            out.flush();
            InputStream in = s.getInputStream();
            Support.Reply r = Support.read(in);
            assertReply(r, 413, "{\"text\":\"Content-Length of request is too large\",\"code\":27}");
        }
        // A gzip bomb: small on the wire, larger than MaxBodySize once inflated.
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(z)) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 8; i++) {
                g.write(zeros);
            }
        }
        assertThat(post("/services/collector/event", z.toByteArray(), AUTH, "Content-Encoding: gzip").status()).isEqualTo(413);
        assertStillUp();
    }

    @Test
    void rawEndpointSplitsLinesAndTakesQueryMetadata() throws Exception {
        int before = receiver.captured("bad").size();
        assertReply(post("/services/collector/raw?host=web-9&sourcetype=access", "first line\r\n\nsecond {line}\n"
                .getBytes(StandardCharsets.UTF_8), AUTH), 200, "{\"text\":\"Success\",\"code\":0}");
        PipelineHarness.await("2 raw events", 10_000, () -> receiver.captured("bad").size() == before + 2);
        List<Captured> got = receiver.captured("bad").subList(before, before + 2);
        assertThat(got).extracting(Captured::payload).containsExactly("first line", "second {line}");
        assertThat(got.get(0).fields()).isEqualTo(Map.of("host", "web-9", "sourcetype", "access"));
    }

    @Test
    void busyWhilePendingEventsAreNotDeliveredThenSuccessOnceTheyAre() throws Exception {
        int p = PipelineHarness.freePort();
        PipelineHarness pipe = Support.receiver(p, "busy", Map.of("MaxPendingEvents", 5));
        try {
            pipe.collect("busy").hold();
            byte[] five = Support.post("/services/collector/event",
                    "{\"event\":1}{\"event\":2}{\"event\":3}{\"event\":4}{\"event\":5}".getBytes(StandardCharsets.UTF_8));
            CompletableFuture<Support.Reply> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return Support.exchange(p, five);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            // Health turns 503 once the first request's five events are pending; only then is a sixth refused.
            // (Sending the sixth earlier could be admitted and then wait, like the first, for a delivery that is held.)
            PipelineHarness.await("health 503 while five events are held", 10_000, () -> {
                try {
                    return Support.exchange(p, "GET /services/collector/health HTTP/1.1\r\nHost: x\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII)).status() == 503;
                } catch (Exception e) {
                    return false;
                }
            });
            Support.Reply busy = Support.exchange(p, Support.post("/services/collector/event", "{\"event\":6}".getBytes(StandardCharsets.UTF_8)));
            assertReply(busy, 503, "{\"text\":\"Server is busy\",\"code\":9}");
            Support.Reply health = Support.exchange(p, "GET /services/collector/health HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertReply(health, 503, "{\"text\":\"HEC is unhealthy, queues are full\",\"code\":18}");
            assertThat(first).isNotDone(); // no success before delivery
            pipe.collect("busy").open();
            assertReply(first.get(), 200, "{\"text\":\"Success\",\"code\":0}");
            assertThat(pipe.captured("busy")).extracting(Captured::payload).containsExactly("1", "2", "3", "4", "5");
        } finally {
            pipe.collect("busy").open();
            pipe.close();
        }
    }

    @Test
    void indexerAckNeedsAChannelAndTurnsTrueOnDelivery() throws Exception {
        int p = PipelineHarness.freePort();
        PipelineHarness pipe = Support.receiver(p, "ack", Map.of("UseAck", true));
        try {
            byte[] ev = "{\"event\":\"acked\"}".getBytes(StandardCharsets.UTF_8);
            assertReply(Support.exchange(p, Support.post("/services/collector/event", ev)), 400,
                    "{\"text\":\"Data channel is missing\",\"code\":10}");
            String ch = "X-Splunk-Request-Channel: 0aeeac95-ac74-4aa9-b30d-6c4c0ac581ba";
            assertReply(Support.exchange(p, Support.post("/services/collector/event", ev, ch)), 200,
                    "{\"text\":\"Success\",\"code\":0,\"ackId\":0}");
            PipelineHarness.await("the event", 10_000, () -> pipe.captured("ack").size() == 1);
            String[] acks = new String[1];
            PipelineHarness.await("ack 0 to turn true", 10_000, () -> {
                try {
                    acks[0] = Support.exchange(p, Support.post("/services/collector/ack",
                            "{\"acks\":[0]}".getBytes(StandardCharsets.UTF_8), ch)).body();
                    return acks[0].contains("true");
                } catch (Exception e) {
                    return false;
                }
            });
            assertThat(acks[0]).isEqualTo("{\"acks\":{\"0\":true}}");
        } finally {
            pipe.close();
        }
    }
}
