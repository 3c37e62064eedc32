package io.sluice.otlp.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.proto.logs.v1.LogRecord;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.PermanentDeliveryException;
import io.sluice.core.pipeline.RetryLaterException;
import io.sluice.core.testing.HarnessPlugins;
import io.sluice.core.testing.PipelineHarness;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** producer.OTLP over OTLP/HTTP (protobuf) against the JDK's HTTP server parsing with the generated classes. */
@Timeout(60)
class HttpExportTest {
    private HttpReceiver receiver;
    private OtlpProducer producer;
    private final PipelineHarness.MemoryLog log = new PipelineHarness.MemoryLog();

    @BeforeEach
    void startReceiver() throws Exception {
        receiver = new HttpReceiver();
    }

    @AfterEach
    void stop() {
        if (producer != null) {
            producer.close();
        }
        receiver.close();
    }

    private OtlpProducer producer(Map<String, Object> extra) throws Exception {
        Map<String, Object> s = new HashMap<>(extra);
        s.put("Protocol", "http/protobuf");
        s.putIfAbsent("Endpoint", "http://127.0.0.1:" + receiver.port());
        producer = Support.producer(s, log.log);
        return producer;
    }

    @Test
    void logsAndMetricsArriveGzippedOnTheirPathsWithTheHeaders() throws Exception {
        OtlpProducer p = producer(Map.of("Headers", List.of("Authorization: Bearer abc", "X-Tenant: t1")));
        Batch b = GrpcExportTest.mixed().batch();
        p.deliver(b);
        assertThat(receiver.paths).containsExactly("/v1/logs", "/v1/metrics");
        for (var h : receiver.headers) {
            assertThat(h.getFirst("Content-Encoding")).isEqualTo("gzip");
            assertThat(h.getFirst("Content-Type")).isEqualTo("application/x-protobuf");
            assertThat(h.getFirst("Authorization")).isEqualTo("Bearer abc");
            assertThat(h.getFirst("X-Tenant")).isEqualTo("t1");
        }
        assertThat(receiver.logRecords()).isEqualTo(4);
        LogRecord first = receiver.logs.get(0).getResourceLogs(0).getScopeLogs(0).getLogRecords(0);
        assertThat(first.getBody().getStringValue()).isEqualTo("first");
        assertThat(first.getAttributes(1).getValue().getIntValue()).isEqualTo(3);
        assertThat(receiver.metrics.get(0).getResourceMetricsCount()).isEqualTo(2);
        p.deliver(GrpcExportTest.oneLog()); // the same keep-alive connection again
        assertThat(receiver.logs).hasSize(2);
    }

    @Test
    void aBasePathAndNoCompression() throws Exception {
        OtlpProducer p = producer(Map.of("Endpoint", "http://127.0.0.1:" + receiver.port() + "/otlp/", "Compression", "none",
                "Headers", Map.of("X-A", "1")));
        p.deliver(GrpcExportTest.oneLog());
        assertThat(receiver.paths).containsExactly("/otlp/v1/logs");
        assertThat(receiver.headers.get(0).getFirst("Content-Encoding")).isNull();
        assertThat(receiver.headers.get(0).getFirst("X-A")).isEqualTo("1");
    }

    @Test
    void retryableAndPermanentStatuses() throws Exception {
        OtlpProducer p = producer(Map.of());
        for (int status : List.of(429, 502, 503, 504)) {
            receiver.script.add(HttpReceiver.Answer.status(status, Map.of()));
            assertThatThrownBy(() -> p.deliver(GrpcExportTest.oneLog())).as("" + status).isInstanceOf(IOException.class)
                    .isNotInstanceOf(PermanentDeliveryException.class).hasMessageContaining("HTTP " + status);
        }
        for (int status : List.of(400, 401, 403, 404, 413, 500)) {
            receiver.script.add(HttpReceiver.Answer.status(status, Map.of()));
            assertThatThrownBy(() -> p.deliver(GrpcExportTest.oneLog())).as("" + status)
                    .isInstanceOf(PermanentDeliveryException.class).hasMessageContaining("HTTP " + status)
                    .hasMessageContaining("bad data"); // the google.rpc.Status message of the body
        }
        receiver.script.add(HttpReceiver.Answer.status(503, Map.of("Retry-After", "7")));
        assertThatThrownBy(() -> p.deliver(GrpcExportTest.oneLog())).isInstanceOfSatisfying(RetryLaterException.class,
                e -> assertThat(e.retryAfterMillis()).isEqualTo(7000));
        assertThat(receiver.logs).isEmpty();
    }

    @Test
    void aRequestWithoutAnswerTimesOutRetryablyAndANewConnectionServesTheNext() throws Exception {
        OtlpProducer p = producer(Map.of("TimeoutMs", 300));
        receiver.script.add(HttpReceiver.Answer.hang());
        assertThatThrownBy(() -> p.deliver(GrpcExportTest.oneLog())).isInstanceOf(IOException.class)
                .isNotInstanceOf(PermanentDeliveryException.class).hasMessageContaining("no answer");
        p.deliver(GrpcExportTest.oneLog());
        assertThat(receiver.logs).hasSize(1);
    }

    @Test
    void partialSuccessIsCountedNotRetried() throws Exception {
        OtlpProducer p = producer(Map.of());
        receiver.script.add(HttpReceiver.Answer.partial(2, "two dropped"));
        p.deliver(GrpcExportTest.mixedLogs(4));
        assertThat(receiver.calls.get()).isEqualTo(1);
        assertThat(Support.lastStats.counters()).anySatisfy(c -> {
            assertThat(c.name()).isEqualTo("sluice_otlp_rejected_total");
            assertThat(c.value().get()).isEqualTo(2);
        });
        assertThat(log.text()).contains("rejected 2 of 4 log records").contains("two dropped");
    }

    @Test
    void tooManyRequestsWaitsForRetryAfterThenDeliversOnce() throws Exception {
        receiver.script.add(HttpReceiver.Answer.status(429, Map.of("Retry-After", "1")));
        long t0 = System.nanoTime();
        PipelineHarness pl = start("");
        try {
            PipelineHarness.await("20 records", 20_000, () -> receiver.logRecords() == 20);
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(waited).isGreaterThanOrEqualTo(1000); // Retry/BackoffMs is 10: only Retry-After explains it
            assertThat(receiver.calls.get()).isEqualTo(2);
        } finally {
            pl.close();
        }
        assertThat(receiver.logRecords()).isEqualTo(20);
    }

    @Test
    void badRequestSendsTheBatchToTheFallbackStreamWithoutRetrying() throws Exception {
        receiver.script.add(HttpReceiver.Answer.status(400, Map.of()));
        PipelineHarness pl = start("  FallbackStream: failed\nFailed:\n  Type: test.Collect\n  Streams: failed\n");
        try {
            HarnessPlugins.Collect failed = pl.collect("Failed");
            PipelineHarness.await("20 messages in the fallback stream", 20_000, () -> failed.payloads.size() == 20);
            assertThat(receiver.calls.get()).isEqualTo(1);
            assertThat(pl.runner("Out").stats().failed()).isEqualTo(20);
        } finally {
            pl.close();
        }
        assertThat(receiver.logs).isEmpty();
    }

    /** consumer.Profiler (one batch of 20) into producer.OTLP over HTTP; {@code extra} follows the producer. */
    private PipelineHarness start(String extra) throws Exception {
        return PipelineHarness.builder()
                .yaml("Gen:\n  Type: consumer.Profiler\n  Runs: 20\n  Batches: 1\n  Streams: s\n"
                        + "Out:\n  Type: producer.OTLP\n  Streams: s\n  Protocol: http/protobuf\n  Endpoint: http://127.0.0.1:"
                        + receiver.port() + "\n  Retry/BackoffMs: 10\n" + extra).start();
    }
}
