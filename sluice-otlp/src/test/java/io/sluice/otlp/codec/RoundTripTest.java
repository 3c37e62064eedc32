package io.sluice.otlp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.sluice.core.message.Batch;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * OTLP in → OTLP out is lossless: the decoder's corpus (every field of the log and metric protos, every value type,
 * every metric kind, exemplars) decoded into messages by consumer.OTLP's decoders, encoded back by producer.OTLP's
 * encoders, and parsed with the official generated classes, equals what was sent, field by field.
 *
 * <p>Equal up to what OTLP itself says carries no information, which {@link #normalized} removes from the expected
 * request: a resource, scope or metric without any record or point (there is no message to carry it), an absent resource (the same as an empty one), and trace or span ids of all
 * zeros (the spec's "invalid", that is unset, id), a body that is the empty value (null) rather than absent. The one documented loss of the message model is also applied
 * there: a double attribute that is NaN or infinite comes back as the string OTLP JSON spells it with.
 */
class RoundTripTest {

    private static Batch decodeLogs(byte[] wire) throws OtlpFormatException {
        Decoded sink = new Decoded();
        int n = new LogsDecoder().decode(wire, 0, wire.length, sink);
        assertThat(n).isEqualTo(sink.size());
        return sink.batch;
    }

    @Test
    void everyLogFieldAndValueTypeComesBackAsSent() throws Exception {
        ExportLogsServiceRequest sent = OtlpCorpus.logs();
        Batch batch = decodeLogs(sent.toByteArray());
        LogsEncoder encoder = new LogsEncoder();
        int records = encoder.encode(batch, 0, batch.size(), 0);
        ExportLogsServiceRequest back = ExportLogsServiceRequest.parseFrom(
                java.util.Arrays.copyOf(encoder.buffer(), encoder.length()));

        assertThat(records).isEqualTo(batch.size());
        ExportLogsServiceRequest expected = normalized(sent);
        assertThat(back.getResourceLogsCount()).isEqualTo(expected.getResourceLogsCount());
        for (int i = 0; i < expected.getResourceLogsCount(); i++) {
            ResourceLogs e = expected.getResourceLogs(i);
            ResourceLogs a = back.getResourceLogs(i);
            assertThat(a.getResource()).as("resource %d", i).isEqualTo(e.getResource());
            assertThat(a.getSchemaUrl()).isEqualTo(e.getSchemaUrl());
            assertThat(a.getScopeLogsCount()).isEqualTo(e.getScopeLogsCount());
            for (int j = 0; j < e.getScopeLogsCount(); j++) {
                ScopeLogs es = e.getScopeLogs(j);
                ScopeLogs as = a.getScopeLogs(j);
                assertThat(as.getScope()).as("scope %d/%d", i, j).isEqualTo(es.getScope());
                assertThat(as.getSchemaUrl()).isEqualTo(es.getSchemaUrl());
                assertThat(as.getLogRecordsCount()).isEqualTo(es.getLogRecordsCount());
                for (int k = 0; k < es.getLogRecordsCount(); k++) {
                    assertThat(as.getLogRecords(k)).as("record %d/%d/%d", i, j, k).isEqualTo(es.getLogRecords(k));
                }
            }
        }
        assertThat(back).isEqualTo(expected);
    }

    @Test
    void theBenchmarkShapeComesBackAsSent() throws Exception {
        ExportLogsServiceRequest sent = OtlpCorpus.benchmarkLogs(1000);
        Batch batch = decodeLogs(sent.toByteArray());
        LogsEncoder encoder = new LogsEncoder();
        encoder.encode(batch, 0, batch.size(), 0);
        ExportLogsServiceRequest back = ExportLogsServiceRequest.parseFrom(
                java.util.Arrays.copyOf(encoder.buffer(), encoder.length()));
        assertThat(back).isEqualTo(normalized(sent));
    }

    @Test
    void everyMetricKindComesBackAsSent() throws Exception {
        ExportMetricsServiceRequest sent = OtlpCorpus.metricsRequest();
        byte[] wire = sent.toByteArray();
        Decoded sink = new Decoded();
        int points = new MetricsDecoder().decode(wire, 0, wire.length, sink);
        assertThat(points).isEqualTo(sink.size()).isGreaterThan(0);
        MetricsEncoder encoder = new MetricsEncoder();
        encoder.encode(sink.batch, 0, sink.size(), 0);
        ExportMetricsServiceRequest back = ExportMetricsServiceRequest.parseFrom(
                java.util.Arrays.copyOf(encoder.buffer(), encoder.length()));

        ExportMetricsServiceRequest expected = normalized(sent);
        assertThat(back.getResourceMetricsCount()).isEqualTo(expected.getResourceMetricsCount());
        for (int i = 0; i < expected.getResourceMetricsCount(); i++) {
            ResourceMetrics e = expected.getResourceMetrics(i);
            ResourceMetrics a = back.getResourceMetrics(i);
            assertThat(a.getResource()).isEqualTo(e.getResource());
            for (int j = 0; j < e.getScopeMetricsCount(); j++) {
                ScopeMetrics es = e.getScopeMetrics(j);
                ScopeMetrics as = a.getScopeMetrics(j);
                assertThat(as.getScope()).isEqualTo(es.getScope());
                assertThat(as.getMetricsList()).extracting(m -> m.getName() + "/" + m.getDataCase())
                        .as("metrics of scope %d/%d", i, j)
                        .containsExactlyElementsOf(es.getMetricsList().stream()
                                .map(m -> m.getName() + "/" + m.getDataCase()).toList());
                for (int k = 0; k < es.getMetricsCount(); k++) {
                    assertThat(as.getMetrics(k)).as("metric %d/%d/%d", i, j, k).isEqualTo(es.getMetrics(k));
                }
            }
        }
        assertThat(back).isEqualTo(expected);
    }

    // ----------------------------------------------------------------------------------- what OTLP calls equal

    static ExportLogsServiceRequest normalized(ExportLogsServiceRequest req) {
        ExportLogsServiceRequest.Builder b = ExportLogsServiceRequest.newBuilder();
        for (ResourceLogs rl : req.getResourceLogsList()) {
            ResourceLogs.Builder r = rl.toBuilder().clearScopeLogs();
            // getResourceBuilder makes an absent resource an empty one: the same thing (encoders write it always)
            r.getResourceBuilder().clearAttributes().addAllAttributes(attributes(rl.getResource().getAttributesList()));
            for (ScopeLogs sl : rl.getScopeLogsList()) {
                if (sl.getLogRecordsCount() == 0) {
                    continue;
                }
                ScopeLogs.Builder s = sl.toBuilder().clearLogRecords();
                s.getScopeBuilder().clearAttributes().addAllAttributes(attributes(sl.getScope().getAttributesList()));
                for (LogRecord lr : sl.getLogRecordsList()) {
                    s.addLogRecords(record(lr));
                }
                r.addScopeLogs(s);
            }
            if (r.getScopeLogsCount() > 0) {
                b.addResourceLogs(r);
            }
        }
        return b.build();
    }

    private static LogRecord record(LogRecord lr) {
        LogRecord.Builder b = lr.toBuilder().clearAttributes().addAllAttributes(attributes(lr.getAttributesList()));
        if (allZero(lr.getTraceId())) {
            b.clearTraceId();
        }
        if (allZero(lr.getSpanId())) {
            b.clearSpanId();
        }
        if (lr.hasBody() && lr.getBody().getValueCase() == AnyValue.ValueCase.VALUE_NOT_SET) {
            b.clearBody(); // a body holding the empty value is no body (OTLP: an empty AnyValue is null)
        } else if (lr.getBody().hasArrayValue() || lr.getBody().hasKvlistValue()) {
            b.setBody(value(lr.getBody())); // a double body itself is kept as one (otlp.body_type says so)
        }
        return b.build();
    }

    static ExportMetricsServiceRequest normalized(ExportMetricsServiceRequest req) {
        ExportMetricsServiceRequest.Builder b = ExportMetricsServiceRequest.newBuilder();
        for (ResourceMetrics rm : req.getResourceMetricsList()) {
            ResourceMetrics.Builder r = rm.toBuilder().clearScopeMetrics();
            r.getResourceBuilder(); // an absent resource and an empty one are the same (encoders write it always)
            for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                ScopeMetrics.Builder s = sm.toBuilder().clearMetrics();
                sm.getMetricsList().stream().filter(m -> points(m) > 0).forEach(s::addMetrics);
                if (s.getMetricsCount() > 0) {
                    r.addScopeMetrics(s);
                }
            }
            if (r.getScopeMetricsCount() > 0) {
                b.addResourceMetrics(r);
            }
        }
        return b.build();
    }

    private static int points(Metric m) {
        return switch (m.getDataCase()) {
            case GAUGE -> m.getGauge().getDataPointsCount();
            case SUM -> m.getSum().getDataPointsCount();
            case HISTOGRAM -> m.getHistogram().getDataPointsCount();
            case EXPONENTIAL_HISTOGRAM -> m.getExponentialHistogram().getDataPointsCount();
            case SUMMARY -> m.getSummary().getDataPointsCount();
            default -> 0;
        };
    }

    private static boolean allZero(ByteString id) {
        for (int i = 0; i < id.size(); i++) {
            if (id.byteAt(i) != 0) {
                return false;
            }
        }
        return true;
    }

    private static List<KeyValue> attributes(List<KeyValue> kvs) {
        return kvs.stream().map(kv -> kv.toBuilder().setValue(value(kv.getValue())).build()).toList();
    }

    /** The message model's one loss: a NaN or infinite double is kept as OTLP JSON's string for it. */
    private static AnyValue value(AnyValue v) {
        switch (v.getValueCase()) {
            case DOUBLE_VALUE:
                double d = v.getDoubleValue();
                if (Double.isNaN(d) || Double.isInfinite(d)) {
                    return AnyValue.newBuilder().setStringValue(Double.isNaN(d) ? "NaN"
                            : d > 0 ? "Infinity" : "-Infinity").build();
                }
                return v;
            case ARRAY_VALUE:
                ArrayValue.Builder a = ArrayValue.newBuilder();
                v.getArrayValue().getValuesList().forEach(x -> a.addValues(value(x)));
                return AnyValue.newBuilder().setArrayValue(a).build();
            case KVLIST_VALUE:
                return AnyValue.newBuilder().setKvlistValue(KeyValueList.newBuilder()
                        .addAllValues(attributes(v.getKvlistValue().getValuesList()))).build();
            default:
                return v;
        }
    }
}
