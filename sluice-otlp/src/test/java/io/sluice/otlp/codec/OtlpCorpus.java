package io.sluice.otlp.codec;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
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
import java.util.ArrayList;
import java.util.List;

/**
 * OTLP requests built with the official generated classes, covering every field of LogRecord, Resource and
 * InstrumentationScope, every AnyValue type (and awkward values of each), and every metric kind with exemplars.
 * The reference the decoder tests (and others) compare against: each method returns a fresh request.
 */
public final class OtlpCorpus {
    private OtlpCorpus() {
    }

    /** 16-byte trace id and 8-byte span id with every nibble used. */
    public static final byte[] TRACE_ID = {0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71,
        (byte) 0x82, (byte) 0x93, (byte) 0xa4, (byte) 0xb5, (byte) 0xc6, (byte) 0xd7, (byte) 0xe8, (byte) 0xf9};
    public static final byte[] SPAN_ID = {(byte) 0xff, 0x00, 0x01, 0x7f, (byte) 0x80, (byte) 0xab, (byte) 0xcd, (byte) 0xef};

    public static AnyValue str(String s) {
        return AnyValue.newBuilder().setStringValue(s).build();
    }

    public static AnyValue bool(boolean b) {
        return AnyValue.newBuilder().setBoolValue(b).build();
    }

    public static AnyValue integer(long v) {
        return AnyValue.newBuilder().setIntValue(v).build();
    }

    public static AnyValue dbl(double v) {
        return AnyValue.newBuilder().setDoubleValue(v).build();
    }

    public static AnyValue bytes(byte... b) {
        return AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(b)).build();
    }

    public static AnyValue array(AnyValue... values) {
        return AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder().addAllValues(List.of(values))).build();
    }

    public static AnyValue kvlist(KeyValue... values) {
        return AnyValue.newBuilder().setKvlistValue(KeyValueList.newBuilder().addAllValues(List.of(values))).build();
    }

    public static KeyValue kv(String key, AnyValue value) {
        return KeyValue.newBuilder().setKey(key).setValue(value).build();
    }

    /** Every AnyValue type, with the awkward values of each: one attribute per case. */
    public static List<KeyValue> allValues() {
        List<KeyValue> a = new ArrayList<>();
        a.add(kv("str", str("hello")));
        a.add(kv("str.empty", str("")));
        a.add(kv("str.unicode", str("grüße, 日本語, emoji 😀")));
        a.add(kv("str.escapes", str("quote \" backslash \\ newline \n tab \t nul \u0000 bell \u0007 slash /")));
        a.add(kv("bool.true", bool(true)));
        a.add(kv("bool.false", bool(false)));
        a.add(kv("int.zero", integer(0)));
        a.add(kv("int.negative", integer(-42)));
        a.add(kv("int.max", integer(Long.MAX_VALUE)));
        a.add(kv("int.min", integer(Long.MIN_VALUE)));
        a.add(kv("double.one", dbl(1.0)));
        a.add(kv("double.negzero", dbl(-0.0)));
        a.add(kv("double.zero", dbl(0.0)));
        a.add(kv("double.pi", dbl(3.141592653589793)));
        a.add(kv("double.tenth", dbl(0.1)));
        a.add(kv("double.sum", dbl(0.1 + 0.2)));
        a.add(kv("double.small", dbl(1.5e-300)));
        a.add(kv("double.large", dbl(6.02214076e23)));
        a.add(kv("double.negative", dbl(-273.15)));
        a.add(kv("double.nan", dbl(Double.NaN)));
        a.add(kv("double.inf", dbl(Double.POSITIVE_INFINITY)));
        a.add(kv("double.neginf", dbl(Double.NEGATIVE_INFINITY)));
        a.add(kv("double.min", dbl(Double.MIN_VALUE)));
        a.add(kv("double.max", dbl(Double.MAX_VALUE)));
        a.add(kv("bytes", bytes((byte) 0, (byte) 1, (byte) 0xfe, (byte) 0xff, (byte) 'a')));
        a.add(kv("bytes.empty", bytes()));
        a.add(kv("array", array(str("a"), integer(1), dbl(2.5), bool(true), AnyValue.getDefaultInstance(),
                dbl(Double.NaN), bytes((byte) 7))));
        a.add(kv("array.empty", array()));
        a.add(kv("array.nested", array(array(array(str("deep"))), kvlist(kv("k", integer(-1))))));
        a.add(kv("kvlist", kvlist(kv("s", str("x\"y")), kv("n", integer(7)), kv("d", dbl(1.0)),
                kv("b", bool(false)), kv("e", AnyValue.getDefaultInstance()), kv("ü", str("ö")),
                kv("inner", kvlist(kv("arr", array(integer(1), integer(2))))))));
        a.add(kv("kvlist.empty", kvlist()));
        a.add(kv("empty", AnyValue.getDefaultInstance()));
        a.add(KeyValue.newBuilder().setKey("novalue").build());
        a.add(kv("", str("empty key")));
        return a;
    }

    public static Resource resource(int i) {
        Resource.Builder r = Resource.newBuilder()
                .addAttributes(kv("service.name", str("checkout-" + i)))
                .addAttributes(kv("host.id", integer(1000 + i)))
                .addAttributes(kv("nested", kvlist(kv("zone", str("eu-west-" + i)))));
        if (i == 0) {
            r.setDroppedAttributesCount(3);
        }
        return r.build();
    }

    public static InstrumentationScope scope(int i, int j) {
        InstrumentationScope.Builder s = InstrumentationScope.newBuilder();
        if (j == 0) {
            s.setName("io.sluice.scope" + i).setVersion("1." + j + ".0")
                    .addAttributes(kv("scope.attr", str("value " + j)))
                    .addAttributes(kv("scope.flag", bool(j % 2 == 0)))
                    .setDroppedAttributesCount(-1); // uint32 4294967295, the largest
        } else if (j == 1) {
            s.setName("only-name");
        }
        return s.build();
    }

    /** Every field of LogRecord set, with each AnyValue type as body in turn. */
    public static LogRecord fullRecord(int k, AnyValue body) {
        LogRecord.Builder r = LogRecord.newBuilder()
                .setTimeUnixNano(1_700_000_000_123_456_789L + k)
                .setObservedTimeUnixNano(1_700_000_001_000_000_000L + k)
                .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_WARN)
                .setSeverityText("WARN")
                .addAllAttributes(allValues())
                .setDroppedAttributesCount(2)
                .setFlags(0x01)
                .setTraceId(ByteString.copyFrom(TRACE_ID))
                .setSpanId(ByteString.copyFrom(SPAN_ID))
                .setEventName("app.event." + k);
        if (body != null) {
            r.setBody(body);
        }
        return r.build();
    }

    /** Bodies of every type, and none. */
    public static List<AnyValue> bodies() {
        List<AnyValue> b = new ArrayList<>();
        b.add(str("plain message with ünïcödé and \"quotes\""));
        b.add(str(""));
        b.add(integer(-7));
        b.add(dbl(2.0));
        b.add(dbl(Double.NaN));
        b.add(bool(true));
        b.add(bytes((byte) 1, (byte) 2, (byte) 3, (byte) 4));
        b.add(array(str("x"), integer(1)));
        b.add(kvlist(kv("k", str("v")), kv("n", AnyValue.getDefaultInstance())));
        b.add(AnyValue.getDefaultInstance());
        b.add(null);
        return b;
    }

    /** A record with nothing set. */
    public static LogRecord emptyRecord() {
        return LogRecord.getDefaultInstance();
    }

    /**
     * Three resources (the last without a resource message) × up to three scopes (full, name only, empty) ×
     * records (every body type, a record with nothing set, records with odd fields), with schema URLs.
     */
    public static ExportLogsServiceRequest logs() {
        ExportLogsServiceRequest.Builder req = ExportLogsServiceRequest.newBuilder();
        int k = 0;
        for (int i = 0; i < 3; i++) {
            ResourceLogs.Builder rl = ResourceLogs.newBuilder();
            if (i < 2) {
                rl.setResource(resource(i));
            }
            if (i == 0) {
                rl.setSchemaUrl("https://opentelemetry.io/schemas/1.26.0");
            }
            for (int j = 0; j < 3 - i; j++) {
                ScopeLogs.Builder sl = ScopeLogs.newBuilder().setScope(scope(i, j));
                if (j == 0) {
                    sl.setSchemaUrl("https://opentelemetry.io/schemas/scope/" + i);
                }
                for (AnyValue body : bodies()) {
                    sl.addLogRecords(fullRecord(k++, body));
                }
                sl.addLogRecords(emptyRecord());
                sl.addLogRecords(LogRecord.newBuilder().setSeverityNumberValue(-5).setFlags(0xFFFFFFFF)
                        .setTimeUnixNano(-1L).setObservedTimeUnixNano(Long.MIN_VALUE)
                        .setTraceId(ByteString.copyFrom(new byte[16])).setSpanId(ByteString.copyFrom(new byte[8]))
                        .setBody(str("zero ids, unsigned extremes")).build());
                rl.addScopeLogs(sl);
            }
            req.addResourceLogs(rl);
        }
        req.addResourceLogs(ResourceLogs.newBuilder().setResource(resource(9))); // a resource without scopes
        return req.build();
    }

    /**
     * The benchmark's shape: one resource with five attributes, one scope, {@code records} records with ten
     * attributes each (strings, ints, doubles, a bool) and a string body of realistic length.
     */
    public static ExportLogsServiceRequest benchmarkLogs(int records) {
        Resource resource = Resource.newBuilder()
                .addAttributes(kv("service.name", str("checkout-service")))
                .addAttributes(kv("service.namespace", str("shop")))
                .addAttributes(kv("service.instance.id", str("627cc493-f310-47de-96bd-71410b7dec09")))
                .addAttributes(kv("host.name", str("ip-10-0-12-34.eu-west-1.compute.internal")))
                .addAttributes(kv("k8s.pod.uid", str("1f0c9a2e-5b7d-4e8a-9c3b-2d6f8e1a7b4c")))
                .build();
        ScopeLogs.Builder scope = ScopeLogs.newBuilder()
                .setScope(InstrumentationScope.newBuilder().setName("io.opentelemetry.logback").setVersion("2.9.0"));
        for (int i = 0; i < records; i++) {
            scope.addLogRecords(LogRecord.newBuilder()
                    .setTimeUnixNano(1_700_000_000_000_000_000L + i * 1_000_000L)
                    .setObservedTimeUnixNano(1_700_000_000_000_500_000L + i * 1_000_000L)
                    .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_INFO)
                    .setSeverityText("INFO")
                    .setBody(str("GET /api/v1/orders/" + (100_000 + i) + " completed in " + (i % 97) + " ms for user "
                            + (i * 7919 % 10_000)))
                    .addAttributes(kv("http.request.method", str(i % 5 == 0 ? "POST" : "GET")))
                    .addAttributes(kv("url.path", str("/api/v1/orders/" + (100_000 + i))))
                    .addAttributes(kv("http.response.status_code", integer(i % 50 == 0 ? 500 : 200)))
                    .addAttributes(kv("http.server.request.duration", dbl((i % 97) * 1.25 + 0.5)))
                    .addAttributes(kv("user.id", integer(i * 7919L % 10_000)))
                    .addAttributes(kv("thread.name", str("http-nio-8080-exec-" + (i % 16))))
                    .addAttributes(kv("code.function", str("com.example.shop.OrderController.getOrder")))
                    .addAttributes(kv("cache.hit", bool(i % 3 == 0)))
                    .addAttributes(kv("db.rows", integer(i % 13)))
                    .addAttributes(kv("payload.ratio", dbl(0.25 + (i % 8) * 0.125)))
                    .setTraceId(ByteString.copyFrom(TRACE_ID))
                    .setSpanId(ByteString.copyFrom(SPAN_ID))
                    .setFlags(1)
                    .build());
        }
        return ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(ResourceLogs.newBuilder().setResource(resource).addScopeLogs(scope))
                .build();
    }

    private static Exemplar exemplar(int i, boolean asInt) {
        Exemplar.Builder e = Exemplar.newBuilder()
                .setTimeUnixNano(1_700_000_000_500_000_000L + i)
                .addFilteredAttributes(kv("filtered", str("yes " + i)))
                .addFilteredAttributes(kv("n", integer(i)));
        if (asInt) {
            e.setAsInt(-i - 1);
        } else {
            e.setAsDouble(i + 0.5);
        }
        if (i % 2 == 0) {
            e.setTraceId(ByteString.copyFrom(TRACE_ID)).setSpanId(ByteString.copyFrom(SPAN_ID));
        }
        return e.build();
    }

    private static List<KeyValue> pointAttributes(int i) {
        return List.of(kv("point", integer(i)), kv("host", str("h" + i)), kv("ratio", dbl(i / 4.0)));
    }

    /** Metrics of every kind, with int and double points, exemplars, flags, start times, metadata. */
    public static List<Metric> metrics() {
        List<Metric> m = new ArrayList<>();
        m.add(Metric.newBuilder().setName("cpu.temperature").setDescription("die temperature").setUnit("Cel")
                .addMetadata(kv("source", str("sensor")))
                .addMetadata(kv("weight", dbl(1.0)))
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(1_700_000_000_000_000_001L)
                                .setAsDouble(61.5).addAllAttributes(pointAttributes(0)).addExemplars(exemplar(0, false)))
                        .addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(1_700_000_000_000_000_002L)
                                .setStartTimeUnixNano(1_600_000_000_000_000_000L).setAsInt(-62).setFlags(1)
                                .addAllAttributes(pointAttributes(1)))
                        .addDataPoints(NumberDataPoint.newBuilder().setAsDouble(Double.NaN))
                        .addDataPoints(NumberDataPoint.newBuilder().setAsDouble(1.0))
                        .addDataPoints(NumberDataPoint.newBuilder().setAsInt(Long.MIN_VALUE))
                        .addDataPoints(NumberDataPoint.getDefaultInstance()))
                .build());
        m.add(Metric.newBuilder().setName("http.requests").setUnit("{request}")
                .setSum(Sum.newBuilder().setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .setIsMonotonic(true)
                        .addDataPoints(NumberDataPoint.newBuilder().setStartTimeUnixNano(1_699_999_000_000_000_000L)
                                .setTimeUnixNano(1_700_000_000_000_000_000L).setAsInt(12345)
                                .addAllAttributes(pointAttributes(2)).addExemplars(exemplar(1, true))
                                .addExemplars(exemplar(2, false)))
                        .addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(1_700_000_001_000_000_000L)
                                .setAsDouble(-0.25)))
                .build());
        m.add(Metric.newBuilder().setName("queue.delta")
                .setSum(Sum.newBuilder().setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(NumberDataPoint.newBuilder().setAsInt(3)))
                .build());
        m.add(Metric.newBuilder().setName("http.duration").setDescription("request duration").setUnit("ms")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(HistogramDataPoint.newBuilder().setStartTimeUnixNano(1_699_999_999_000_000_000L)
                                .setTimeUnixNano(1_700_000_000_000_000_000L).setCount(10).setSum(123.5).setMin(0.5)
                                .setMax(80.0).addAllBucketCounts(List.of(1L, 2L, 3L, 4L, -1L))
                                .addAllExplicitBounds(List.of(1.0, 5.0, 10.0, 50.0)).setFlags(1)
                                .addAllAttributes(pointAttributes(3)).addExemplars(exemplar(3, false))
                                .addExemplars(exemplar(4, true)))
                        .addDataPoints(HistogramDataPoint.newBuilder().setCount(0)))
                .build());
        m.add(Metric.newBuilder().setName("latency.exp")
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(ExponentialHistogramDataPoint.newBuilder()
                                .setStartTimeUnixNano(1_699_999_999_000_000_000L).setTimeUnixNano(1_700_000_000_000_000_000L)
                                .setCount(17).setSum(-3.5).setScale(-3).setZeroCount(2).setZeroThreshold(1e-9)
                                .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder().setOffset(-2)
                                        .addAllBucketCounts(List.of(1L, 0L, 5L, 300L)))
                                .setNegative(ExponentialHistogramDataPoint.Buckets.newBuilder().setOffset(3)
                                        .addAllBucketCounts(List.of(4L, Long.MIN_VALUE)))
                                .setMin(-10.0).setMax(12.25).setFlags(1)
                                .addAllAttributes(pointAttributes(4)).addExemplars(exemplar(5, true)))
                        .addDataPoints(ExponentialHistogramDataPoint.newBuilder().setScale(20)))
                .build());
        m.add(Metric.newBuilder().setName("rpc.summary").setDescription("quantiles").setUnit("s")
                .setSummary(Summary.newBuilder()
                        .addDataPoints(SummaryDataPoint.newBuilder().setStartTimeUnixNano(1_699_999_999_000_000_000L)
                                .setTimeUnixNano(1_700_000_000_000_000_000L).setCount(100).setSum(2.5)
                                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(0.5).setValue(0.02))
                                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(0.99).setValue(0.3))
                                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(1.0).setValue(1.0))
                                .addAllAttributes(pointAttributes(5)).setFlags(1))
                        .addDataPoints(SummaryDataPoint.getDefaultInstance()))
                .build());
        m.add(Metric.newBuilder().setName("no.data").build());
        return m;
    }

    /** Two resources × two scopes, each scope holding every metric of {@link #metrics()}. */
    public static ExportMetricsServiceRequest metricsRequest() {
        ExportMetricsServiceRequest.Builder req = ExportMetricsServiceRequest.newBuilder();
        for (int i = 0; i < 2; i++) {
            ResourceMetrics.Builder rm = ResourceMetrics.newBuilder().setResource(resource(i));
            if (i == 1) {
                rm.setSchemaUrl("https://opentelemetry.io/schemas/1.26.0");
            }
            for (int j = 0; j < 2; j++) {
                ScopeMetrics.Builder sm = ScopeMetrics.newBuilder().setScope(scope(i, j)).addAllMetrics(metrics());
                if (j == 1) {
                    sm.setSchemaUrl("https://opentelemetry.io/schemas/scope");
                }
                rm.addScopeMetrics(sm);
            }
            req.addResourceMetrics(rm);
        }
        return req.build();
    }
}
