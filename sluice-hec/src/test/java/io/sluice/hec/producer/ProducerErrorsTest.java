package io.sluice.hec.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.PermanentDeliveryException;
import io.sluice.core.testing.DirectProducerContext;
import io.sluice.core.testing.PipelineHarness;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** producer.SplunkHEC against scripted answers: what is retried, split, or sent to the fallback stream. */
@org.junit.jupiter.api.Timeout(30)
class ProducerErrorsTest {
    private MockWebServer server;

    @BeforeEach
    void start() throws Exception {
        server = new MockWebServer();
        server.start(InetAddress.getLoopbackAddress(), 0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HecProducer producer(Map<String, Object> extra) throws Exception {
        Map<String, Object> s = new HashMap<>(extra);
        s.put("Endpoint", "http://127.0.0.1:" + server.getPort());
        s.put("Token", "tok");
        s.put("HealthCheck", false);
        s.put("RetryInitialMs", 10);
        HecProducer p = new HecProducer(PluginConfig.of("p", "producer.SplunkHEC", s));
        p.start(DirectProducerContext.of("p", "producer.SplunkHEC", PipelineHarness.stderrLog()));
        return p;
    }

    /** n events of about 100 bytes each. */
    private static Batch batch(int n) {
        Batch b = new BatchPool(n).acquire();
        for (int i = 0; i < n; i++) {
            Message m = b.add();
            m.setPayload(String.format("event %04d %s", i, "x".repeat(60)));
            m.setTimestamp((i + 1) * 1_000_000_000L);
        }
        return b;
    }

    private static MockResponse answer(int code, String body) {
        return new MockResponse.Builder().code(code).body(body).build();
    }

    private static final String OK = "{\"text\":\"Success\",\"code\":0}";

    private static int events(RecordedRequest r) {
        return r.getBody().utf8().split("\n").length;
    }

    @Test
    void partialFailureRetriesOnlyTheFailedRequest() throws Exception {
        HecProducer p = producer(Map.of("Gzip", false, "MaxContentLength", 1024));
        Batch b = batch(24); // ~100 bytes each: three requests of <= 1024 bytes
        server.enqueue(answer(200, OK));
        server.enqueue(answer(503, "{\"text\":\"Server is busy\",\"code\":9}"));
        for (int i = 0; i < 4; i++) {
            server.enqueue(answer(200, OK));
        }
        p.deliver(b);
        RecordedRequest r1 = server.takeRequest(1, TimeUnit.SECONDS);
        RecordedRequest r2 = server.takeRequest(1, TimeUnit.SECONDS);
        RecordedRequest r2again = server.takeRequest(1, TimeUnit.SECONDS);
        RecordedRequest r3 = server.takeRequest(1, TimeUnit.SECONDS);
        assertThat(server.getRequestCount()).isEqualTo(4);
        assertThat(r2again.getBody()).isEqualTo(r2.getBody());
        assertThat(events(r1) + events(r2) + events(r3)).isEqualTo(24);
        assertThat(r1.getHeaders().get("Authorization")).isEqualTo("Splunk tok");
        assertThat(r1.getUrl().encodedPath()).isEqualTo("/services/collector/event");
        assertThat(b.size()).isEqualTo(24); // nothing failed, nothing removed
    }

    @Test
    void tooManyRequestsWaitsForRetryAfter() throws Exception {
        HecProducer p = producer(Map.of());
        server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1").body("busy").build());
        server.enqueue(answer(200, OK));
        long t0 = System.nanoTime();
        p.deliver(batch(3));
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertThat(server.getRequestCount()).isEqualTo(2);
        assertThat(waited).isGreaterThanOrEqualTo(950);
        RecordedRequest first = server.takeRequest();
        assertThat(first.getHeaders().get("Content-Encoding")).isEqualTo("gzip");
    }

    @Test
    void payloadTooLargeSplitsTheRequestInHalves() throws Exception {
        HecProducer p = producer(Map.of("Gzip", false));
        server.enqueue(answer(413, "{\"text\":\"Content-Length of request is too large\",\"code\":27}"));
        server.enqueue(answer(200, OK));
        server.enqueue(answer(200, OK));
        p.deliver(batch(10));
        RecordedRequest whole = server.takeRequest();
        RecordedRequest h1 = server.takeRequest();
        RecordedRequest h2 = server.takeRequest();
        assertThat(events(whole)).isEqualTo(10);
        assertThat(events(h1)).isEqualTo(5);
        assertThat(events(h2)).isEqualTo(5);
        assertThat(h1.getBody().utf8() + h2.getBody().utf8()).isEqualTo(whole.getBody().utf8());
    }

    @Test
    void badRequestIsPermanentAndSendsOnlyThoseEventsToTheFallbackWithHecTextAndCode() throws Exception {
        HecProducer p = producer(Map.of("Gzip", false, "MaxContentLength", 1024));
        Batch b = batch(24);
        server.enqueue(answer(200, OK));
        server.enqueue(answer(400, "{\"text\":\"Invalid data format\",\"code\":6,\"invalid-event-number\":2}"));
        server.enqueue(answer(200, OK));
        // Permanent: the pipeline sends these straight to the fallback stream instead of retrying them (forever
        // under the default Retry/Max: -1, which would hold a worker and, with a disk buffer, its ack position).
        assertThatThrownBy(() -> p.deliver(b)).isInstanceOf(PermanentDeliveryException.class)
                .hasMessageContaining("Invalid data format");
        assertThat(server.getRequestCount()).isEqualTo(3);
        server.takeRequest();
        RecordedRequest rejected = server.takeRequest();
        int n = events(rejected);
        assertThat(b.size()).isEqualTo(n); // the batch now holds only the rejected events, for the fallback stream
        for (int i = 0; i < b.size(); i++) {
            Message m = b.get(i);
            assertThat(rejected.getBody().utf8()).contains(m.payloadString());
            assertThat(m.metadata().getString("hec_error_code")).isEqualTo("6");
            assertThat(m.metadata().getString("hec_error_status")).isEqualTo("400");
            assertThat(m.metadata().getString("hec_error_text")).isEqualTo("Invalid data format");
        }
    }

    @Test
    void serverErrorsBackOffAndFinallyGiveUp() throws Exception {
        HecProducer p = producer(Map.of("RetryMaxElapsedMs", 300, "RetryMaxMs", 50));
        for (int i = 0; i < 50; i++) {
            server.enqueue(answer(500, "oops"));
        }
        Batch b = batch(2);
        // Not permanent: the pipeline's Retry/* policy decides what happens next.
        assertThatThrownBy(() -> p.deliver(b)).isNotInstanceOf(PermanentDeliveryException.class).hasMessageContaining("gave up");
        assertThat(server.getRequestCount()).isGreaterThan(2);
        assertThat(b.get(0).metadata().getString("hec_error_status")).isEqualTo("500");
    }

    @Test
    void indexerAckPollsAndResendsWhatIsNotAcked() throws Exception {
        HecProducer p = producer(Map.of("UseAck", true, "AckTimeoutMs", 100, "AckPollMs", 20, "RequestTimeoutMs", 3000));
        java.util.concurrent.atomic.AtomicInteger posts = new java.util.concurrent.atomic.AtomicInteger();
        // Every request, and the ack poll's query, names one channel: the producer's.
        java.util.Set<String> channels = java.util.concurrent.ConcurrentHashMap.newKeySet();
        server.setDispatcher(new mockwebserver3.Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                channels.add(String.valueOf(r.getHeaders().get("X-Splunk-Request-Channel")));
                if (r.getUrl().encodedPath().endsWith("/ack")) {
                    channels.add(String.valueOf(r.getUrl().queryParameter("channel")));
                    // The first send (ackId 7) is never acked; the resend (ackId 8) is.
                    return answer(200, posts.get() >= 2 ? "{\"acks\":{\"8\":true}}" : "{\"acks\":{\"7\":false}}");
                }
                int n = posts.incrementAndGet();
                return answer(200, "{\"text\":\"Success\",\"code\":0,\"ackId\":" + (6 + n) + "}");
            }
        });
        Batch b = batch(2);
        p.deliver(b);
        assertThat(posts.get()).isEqualTo(2); // sent, not acked in time, sent again, acked
        assertThat(channels).hasSize(1).doesNotContain("null", "");
        assertThat(b.size()).isEqualTo(2);
    }

    /**
     * A collector with indexer acks: the n-th post gets {@code answers[n]}, an ack poll is answered true for the
     * ids in {@code acked} and false for the others, and each poll's ids are kept.
     */
    private static final class AckingCollector extends mockwebserver3.Dispatcher {
        private final MockResponse[] answers;
        private final java.util.Set<Long> acked;
        final java.util.List<RecordedRequest> posts = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.util.Set<Long> polled = java.util.concurrent.ConcurrentHashMap.newKeySet();

        AckingCollector(java.util.Set<Long> acked, MockResponse... answers) {
            this.acked = acked;
            this.answers = answers;
        }

        @Override
        public MockResponse dispatch(RecordedRequest r) {
            if (r.getUrl().encodedPath().endsWith("/ack")) {
                StringBuilder b = new StringBuilder("{\"acks\":{");
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\d+").matcher(r.getBody().utf8());
                while (m.find()) {
                    long id = Long.parseLong(m.group());
                    polled.add(id);
                    b.append(b.length() > 9 ? "," : "").append('"').append(id).append("\":").append(acked.contains(id));
                }
                return answer(200, b.append("}}").toString());
            }
            posts.add(r);
            return answers[Math.min(posts.size(), answers.length) - 1];
        }
    }

    private static MockResponse accepted(long ackId) {
        return answer(200, "{\"text\":\"Success\",\"code\":0,\"ackId\":" + ackId + "}");
    }

    private static final MockResponse TOO_LARGE =
            answer(413, "{\"text\":\"Content-Length of request is too large\",\"code\":27}");

    private HecProducer ackingProducer(Map<String, Object> extra) throws Exception {
        Map<String, Object> s = new HashMap<>(extra);
        s.putAll(Map.of("UseAck", true, "AckTimeoutMs", 100, "AckPollMs", 20, "Gzip", false));
        return producer(s);
    }

    @Test
    void withAcksARequestSplitBy413IsNeitherPolledNorResentOnlyItsHalvesAre() throws Exception {
        HecProducer p = ackingProducer(Map.of());
        AckingCollector c = new AckingCollector(java.util.Set.of(1L, 2L), TOO_LARGE, accepted(1), accepted(2));
        server.setDispatcher(c);
        Batch b = batch(10);
        p.deliver(b);
        assertThat(c.posts).hasSize(3);
        assertThat(c.polled).containsExactlyInAnyOrder(1L, 2L);
        assertThat(b.size()).isEqualTo(10);
    }

    @Test
    void withAcksARequestRefusedForGoodIsNeitherPolledNorResent() throws Exception {
        HecProducer p = ackingProducer(Map.of("MaxContentLength", 1024));
        AckingCollector c = new AckingCollector(java.util.Set.of(5L, 6L),
                answer(400, "{\"text\":\"Invalid data format\",\"code\":6}"), accepted(5), accepted(6));
        server.setDispatcher(c);
        assertThatThrownBy(() -> p.deliver(batch(24))).isInstanceOf(PermanentDeliveryException.class);
        assertThat(c.posts).hasSize(3);
        assertThat(c.polled).containsExactlyInAnyOrder(5L, 6L);
    }

    @Test
    void withAcksAResendSplitBy413SendsBothHalvesAndAwaitsTheirAcks() throws Exception {
        HecProducer p = ackingProducer(Map.of());
        // ackId 1 is never acked; its resend is too large and split; the halves are acked.
        AckingCollector c =
                new AckingCollector(java.util.Set.of(3L, 4L), accepted(1), TOO_LARGE, accepted(3), accepted(4));
        server.setDispatcher(c);
        Batch b = batch(10);
        p.deliver(b);
        assertThat(c.posts).hasSize(4);
        assertThat(events(c.posts.get(2)) + events(c.posts.get(3))).isEqualTo(10);
        assertThat(c.posts.get(2).getBody().utf8() + c.posts.get(3).getBody().utf8())
                .isEqualTo(c.posts.get(0).getBody().utf8());
        assertThat(c.polled).containsExactlyInAnyOrder(1L, 3L, 4L);
        assertThat(b.size()).isEqualTo(10);
    }
}
