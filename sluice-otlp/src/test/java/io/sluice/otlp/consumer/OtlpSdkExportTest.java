package io.sluice.otlp.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter;
import io.opentelemetry.exporter.otlp.metrics.OtlpGrpcMetricExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import io.opentelemetry.sdk.logs.export.SimpleLogRecordProcessor;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.resources.Resource;
import io.sluice.core.message.OtlpFields;
import io.sluice.core.testing.Captured;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real peers: the OpenTelemetry Java SDK's OTLP exporters (gRPC and HTTP/protobuf, plain and gzip) export logs
 * and metrics to consumer.OTLP, and what reaches the pipeline carries the body, attributes, resource and scope,
 * severity, trace and span ids, and metric values; each export succeeds only after delivery.
 */
@Timeout(60)
class OtlpSdkExportTest {
    static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
    static final String SPAN_ID = "b7ad6b7169203331";

    private Harness h;

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    /** Emits one log record through an SDK logger provider that exports with {@code exporter}; true when exported. */
    static boolean emitLog(LogRecordExporter exporter, String body) {
        SdkLoggerProvider provider = SdkLoggerProvider.builder()
                .setResource(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "checkout")))
                .addLogRecordProcessor(SimpleLogRecordProcessor.create(exporter)).build();
        try {
            Logger logger = provider.loggerBuilder("io.sluice.test").setInstrumentationVersion("1.2.3").build();
            Context ctx = Context.root().with(Span.wrap(SpanContext.create(TRACE_ID, SPAN_ID, TraceFlags.getSampled(),
                    TraceState.getDefault())));
            logger.logRecordBuilder().setBody(body).setSeverity(Severity.WARN).setSeverityText("WARN")
                    .setAttribute(AttributeKey.longKey("attempt"), 7L)
                    .setAttribute(AttributeKey.stringKey("user"), "ada")
                    .setTimestamp(1_700_000_000_123_456_789L, TimeUnit.NANOSECONDS)
                    .setContext(ctx).emit();
            CompletableResultCode r = provider.forceFlush().join(20, TimeUnit.SECONDS);
            return r.isSuccess();
        } finally {
            provider.shutdown().join(10, TimeUnit.SECONDS);
        }
    }

    /** Records a counter value and a gauge through an SDK meter provider exporting with {@code exporter}; true when exported. */
    static boolean recordMetrics(MetricExporter exporter) {
        PeriodicMetricReader reader = PeriodicMetricReader.builder(exporter).setInterval(Duration.ofHours(1)).build();
        SdkMeterProvider provider = SdkMeterProvider.builder()
                .setResource(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "checkout")))
                .registerMetricReader(reader).build();
        var meter = provider.get("io.sluice.test");
        meter.counterBuilder("orders").setUnit("1").build().add(5, Attributes.of(AttributeKey.stringKey("shop"), "north"));
        meter.gaugeBuilder("temperature").build().set(21.5);
        // shutting down collects and exports once (a flush before it would export the same points twice)
        return provider.shutdown().join(20, TimeUnit.SECONDS).isSuccess();
    }

    private void assertLog(Captured e, String body) {
        assertThat(e.payload()).isEqualTo(body);
        assertThat(e.timestamp()).isEqualTo(1_700_000_000_123_456_789L);
        Map<String, String> f = e.fields();
        assertThat(f).containsEntry(OtlpFields.SIGNAL, OtlpFields.SIGNAL_LOG)
                .containsEntry("attempt", "7")
                .containsEntry("user", "ada")
                .containsEntry("resource.service.name", "checkout")
                .containsEntry(OtlpFields.SCOPE_NAME, "io.sluice.test")
                .containsEntry(OtlpFields.SCOPE_VERSION, "1.2.3")
                .containsEntry(OtlpFields.SEVERITY_NUMBER, "13")
                .containsEntry(OtlpFields.SEVERITY_TEXT, "WARN")
                .containsEntry(OtlpFields.TRACE_ID, TRACE_ID)
                .containsEntry(OtlpFields.SPAN_ID, SPAN_ID);
    }

    @Test
    void logsOverGrpcPlainAndGzip() throws Exception {
        h = new Harness("sdk-grpc-logs", Map.of());
        for (String compression : List.of("none", "gzip")) {
            OtlpGrpcLogRecordExporter exporter = OtlpGrpcLogRecordExporter.builder()
                    .setEndpoint("http://127.0.0.1:" + h.grpcPort).setCompression(compression).build();
            assertThat(emitLog(exporter, "hello over gRPC " + compression)).isTrue();
        }
        List<Captured> got = h.received();
        assertThat(got).hasSize(2);
        assertLog(got.get(0), "hello over gRPC none");
        assertLog(got.get(1), "hello over gRPC gzip");
        assertThat(h.requestsOk()).isEqualTo(2);
        h.awaitBudgetEmpty();
    }

    @Test
    void logsOverHttpPlainAndGzip() throws Exception {
        h = new Harness("sdk-http-logs", Map.of());
        for (String compression : List.of("none", "gzip")) {
            OtlpHttpLogRecordExporter exporter = OtlpHttpLogRecordExporter.builder()
                    .setEndpoint(h.httpUrl("/v1/logs")).setCompression(compression).build();
            assertThat(emitLog(exporter, "hello over HTTP " + compression)).isTrue();
        }
        List<Captured> got = h.received();
        assertThat(got).hasSize(2);
        assertLog(got.get(0), "hello over HTTP none");
        assertLog(got.get(1), "hello over HTTP gzip");
        assertThat(h.requestsOk()).isEqualTo(2);
        h.awaitBudgetEmpty();
    }

    private void assertMetrics(List<Captured> got) {
        Captured orders = got.stream().filter(e -> e.payload().equals("orders")).findFirst().orElseThrow();
        assertThat(orders.fields()).containsEntry(OtlpFields.SIGNAL, OtlpFields.SIGNAL_METRIC)
                .containsEntry(OtlpFields.METRIC_TYPE, OtlpFields.TYPE_SUM)
                .containsEntry(OtlpFields.METRIC_VALUE_PREFIX + "orders", "5")
                .containsEntry("shop", "north")
                .containsEntry("resource.service.name", "checkout");
        Captured temp = got.stream().filter(e -> e.payload().equals("temperature")).findFirst().orElseThrow();
        assertThat(temp.fields()).containsEntry(OtlpFields.METRIC_TYPE, OtlpFields.TYPE_GAUGE)
                .containsEntry(OtlpFields.METRIC_VALUE_PREFIX + "temperature", "21.5");
    }

    @Test
    void metricsOverGrpcAndHttp() throws Exception {
        h = new Harness("sdk-metrics", Map.of());
        assertThat(recordMetrics(OtlpGrpcMetricExporter.builder().setEndpoint("http://127.0.0.1:" + h.grpcPort)
                .setCompression("gzip").build())).isTrue();
        assertThat(h.received()).hasSize(2);
        assertMetrics(h.received());
        h.out().clear();
        assertThat(recordMetrics(OtlpHttpMetricExporter.builder().setEndpoint(h.httpUrl("/v1/metrics")).build())).isTrue();
        assertThat(h.received()).hasSize(2);
        assertMetrics(h.received());
        h.awaitBudgetEmpty();
    }
}
