package io.sluice.otlp.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.PermanentDeliveryException;
import io.sluice.core.pipeline.RetryLaterException;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.otlp.TestMessages;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** producer.OTLP over gRPC against grpc-java serving the official generated LogsService and MetricsService. */
@Timeout(60)
class GrpcExportTest {
    private GrpcReceiver receiver;
    private OtlpProducer producer;
    private final PipelineHarness.MemoryLog log = new PipelineHarness.MemoryLog();

    @BeforeEach
    void startReceiver() throws Exception {
        receiver = new GrpcReceiver();
    }

    @AfterEach
    void stop() throws Exception {
        if (producer != null) {
            producer.close();
        }
        receiver.close();
    }

    private OtlpProducer producer(Map<String, Object> extra) throws Exception {
        Map<String, Object> s = new HashMap<>(extra);
        s.put("Endpoint", "127.0.0.1:" + receiver.port());
        producer = Support.producer(s, log.log);
        return producer;
    }

    /** Two resources, interleaved, with records of every kind of field; and metrics of every kind. */
    static TestMessages mixed() {
        TestMessages t = new TestMessages(16);
        t.add("first", 1_000_000_001L).log().str("resource.service.name", "api").str("scope.name", "s")
                .str("scope.version", "1").num("otlp.severity_number", "9").str("otlp.severity_text", "INFO")
                .str("otlp.trace_id", "000102030405060708090a0b0c0d0e0f").str("otlp.span_id", "0001020304050607")
                .num("otlp.observed_time_unix_nano", "1000000002").str("user", "ann").num("n", "3").num("x", "0.25")
                .bool("ok", true).json("list", "[1,\"a\"]").json("map", "{\"k\":false}").json("raw", "{\"bytesValue\":\"AP8=\"}");
        t.add("cpu", 2_000_000_000L).metric().str("resource.service.name", "api").str("scope.name", "s")
                .str("scope.version", "1").str("otlp.metric.type", "sum").num("otlp.metric.temporality", "2")
                .bool("otlp.metric.monotonic", true).num("metric_name:cpu", "12");
        t.add("second", 1_000_000_003L).log().str("resource.service.name", "db");
        t.add("{\"k\":[1,2]}", 1_000_000_004L).log().str("resource.service.name", "api").str("scope.name", "s")
                .str("scope.version", "1").str("otlp.body_type", "kvlist");
        t.add("lat", 2_000_000_001L).metric().str("resource.service.name", "api").str("otlp.metric.type", "histogram")
                .json("otlp.histogram", "{\"count\":2,\"sum\":3.5,\"bucketCounts\":[1,1],\"explicitBounds\":[2.0]}");
        t.add("size", 2_000_000_002L).metric().str("otlp.metric.type", "exponential_histogram")
                .json("otlp.exponential_histogram", "{\"count\":1,\"scale\":2,\"positive\":{\"offset\":1,\"bucketCounts\":[1]}}");
        t.add("q", 2_000_000_003L).metric().str("otlp.metric.type", "summary")
                .json("otlp.summary", "{\"count\":1,\"sum\":2.0,\"quantileValues\":[{\"quantile\":0.5,\"value\":2.0}]}");
        t.add("g", 2_000_000_004L).metric().str("otlp.metric.type", "gauge").num("metric_name:g", "-1.5");
        t.add("from forward", 3_000_000_000L).str("host", "web").tag("app");
        return t;
    }

    static KeyValue kv(String k, AnyValue v) {
        return KeyValue.newBuilder().setKey(k).setValue(v).build();
    }

    @Test
    void logsAndMetricsArriveFieldByFieldGzipped() throws Exception {
        OtlpProducer p = producer(Map.of("Headers", Map.of("X-Tenant", "t1")));
        Batch b = mixed().batch();
        p.deliver(b);
        assertThat(receiver.logs).hasSize(1);
        assertThat(receiver.metrics).hasSize(1);
        assertThat(receiver.calls.get()).isEqualTo(2);
        for (io.grpc.Metadata h : receiver.headers) {
            assertThat(h.get(GrpcReceiver.GRPC_ENCODING)).isEqualTo("gzip");
            assertThat(h.get(io.grpc.Metadata.Key.of("x-tenant", io.grpc.Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("t1");
        }

        ExportLogsServiceRequest logs = receiver.logs.get(0);
        assertThat(logs.getResourceLogsCount()).isEqualTo(3); // api, db, the empty resource of the Forward message
        ResourceLogs api = logs.getResourceLogs(0);
        assertThat(api.getResource().getAttributesList()).containsExactly(
                kv("service.name", AnyValue.newBuilder().setStringValue("api").build()));
        assertThat(api.getScopeLogsCount()).isEqualTo(1);
        assertThat(api.getScopeLogs(0).getScope().getName()).isEqualTo("s");
        assertThat(api.getScopeLogs(0).getScope().getVersion()).isEqualTo("1");
        List<LogRecord> recs = api.getScopeLogs(0).getLogRecordsList();
        assertThat(recs).hasSize(2);
        LogRecord first = recs.get(0);
        assertThat(first.getTimeUnixNano()).isEqualTo(1_000_000_001L);
        assertThat(first.getObservedTimeUnixNano()).isEqualTo(1_000_000_002L);
        assertThat(first.getSeverityNumber()).isEqualTo(SeverityNumber.SEVERITY_NUMBER_INFO);
        assertThat(first.getSeverityText()).isEqualTo("INFO");
        assertThat(first.getBody().getStringValue()).isEqualTo("first");
        assertThat(first.getTraceId().toByteArray()).hasSize(16).startsWith(0, 1, 2).endsWith(15);
        assertThat(first.getSpanId().toByteArray()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(first.getAttributesList()).extracting(KeyValue::getKey).containsExactly("user", "n", "x", "ok", "list", "map", "raw");
        assertThat(first.getAttributes(0).getValue().getStringValue()).isEqualTo("ann");
        assertThat(first.getAttributes(1).getValue().getIntValue()).isEqualTo(3);
        assertThat(first.getAttributes(2).getValue().getDoubleValue()).isEqualTo(0.25);
        assertThat(first.getAttributes(3).getValue().getBoolValue()).isTrue();
        assertThat(first.getAttributes(4).getValue().getArrayValue().getValuesList()).extracting(AnyValue::toString)
                .containsExactly("int_value: 1\n", "string_value: \"a\"\n");
        assertThat(first.getAttributes(5).getValue().getKvlistValue().getValues(0)).isEqualTo(
                kv("k", AnyValue.newBuilder().setBoolValue(false).build()));
        assertThat(first.getAttributes(6).getValue().getBytesValue().toByteArray()).containsExactly(0, -1);
        assertThat(recs.get(1).getBody().getKvlistValue().getValues(0).getValue().getArrayValue().getValuesCount()).isEqualTo(2);
        assertThat(logs.getResourceLogs(1).getScopeLogs(0).getLogRecords(0).getBody().getStringValue()).isEqualTo("second");
        LogRecord fwd = logs.getResourceLogs(2).getScopeLogs(0).getLogRecords(0);
        assertThat(fwd.getAttributesList()).extracting(KeyValue::getKey).containsExactly("host", "fluent.tag");
        assertThat(fwd.getTimeUnixNano()).isEqualTo(3_000_000_000L);
        assertThat(fwd.getObservedTimeUnixNano()).isEqualTo(3_000_000_000L);

        ExportMetricsServiceRequest metrics = receiver.metrics.get(0);
        assertThat(metrics.getResourceMetricsCount()).isEqualTo(2); // api; the empty resource
        List<ScopeMetrics> apiScopes = metrics.getResourceMetrics(0).getScopeMetricsList();
        assertThat(apiScopes).hasSize(2); // scope s (the sum), the empty scope (the histogram)
        Metric cpu = apiScopes.get(0).getMetrics(0);
        assertThat(cpu.getName()).isEqualTo("cpu");
        assertThat(cpu.getSum().getIsMonotonic()).isTrue();
        assertThat(cpu.getSum().getDataPoints(0).getAsInt()).isEqualTo(12);
        assertThat(cpu.getSum().getDataPoints(0).getTimeUnixNano()).isEqualTo(2_000_000_000L);
        Metric lat = apiScopes.get(1).getMetrics(0);
        assertThat(lat.getHistogram().getDataPoints(0).getBucketCountsList()).containsExactly(1L, 1L);
        assertThat(lat.getHistogram().getDataPoints(0).getSum()).isEqualTo(3.5);
        List<Metric> rest = metrics.getResourceMetrics(1).getScopeMetrics(0).getMetricsList();
        assertThat(rest).extracting(Metric::getName).containsExactly("size", "q", "g");
        assertThat(rest.get(0).getExponentialHistogram().getDataPoints(0).getPositive().getBucketCountsList()).containsExactly(1L);
        assertThat(rest.get(1).getSummary().getDataPoints(0).getQuantileValues(0).getValue()).isEqualTo(2.0);
        assertThat(rest.get(2).getGauge().getDataPoints(0).getAsDouble()).isEqualTo(-1.5);
    }

    @Test
    void uncompressedWhenCompressionIsNoneAndSplitByBatchMaxRecords() throws Exception {
        OtlpProducer p = producer(Map.of("Compression", "none", "BatchMaxRecords", 3));
        TestMessages t = new TestMessages(10);
        for (int i = 0; i < 10; i++) {
            t.add("m" + i, i + 1).log();
        }
        p.deliver(t.batch());
        assertThat(receiver.logs).hasSize(4);
        assertThat(receiver.logRecords()).isEqualTo(10);
        assertThat(receiver.logs.get(3).getResourceLogs(0).getScopeLogs(0).getLogRecords(0).getBody().getStringValue())
                .isEqualTo("m9");
        assertThat(receiver.headers.get(0).get(GrpcReceiver.GRPC_ENCODING)).isNull();
    }

    @Test
    void aThreeMegabyteRequestCrossesHttp2FlowControl() throws Exception {
        OtlpProducer p = producer(Map.of("Compression", "none"));
        TestMessages t = new TestMessages(300);
        for (int i = 0; i < 300; i++) {
            t.add(Integer.toString(i).repeat(10_000 / Integer.toString(i).length()), i + 1).log();
        }
        p.deliver(t.batch());
        assertThat(receiver.logs).hasSize(1);
        assertThat(receiver.logs.get(0).getSerializedSize()).isGreaterThan(2_900_000);
        assertThat(receiver.logRecords()).isEqualTo(300);
        assertThat(receiver.logs.get(0).getResourceLogs(0).getScopeLogs(0).getLogRecords(299).getBody().getStringValue())
                .startsWith("299299");
    }

    @Test
    void requestsAreCutByBatchMaxBytes() throws Exception {
        OtlpProducer p = producer(Map.of("BatchMaxBytes", 3000));
        TestMessages t = new TestMessages(10);
        for (int i = 0; i < 10; i++) {
            t.add(("m" + i).repeat(500), i + 1).log().str("resource.r", "x");
        }
        p.deliver(t.batch());
        assertThat(receiver.logRecords()).isEqualTo(10);
        assertThat(receiver.logs).hasSizeGreaterThanOrEqualTo(4);
        for (ExportLogsServiceRequest r : receiver.logs) {
            assertThat(r.getSerializedSize()).isLessThanOrEqualTo(3000);
        }
    }

    @Test
    void resourceExhaustedWithoutRetryInfoIsPermanentAndWithItRetryableAfterTheDelay() throws Exception {
        OtlpProducer p = producer(Map.of());
        receiver.script.add(GrpcReceiver.Answer.fail(Status.Code.RESOURCE_EXHAUSTED, "too much"));
        assertThatThrownBy(() -> p.deliver(oneLog())).isInstanceOf(PermanentDeliveryException.class)
                .hasMessageContaining("RESOURCE_EXHAUSTED").hasMessageContaining("too much");
        receiver.script.add(GrpcReceiver.Answer.failRetryAfter(Status.Code.RESOURCE_EXHAUSTED, 1500));
        assertThatThrownBy(() -> p.deliver(oneLog())).isInstanceOfSatisfying(RetryLaterException.class,
                e -> assertThat(e.retryAfterMillis()).isEqualTo(1500));
        assertThat(receiver.calls.get()).isEqualTo(2);
        assertThat(receiver.logs).isEmpty();
    }

    @Test
    void eachRetryableCodeIsRetryableAndOthersPermanent() throws Exception {
        OtlpProducer p = producer(Map.of());
        for (Status.Code c : List.of(Status.Code.CANCELLED, Status.Code.DEADLINE_EXCEEDED, Status.Code.ABORTED,
                Status.Code.OUT_OF_RANGE, Status.Code.UNAVAILABLE, Status.Code.DATA_LOSS)) {
            receiver.script.add(GrpcReceiver.Answer.fail(c, "x"));
            Batch b = oneLog();
            assertThatThrownBy(() -> p.deliver(b)).as(c.name()).isInstanceOf(IOException.class)
                    .hasMessageContaining(c.name());
            assertThat(b.get(0).metadata().indexOf(OtlpProducer.ERROR_FIELD)).isNegative(); // retried as it came
        }
        for (Status.Code c : List.of(Status.Code.INVALID_ARGUMENT, Status.Code.UNAUTHENTICATED, Status.Code.INTERNAL,
                Status.Code.PERMISSION_DENIED, Status.Code.UNIMPLEMENTED)) {
            receiver.script.add(GrpcReceiver.Answer.fail(c, "x"));
            Batch b = oneLog();
            assertThatThrownBy(() -> p.deliver(b)).as(c.name()).isInstanceOf(PermanentDeliveryException.class);
            assertThat(b.get(0).metadata().getString(OtlpProducer.ERROR_FIELD)).isEqualTo("gRPC " + c.name() + ": x");
        }
    }

    @Test
    void partialSuccessIsCountedAndLoggedNotRetried() throws Exception {
        OtlpProducer p = producer(Map.of());
        receiver.script.add(GrpcReceiver.Answer.partial(3, "3 records too old"));
        p.deliver(mixedLogs(5));
        assertThat(receiver.calls.get()).isEqualTo(1);
        assertThat(Support.lastStats.counters()).anySatisfy(c -> {
            assertThat(c.name()).isEqualTo("sluice_otlp_rejected_total"); // exported on /metrics
            assertThat(c.value().get()).isEqualTo(3);
        });
        assertThat(log.text()).contains("rejected 3 of 5 log records").contains("3 records too old");
    }

    @Test
    void whenMetricsFailAfterLogsWereAcceptedOnlyTheMetricsAreLeftToRetry() throws Exception {
        OtlpProducer p = producer(Map.of());
        Batch b = mixed().batch();
        receiver.script.add(new GrpcReceiver.Answer(0, "", -1, 0)); // logs: OK
        receiver.script.add(GrpcReceiver.Answer.fail(Status.Code.UNAVAILABLE, "restarting")); // metrics
        assertThatThrownBy(() -> p.deliver(b)).isInstanceOf(IOException.class).isNotInstanceOf(PermanentDeliveryException.class);
        assertThat(b.size()).isEqualTo(5); // the five metric messages
        p.deliver(b); // the pipeline's retry
        assertThat(receiver.logs).hasSize(1);
        assertThat(receiver.metrics).hasSize(1);
        assertThat(receiver.calls.get()).isEqualTo(3);
    }

    @Test
    void unavailableThenOkThroughThePipelineDeliversOnce() throws Exception {
        receiver.script.add(GrpcReceiver.Answer.fail(Status.Code.UNAVAILABLE, "not yet"));
        PipelineHarness pl = PipelineHarness.builder()
                .yaml("Gen:\n  Type: consumer.Profiler\n  Runs: 50\n  Batches: 1\n  Streams: s\n"
                        + "Out:\n  Type: producer.OTLP\n  Streams: s\n  Endpoint: 127.0.0.1:" + receiver.port()
                        + "\n  Retry/BackoffMs: 10\n").start();
        try {
            PipelineHarness.await("50 records", 20_000, () -> receiver.logRecords() == 50);
            PipelineHarness.await("delivered", 5_000, () -> pl.runner("Out").stats().out() == 50);
            assertThat(receiver.calls.get()).isEqualTo(2);
            assertThat(pl.runner("Out").stats().retried()).isEqualTo(50);
        } finally {
            pl.close();
        }
        assertThat(receiver.logRecords()).isEqualTo(50);
    }

    @Test
    void aCallWithoutAnswerTimesOutRetryablyAndTheConnectionServesTheNext() throws Exception {
        OtlpProducer p = producer(Map.of("TimeoutMs", 300));
        receiver.script.add(GrpcReceiver.Answer.hang());
        long t0 = System.nanoTime();
        // grpc-java's server enforces the grpc-timeout it is sent and resets the stream at that deadline, which
        // can reach the client just before its own timer fires on a loaded machine: either way the call ended
        // unanswered at the deadline.
        assertThatThrownBy(() -> p.deliver(oneLog())).isInstanceOf(IOException.class)
                .isNotInstanceOf(PermanentDeliveryException.class)
                .hasMessageMatching(".*(no answer from .* within 300 ms|stream closed before the answer)");
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(300_000_000L);
        assertThat(receiver.headers.get(0).get(io.grpc.Metadata.Key.of("grpc-timeout", io.grpc.Metadata.ASCII_STRING_MARSHALLER)))
                .isNotNull();
        p.deliver(oneLog());
        assertThat(receiver.logRecords()).isEqualTo(1);
    }

    @Test
    void noServerIsRetryable() throws Exception {
        int port = receiver.port();
        receiver.close();
        Map<String, Object> s = new HashMap<>();
        s.put("Endpoint", "127.0.0.1:" + port);
        s.put("TimeoutMs", 2000);
        producer = Support.producer(s, log.log);
        assertThatThrownBy(() -> producer.deliver(oneLog())).isInstanceOf(IOException.class)
                .isNotInstanceOf(PermanentDeliveryException.class);
        assertThat(producer.isReady()).isFalse();
        receiver = new GrpcReceiver(); // for @AfterEach
    }

    static Batch oneLog() {
        TestMessages t = new TestMessages(1);
        t.add("x", 1).log();
        return t.batch();
    }

    static Batch mixedLogs(int n) {
        TestMessages t = new TestMessages(n);
        for (int i = 0; i < n; i++) {
            t.add("r" + i, i + 1).log().str("resource.r", "r" + (i % 2));
        }
        return t.batch();
    }
}
