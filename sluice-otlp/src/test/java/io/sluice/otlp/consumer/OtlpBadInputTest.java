package io.sluice.otlp.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.PipelineHarness;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What consumer.OTLP answers to bad input, over OTLP/HTTP (curl) and OTLP/gRPC (grpc-java): the spec's status, a
 * google.rpc.Status body (as the official classes parse it), the refusal counted by reason, nothing delivered and
 * the budget back to zero; and what is merely unusual (unknown fields, JSON) is accepted.
 */
@Timeout(60)
class OtlpBadInputTest {
    private static final String PROTO = "Content-Type: application/x-protobuf";
    private static final String JSON = "Content-Type: application/json";

    private Harness h;

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    private Harness start(Map<String, Object> settings) throws Exception {
        h = new Harness("bad-input", settings);
        return h;
    }

    private static com.google.rpc.Status status(Harness.Reply r) throws Exception {
        return com.google.rpc.Status.parseFrom(r.body());
    }

    @Test
    void unknownPathWrongMethodAndWrongContentTypeOverHttp() throws Exception {
        start(Map.of());
        byte[] body = Requests.logsBytes(1);
        Harness.Reply r = Harness.curl(h.httpUrl("/v1/traces"), body, "-H", PROTO);
        assertThat(r.status()).isEqualTo(404);
        assertThat(status(r).getCode()).isEqualTo(Status.Code.UNIMPLEMENTED.value());
        r = Harness.curl(h.httpUrl("/v1/logs"), null, "-X", "GET");
        assertThat(r.status()).isEqualTo(405);
        assertThat(r.headers()).containsEntry("allow", "POST");
        r = Harness.curl(h.httpUrl("/v1/logs"), body, "-H", "Content-Type: text/plain");
        assertThat(r.status()).isEqualTo(415);
        assertThat(h.stats().rejected(Rejection.MALFORMED)).isEqualTo(3);
        assertThat(h.received()).isEmpty();
        h.awaitBudgetEmpty();
    }

    @Test
    void truncatedProtobufAndBadGzipAre400() throws Exception {
        start(Map.of());
        byte[] body = Requests.logsBytes(3);
        Harness.Reply r = Harness.curl(h.httpUrl("/v1/logs"), Arrays.copyOf(body, body.length - 4), "-H", PROTO);
        assertThat(r.status()).isEqualTo(400);
        assertThat(status(r).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT.value());
        assertThat(status(r).getMessage()).isNotEmpty();
        r = Harness.curl(h.httpUrl("/v1/logs"), "not gzip at all, not at all".getBytes(), "-H", PROTO,
                "-H", "Content-Encoding: gzip");
        assertThat(r.status()).isEqualTo(400);
        assertThat(status(r).getMessage()).contains("gzip");
        byte[] gz = Harness.gzip(body);
        gz[gz.length - 6] ^= 0x55; // the CRC no longer matches
        r = Harness.curl(h.httpUrl("/v1/logs"), gz, "-H", PROTO, "-H", "Content-Encoding: gzip");
        assertThat(r.status()).isEqualTo(400);
        // the JSON answer to malformed JSON
        r = Harness.curl(h.httpUrl("/v1/logs"), "{\"resourceLogs\":[{".getBytes(), "-H", JSON);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.headers().get("content-type")).isEqualTo("application/json");
        assertThat(r.text()).startsWith("{\"code\":3,\"message\":");
        assertThat(h.stats().rejected(Rejection.MALFORMED)).isEqualTo(4);
        assertThat(h.received()).isEmpty();
        h.awaitBudgetEmpty();
    }

    @Test
    void oversizedBeforeAndAfterGzipIs413() throws Exception {
        start(Map.of("MaxRequestSize", 4096));
        Harness.Reply r = Harness.curl(h.httpUrl("/v1/logs"), new byte[5000], "-H", PROTO);
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.headers()).doesNotContainKey("retry-after");
        r = Harness.curl(h.httpUrl("/v1/logs"), Harness.gzip(new byte[100_000]), "-H", PROTO,
                "-H", "Content-Encoding: gzip");
        assertThat(r.status()).isEqualTo(413);
        try (GrpcPeer g = new GrpcPeer(h.grpcPort)) {
            GrpcPeer.Result res = g.call(GrpcPeer.LOGS, new byte[5000], null);
            assertThat(res.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(res.retrySeconds()).isEqualTo(-1); // not retryable: no RetryInfo
        }
        assertThat(h.stats().rejected(Rejection.TOO_LARGE)).isEqualTo(3);
        assertThat(h.received()).isEmpty();
        h.awaitBudgetEmpty();
    }

    @Test
    void grpcUnknownMethodAndTruncatedMessage() throws Exception {
        start(Map.of());
        try (GrpcPeer g = new GrpcPeer(h.grpcPort)) {
            assertThat(g.call(GrpcPeer.TRACES, new byte[0], null).code()).isEqualTo(Status.Code.UNIMPLEMENTED);
            byte[] body = Requests.logsBytes(3);
            GrpcPeer.Result r = g.call(GrpcPeer.LOGS, Arrays.copyOf(body, body.length - 4), null);
            assertThat(r.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(r.message()).isNotEmpty();
        }
        assertThat(h.stats().rejected(Rejection.MALFORMED)).isEqualTo(2);
        assertThat(h.received()).isEmpty();
        h.awaitBudgetEmpty();
    }

    @Test
    void unknownFieldsAreAccepted() throws Exception {
        start(Map.of());
        Harness.Reply r = Harness.curl(h.httpUrl("/v1/logs"), Requests.withUnknownField(Requests.logsBytes(2)), "-H", PROTO);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.headers().get("content-type")).isEqualTo("application/x-protobuf");
        assertThat(ExportLogsServiceResponse.parseFrom(r.body()).hasPartialSuccess()).isFalse();
        try (GrpcPeer g = new GrpcPeer(h.grpcPort)) {
            GrpcPeer.Result res = g.call(GrpcPeer.LOGS, Requests.withUnknownField(Requests.logsBytes(1)), null);
            assertThat(res.code()).isEqualTo(Status.Code.OK);
            assertThat(ExportLogsServiceResponse.parseFrom(res.response()).hasPartialSuccess()).isFalse();
        }
        assertThat(h.received()).extracting(Captured::payload).containsExactly("line 0", "line 1", "line 0");
        assertThat(h.received().get(1).fields()).containsEntry("i", "1").containsEntry("resource.service.name", "curl");
        assertThat(h.requestsOk()).isEqualTo(2);
        h.awaitBudgetEmpty();
    }

    @Test
    void otlpJsonIsDecodedAndAnsweredInJson() throws Exception {
        start(Map.of());
        Harness.Reply r = Harness.curl(h.httpUrl("/v1/logs"), Requests.logsJson(2), "-H", JSON);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.headers().get("content-type")).isEqualTo("application/json");
        assertThat(r.text()).isEqualTo("{}");
        r = Harness.curl(h.httpUrl("/v1/logs"), Harness.gzip(Requests.logsJson(1)), "-H", JSON, "-H", "Content-Encoding: gzip");
        assertThat(r.status()).isEqualTo(200);
        assertThat(h.received()).extracting(Captured::payload).containsExactly("line 0", "line 1", "line 0");
        assertThat(h.received().get(1).fields()).containsEntry("i", "1").containsEntry("resource.service.name", "curl");
        assertThat(h.received().get(1).timestamp()).isEqualTo(1_700_000_000_000_000_001L);
        assertThat(h.requestsOk()).isEqualTo(2);
        h.awaitBudgetEmpty();
    }

    @Test
    void otlpJsonMetrics() throws Exception {
        start(Map.of());
        byte[] body = ("{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"queue.depth\",\"gauge\":"
                + "{\"dataPoints\":[{\"asDouble\":1.5,\"timeUnixNano\":\"7\"},{\"asInt\":\"3\",\"timeUnixNano\":\"8\"}]}}]}]}]}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Harness.Reply r = Harness.curl(h.httpUrl("/v1/metrics"), body, "-H", JSON);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("{}");
        assertThat(h.received()).extracting(e -> e.fields().get("metric_name:queue.depth")).containsExactly("1.5", "3");
        assertThat(h.received()).extracting(Captured::timestamp).containsExactly(7L, 8L);
        h.awaitBudgetEmpty();
    }

    @Test
    void bearerTokens() throws Exception {
        start(Map.of("BearerTokens", java.util.List.of("s3cret", "other")));
        byte[] body = Requests.logsBytes(1);
        Harness.Reply r = Harness.curl(h.httpUrl("/v1/logs"), body, "-H", PROTO);
        assertThat(r.status()).isEqualTo(401);
        r = Harness.curl(h.httpUrl("/v1/logs"), body, "-H", PROTO, "-H", "Authorization: Bearer s3cre");
        assertThat(r.status()).isEqualTo(401);
        r = Harness.curl(h.httpUrl("/v1/logs"), body, "-H", PROTO, "-H", "Authorization: Bearer other");
        assertThat(r.status()).isEqualTo(200);
        try (GrpcPeer g = new GrpcPeer(h.grpcPort)) {
            assertThat(g.call(GrpcPeer.LOGS, body, null).code()).isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(g.call(GrpcPeer.LOGS, body, "wrong").code()).isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(g.call(GrpcPeer.LOGS, body, "s3cret").code()).isEqualTo(Status.Code.OK);
        }
        assertThat(h.stats().rejected(Rejection.AUTH)).isEqualTo(4);
        assertThat(h.received()).hasSize(2);
        h.awaitBudgetEmpty();
    }

    /** An API-key header instead of Authorization: the SDK exporters send it with their headers option. */
    @Test
    void aTokenInAnApiKeyHeader() throws Exception {
        start(Map.of("BearerTokens", java.util.List.of("k-123"), "AuthHeader", "X-Api-Key"));
        byte[] body = Requests.logsBytes(1);
        assertThat(Harness.curl(h.httpUrl("/v1/logs"), body, "-H", PROTO, "-H", "Authorization: Bearer k-123").status())
                .as("the token in another header").isEqualTo(401);
        assertThat(Harness.curl(h.httpUrl("/v1/logs"), body, "-H", PROTO, "-H", "X-Api-Key: k-12").status()).isEqualTo(401);
        assertThat(Harness.curl(h.httpUrl("/v1/logs"), body, "-H", PROTO, "-H", "x-api-key: k-123").status()).isEqualTo(200);

        var exporter = io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter.builder()
                .setEndpoint("http://127.0.0.1:" + h.grpcPort).addHeader("X-Api-Key", "k-123").build();
        try (var provider = io.opentelemetry.sdk.logs.SdkLoggerProvider.builder()
                .addLogRecordProcessor(io.opentelemetry.sdk.logs.export.SimpleLogRecordProcessor.create(exporter)).build()) {
            provider.get("auth").logRecordBuilder().setBody("with the key").emit();
            assertThat(provider.forceFlush().join(10, java.util.concurrent.TimeUnit.SECONDS).isSuccess()).isTrue();
        }
        PipelineHarness.await("both accepted records", 10_000, () -> h.received().size() == 2);
        assertThat(h.received()).extracting(Captured::payload).contains("with the key");
        assertThat(h.stats().rejected(Rejection.AUTH)).isEqualTo(2);
        h.awaitBudgetEmpty();
    }
}
