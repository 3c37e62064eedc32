package io.sluice.otlp.codec;

import static io.sluice.otlp.codec.LogsEncoderTest.hex;
import static io.sluice.otlp.codec.LogsEncoderTest.i;
import static io.sluice.otlp.codec.LogsEncoderTest.kv;
import static io.sluice.otlp.codec.LogsEncoderTest.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import io.sluice.otlp.TestMessages;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Metric messages built by the contract (OtlpFields) → MetricsEncoder → the official generated parser. */
class MetricsEncoderTest {
    static ExportMetricsServiceRequest encode(TestMessages t) throws Exception {
        MetricsEncoder enc = new MetricsEncoder();
        int n = enc.encode(t.batch(), 0, t.batch().size(), 3);
        assertThat(n).isPositive();
        return ExportMetricsServiceRequest.parseFrom(Arrays.copyOfRange(enc.buffer(), 3, 3 + enc.length()));
    }

    @Test
    void pointsOfOneMetricShareItAndMetricsOfEveryKind() throws Exception {
        TestMessages t = new TestMessages(16);
        t.add("cpu", 10).metric().str("resource.host", "h").str("scope.name", "m").str("otlp.metric.type", "gauge")
                .str("otlp.metric.unit", "1").str("otlp.metric.description", "CPU").str("core", "0")
                .num("metric_name:cpu", "0.5");
        t.add("requests", 11).metric().str("resource.host", "h").str("scope.name", "m").str("otlp.metric.type", "sum")
                .num("otlp.metric.temporality", "2").bool("otlp.metric.monotonic", true)
                .num("otlp.start_time_unix_nano", "5").num("metric_name:requests", "7")
                .json("otlp.exemplars", "[{\"timeUnixNano\":\"9\",\"asInt\":\"3\",\"spanId\":\"0102030405060708\","
                        + "\"traceId\":\"0102030405060708090a0b0c0d0e0f10\",\"filteredAttributes\":{\"user\":\"u\",\"n\":1}},"
                        + "{\"timeUnixNano\":8,\"asDouble\":2.5}]");
        t.add("cpu", 12).metric().str("resource.host", "h").str("scope.name", "m").str("otlp.metric.type", "gauge")
                .str("otlp.metric.unit", "1").str("otlp.metric.description", "CPU").str("core", "1")
                .num("metric_name:cpu", "2").num("otlp.flags", "1");
        t.add("latency", 13).metric().str("resource.host", "h").str("scope.name", "m")
                .str("otlp.metric.type", "histogram").num("otlp.metric.temporality", "1").str("otlp.metric.unit", "ms")
                .json("otlp.metric.metadata", "{\"origin\":\"sdk\"}")
                .json("otlp.histogram", "{\"count\":6,\"sum\":12.5,\"min\":0.5,\"max\":9.0,\"bucketCounts\":[1,2,3],"
                        + "\"explicitBounds\":[1.0,5.0]}");
        t.add("size", 14).metric().str("resource.host", "h").str("scope.name", "m")
                .str("otlp.metric.type", "exponential_histogram").num("otlp.metric.temporality", "2")
                .json("otlp.exponential_histogram", "{\"count\":\"18446744073709551615\",\"scale\":-3,\"zeroCount\":2,"
                        + "\"zeroThreshold\":0.001,\"positive\":{\"offset\":-2,\"bucketCounts\":[1,300]},"
                        + "\"negative\":{\"offset\":0,\"bucketCounts\":[]}}");
        t.add("rt", 15).metric().str("resource.host", "h").str("scope.name", "m").str("otlp.metric.type", "summary")
                .json("otlp.summary", "{\"count\":3,\"sum\":0.0,\"quantileValues\":[{\"quantile\":0.5,\"value\":1.0},"
                        + "{\"quantile\":1.0,\"value\":\"Infinity\"}]}");
        t.add("cpu", 16).metric().str("resource.host", "other").str("scope.name", "m").str("otlp.metric.type", "gauge")
                .str("otlp.metric.unit", "1").str("otlp.metric.description", "CPU").num("metric_name:cpu", "3");
        t.add("cpu", 17).metric().str("resource.host", "h").str("scope.name", "m").str("otlp.metric.type", "gauge")
                .str("otlp.metric.unit", "1").str("otlp.metric.description", "CPU").str("metric_name:cpu", "NaN");
        t.add("a log", 1).log();
        ExportMetricsServiceRequest r = encode(t);

        Metric cpu = Metric.newBuilder().setName("cpu").setDescription("CPU").setUnit("1").setGauge(Gauge.newBuilder()
                .addDataPoints(NumberDataPoint.newBuilder().addAttributes(kv("core", s("0"))).setTimeUnixNano(10).setAsDouble(0.5))
                .addDataPoints(NumberDataPoint.newBuilder().addAttributes(kv("core", s("1"))).setTimeUnixNano(12).setAsInt(2).setFlags(1))
                .addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(17).setAsDouble(Double.NaN))).build();
        Metric requests = Metric.newBuilder().setName("requests").setSum(Sum.newBuilder()
                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE).setIsMonotonic(true)
                .addDataPoints(NumberDataPoint.newBuilder().setStartTimeUnixNano(5).setTimeUnixNano(11).setAsInt(7)
                        .addExemplars(Exemplar.newBuilder().setTimeUnixNano(9).setAsInt(3)
                                .setSpanId(ByteString.copyFrom(hex("0102030405060708")))
                                .setTraceId(ByteString.copyFrom(hex("0102030405060708090a0b0c0d0e0f10")))
                                .addFilteredAttributes(kv("user", s("u"))).addFilteredAttributes(kv("n", i(1))))
                        .addExemplars(Exemplar.newBuilder().setTimeUnixNano(8).setAsDouble(2.5)))).build();
        Metric latency = Metric.newBuilder().setName("latency").setUnit("ms").addMetadata(kv("origin", s("sdk")))
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(HistogramDataPoint.newBuilder().setTimeUnixNano(13).setCount(6).setSum(12.5)
                                .setMin(0.5).setMax(9.0).addAllBucketCounts(List.of(1L, 2L, 3L))
                                .addAllExplicitBounds(List.of(1.0, 5.0)))).build();
        Metric size = Metric.newBuilder().setName("size").setExponentialHistogram(ExponentialHistogram.newBuilder()
                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                .addDataPoints(ExponentialHistogramDataPoint.newBuilder().setTimeUnixNano(14).setCount(-1L).setScale(-3)
                        .setZeroCount(2).setZeroThreshold(0.001)
                        .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder().setOffset(-2)
                                .addAllBucketCounts(List.of(1L, 300L)))
                        .setNegative(ExponentialHistogramDataPoint.Buckets.getDefaultInstance()))).build();
        Metric rt = Metric.newBuilder().setName("rt").setSummary(Summary.newBuilder()
                .addDataPoints(SummaryDataPoint.newBuilder().setTimeUnixNano(15).setCount(3).setSum(0.0)
                        .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(0.5).setValue(1.0))
                        .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(1.0)
                                .setValue(Double.POSITIVE_INFINITY)))).build();
        InstrumentationScope m = InstrumentationScope.newBuilder().setName("m").build();
        ExportMetricsServiceRequest want = ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder().addAttributes(kv("host", s("h"))))
                        .addScopeMetrics(ScopeMetrics.newBuilder().setScope(m).addMetrics(cpu).addMetrics(requests)
                                .addMetrics(latency).addMetrics(size).addMetrics(rt)))
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder().addAttributes(kv("host", s("other"))))
                        .addScopeMetrics(ScopeMetrics.newBuilder().setScope(m).addMetrics(Metric.newBuilder()
                                .setName("cpu").setDescription("CPU").setUnit("1").setGauge(Gauge.newBuilder()
                                        .addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(16).setAsInt(3))))))
                .build();
        assertThat(r.toString()).isEqualTo(want.toString()); // NaN != NaN in equals; the text form compares it
    }

    @Test
    void differentUnitOrTemporalityMakesAnotherMetric() throws Exception {
        TestMessages t = new TestMessages(4);
        t.add("x", 1).metric().str("otlp.metric.type", "sum").num("otlp.metric.temporality", "1").num("metric_name:x", "1");
        t.add("x", 2).metric().str("otlp.metric.type", "sum").num("otlp.metric.temporality", "2").num("metric_name:x", "1");
        t.add("x", 3).metric().str("otlp.metric.type", "sum").num("otlp.metric.temporality", "1").num("metric_name:x", "1");
        t.add("x", 4).metric().str("otlp.metric.type", "gauge").num("metric_name:x", "1");
        ScopeMetrics sm = encode(t).getResourceMetrics(0).getScopeMetrics(0);
        assertThat(sm.getMetricsCount()).isEqualTo(3);
        assertThat(sm.getMetrics(0).getSum().getDataPointsCount()).isEqualTo(2);
        assertThat(sm.getMetrics(1).getSum().getAggregationTemporality())
                .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
        assertThat(sm.getMetrics(2).hasGauge()).isTrue();
    }

    @Test
    void hecMetricBecomesOneGaugePointPerMeasurement() throws Exception {
        TestMessages t = new TestMessages(4);
        t.add("metric", 1_000_000_000L).str("host", "web1").num("metric_name:cpu.idle", "97.5")
                .num("metric_name:mem.used", "1024").str("region", "eu");
        t.add("metric", 2_000_000_000L).num("metric_name:cpu.idle", "90");
        ExportMetricsServiceRequest r = encode(t);
        ResourceMetrics rm = r.getResourceMetrics(0);
        assertThat(rm.getResource()).isEqualTo(Resource.getDefaultInstance());
        List<Metric> metrics = rm.getScopeMetrics(0).getMetricsList();
        assertThat(metrics).hasSize(2);
        assertThat(metrics.get(0)).isEqualTo(Metric.newBuilder().setName("cpu.idle").setGauge(Gauge.newBuilder()
                .addDataPoints(NumberDataPoint.newBuilder().addAttributes(kv("host", s("web1")))
                        .addAttributes(kv("region", s("eu"))).setTimeUnixNano(1_000_000_000L).setAsDouble(97.5))
                .addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(2_000_000_000L).setAsInt(90))).build());
        assertThat(metrics.get(1)).isEqualTo(Metric.newBuilder().setName("mem.used").setGauge(Gauge.newBuilder()
                .addDataPoints(NumberDataPoint.newBuilder().addAttributes(kv("host", s("web1")))
                        .addAttributes(kv("region", s("eu"))).setTimeUnixNano(1_000_000_000L).setAsInt(1024))).build());
    }
}
