package io.sluice.otlp.codec;

import io.sluice.core.message.Metadata;
import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonWriter;

/**
 * Decodes an OTLP/JSON {@code ExportMetricsServiceRequest} into the same messages {@link MetricsDecoder} makes of
 * the protobuf: one per data point, per {@link io.sluice.core.message.OtlpFields}. The JSON rules are
 * {@link JsonLogsDecoder}'s. Not thread-safe: one per thread.
 */
public final class JsonMetricsDecoder extends JsonEnvelope {
    /** The Metric data members, camelCase and snake_case, in MetricPoint's order: gauge, sum, histogram, ... */
    private static final byte[][] DATA = {Keys.b("gauge"), null, Keys.b("sum"), null,
        Keys.b("histogram"), null, Keys.b("exponentialHistogram"), Keys.b("exponential_histogram"),
        Keys.b("summary"), null};
    private static final byte[] NAME = Keys.b("name");
    private static final byte[] DESCRIPTION = Keys.b("description");
    private static final byte[] UNIT = Keys.b("unit");
    private static final byte[] METADATA = Keys.b("metadata");
    private static final byte[] TEMPORALITY = Keys.b("aggregationTemporality");
    private static final byte[] TEMPORALITY_SNAKE = Keys.b("aggregation_temporality");
    private static final byte[] MONOTONIC = Keys.b("isMonotonic");
    private static final byte[] MONOTONIC_SNAKE = Keys.b("is_monotonic");
    static final byte[] DATA_POINTS = Keys.b("dataPoints");
    static final byte[] DATA_POINTS_SNAKE = Keys.b("data_points");
    private static final byte[] START = Keys.b("startTimeUnixNano");
    private static final byte[] START_SNAKE = Keys.b("start_time_unix_nano");
    private static final byte[] AS_DOUBLE_SNAKE = Keys.b("as_double");
    private static final byte[] AS_INT_SNAKE = Keys.b("as_int");
    private static final byte[] EXEMPLARS = Keys.b("exemplars");
    private static final byte[] BUCKET_COUNTS_SNAKE = Keys.b("bucket_counts");
    private static final byte[] EXPLICIT_BOUNDS_SNAKE = Keys.b("explicit_bounds");
    private static final byte[] ZERO_COUNT_SNAKE = Keys.b("zero_count");
    private static final byte[] ZERO_THRESHOLD_SNAKE = Keys.b("zero_threshold");
    private static final byte[] QUANTILE_VALUES_SNAKE = Keys.b("quantile_values");
    private static final byte[] FILTERED_SNAKE = Keys.b("filtered_attributes");
    private static final byte[][] TEMPORALITY_NAMES = {Keys.b("AGGREGATION_TEMPORALITY_UNSPECIFIED"),
        Keys.b("AGGREGATION_TEMPORALITY_DELTA"), Keys.b("AGGREGATION_TEMPORALITY_CUMULATIVE")};
    private static final byte[][] TYPES = {Keys.TYPE_GAUGE, Keys.TYPE_SUM, Keys.TYPE_HISTOGRAM,
        Keys.TYPE_EXPONENTIAL_HISTOGRAM, Keys.TYPE_SUMMARY};

    // Nesting levels below the metric (ITEM_LEVEL): its members, the data's, a point, the point's members...
    private static final int DATA_LEVEL = JsonEnvelope.ITEM_LEVEL + 1;
    private static final int POINTS_LEVEL = DATA_LEVEL + 1;
    private static final int POINT_LEVEL = POINTS_LEVEL + 1;
    private static final int MEMBER_LEVEL = POINT_LEVEL + 1;

    /** A decoder accepting attribute values nested {@link LogsDecoder#DEFAULT_MAX_DEPTH} levels deep. */
    public JsonMetricsDecoder() {
        super(Keys.METRIC, "resourceMetrics", "scopeMetrics", "metrics");
    }

    /** Counts the data points of a JSON request without decoding them: validates the JSON, walks to the points. */
    public static int countPoints(byte[] buf, int off, int len) throws OtlpFormatException {
        return JsonCount.items(buf, off, len, "resourceMetrics", "scopeMetrics", "metrics", DATA);
    }

    private final FieldBlock metric = new FieldBlock();
    private final MetricPoint point = new MetricPoint();
    /** {@link #metric} as metadata, which each point's message starts as a copy of. */
    private final Metadata metricFields = new Metadata();
    private byte[] name = new byte[64];
    private final byte[] ids = new byte[24];

    @Override
    int item(JsonFields items, int i, RecordSink sink) throws OtlpFormatException {
        JsonFields m = doc.object(items, i, ITEM_LEVEL);
        int data = -1;
        int kind = -1;
        for (int k = 0; k < DATA.length; k += 2) {
            int at = doc.find(m, DATA[k], DATA[k + 1]);
            if (at > data) { // the oneof: the member written last wins
                data = at;
                kind = k / 2;
            }
        }
        if (data < 0) {
            return 0;
        }
        name = copy(m, NAME, null, name);
        int nameLen = copied;
        metric.copyFrom(prefix);
        metric.key(Keys.METRIC_TYPE).string(TYPES[kind], 0, TYPES[kind].length);
        stringField(m, DESCRIPTION, null, metric, Keys.METRIC_DESCRIPTION);
        stringField(m, UNIT, null, metric, Keys.METRIC_UNIT);
        JsonFields meta = doc.arrayOrEmpty(m, METADATA, null, DATA_LEVEL);
        if (meta.size() > 0) {
            JsonWriter json = values.json().reset();
            json.beginObject();
            for (int k = 0; k < meta.size(); k++) {
                values.member(meta, k, DATA_LEVEL + 1, 1);
            }
            json.endObject();
            metric.key(Keys.METRIC_METADATA).json(json.buffer(), 0, json.length());
        }
        JsonFields d = doc.object(m, data, DATA_LEVEL);
        // MetricPoint's kinds, from the data member: gauge and sum are NUMBER.
        int pointKind = kind <= 1 ? MetricPoint.NUMBER : kind - 1;
        if (kind == 1 || kind == 2 || kind == 3) {
            int t = doc.find(d, TEMPORALITY, TEMPORALITY_SNAKE);
            metric.key(Keys.METRIC_TEMPORALITY).signed(t < 0 ? 0 : doc.enumValue(d, t, TEMPORALITY_NAMES));
            if (kind == 1) {
                int mono = doc.find(d, MONOTONIC, MONOTONIC_SNAKE);
                metric.key(Keys.METRIC_MONOTONIC).bool(mono >= 0 && doc.bool(d, mono));
            }
        }
        metric.copyToOnly(metricFields);
        JsonFields points = doc.arrayOrEmpty(d, DATA_POINTS, DATA_POINTS_SNAKE, POINTS_LEVEL);
        for (int k = 0; k < points.size(); k++) {
            point(doc.object(points, k, POINT_LEVEL), pointKind);
            point.emit(sink.next(), pointKind, metricFields, name, 0, nameLen);
        }
        return points.size();
    }

    private void point(JsonFields p, int kind) throws OtlpFormatException {
        MetricPoint out = point;
        out.reset();
        JsonFields attrs = doc.arrayOrEmpty(p, ATTRIBUTES, null, MEMBER_LEVEL);
        for (int k = 0; k < attrs.size(); k++) {
            values.attribute(attrs, k, MEMBER_LEVEL + 1, out.fields, Keys.EMPTY);
        }
        out.startTime = uint64(p, START, START_SNAKE);
        out.time = uint64(p, Keys.J_TIME_UNIX_NANO, TIME_SNAKE);
        out.flags = uint32(p, FLAGS, null);
        JsonFields exemplars = doc.arrayOrEmpty(p, EXEMPLARS, null, MEMBER_LEVEL);
        for (int k = 0; k < exemplars.size(); k++) {
            exemplar(doc.object(exemplars, k, MEMBER_LEVEL + 1));
        }
        switch (kind) {
            case MetricPoint.NUMBER -> {
                int dv = doc.find(p, Keys.J_AS_DOUBLE, AS_DOUBLE_SNAKE);
                int iv = doc.find(p, Keys.J_AS_INT, AS_INT_SNAKE);
                if (dv > iv) {
                    out.valueType = MetricPoint.DOUBLE;
                    out.asDouble = doc.dbl(p, dv);
                } else if (iv >= 0) {
                    out.valueType = MetricPoint.INT;
                    out.asInt = doc.int64(p, iv);
                }
            }
            case MetricPoint.HISTOGRAM -> {
                countSumMinMax(p);
                unsignedArray(p, Keys.J_BUCKET_COUNTS, BUCKET_COUNTS_SNAKE, MEMBER_LEVEL, out.bucketCounts);
                JsonFields bounds = doc.arrayOrEmpty(p, Keys.J_EXPLICIT_BOUNDS, EXPLICIT_BOUNDS_SNAKE, MEMBER_LEVEL);
                for (int k = 0; k < bounds.size(); k++) {
                    out.explicitBounds.add(doc.dbl(bounds, k));
                }
            }
            case MetricPoint.EXPONENTIAL_HISTOGRAM -> {
                countSumMinMax(p);
                int s = doc.find(p, Keys.J_SCALE, null);
                out.scale = s < 0 ? 0 : doc.int32(p, s);
                out.zeroCount = uint64(p, Keys.J_ZERO_COUNT, ZERO_COUNT_SNAKE);
                out.zeroThreshold = dbl(p, Keys.J_ZERO_THRESHOLD, ZERO_THRESHOLD_SNAKE);
                out.positiveOffset = buckets(p, Keys.J_POSITIVE, out.positive);
                out.hasPositive = doc.find(p, Keys.J_POSITIVE, null) >= 0;
                out.negativeOffset = buckets(p, Keys.J_NEGATIVE, out.negative);
                out.hasNegative = doc.find(p, Keys.J_NEGATIVE, null) >= 0;
            }
            default -> {
                out.count = uint64(p, Keys.J_COUNT, null);
                out.sum = dbl(p, Keys.J_SUM, null);
                JsonFields qs = doc.arrayOrEmpty(p, Keys.J_QUANTILE_VALUES, QUANTILE_VALUES_SNAKE, MEMBER_LEVEL);
                for (int k = 0; k < qs.size(); k++) {
                    JsonFields q = doc.object(qs, k, MEMBER_LEVEL + 1);
                    out.quantiles.add(dbl(q, Keys.J_QUANTILE, null));
                    out.quantiles.add(dbl(q, Keys.J_VALUE, null));
                }
            }
        }
    }

    private void countSumMinMax(JsonFields p) throws OtlpFormatException {
        MetricPoint out = point;
        out.count = uint64(p, Keys.J_COUNT, null);
        int s = doc.find(p, Keys.J_SUM, null);
        if (s >= 0) {
            out.hasSum = true;
            out.sum = doc.dbl(p, s);
        }
        int lo = doc.find(p, Keys.J_MIN, null);
        if (lo >= 0) {
            out.hasMin = true;
            out.min = doc.dbl(p, lo);
        }
        int hi = doc.find(p, Keys.J_MAX, null);
        if (hi >= 0) {
            out.hasMax = true;
            out.max = doc.dbl(p, hi);
        }
    }

    private void unsignedArray(JsonFields f, byte[] camel, byte[] snake, int level, MetricPoint.Longs into)
            throws OtlpFormatException {
        JsonFields a = doc.arrayOrEmpty(f, camel, snake, level);
        for (int k = 0; k < a.size(); k++) {
            into.add(doc.uint64(a, k));
        }
    }

    /** An exponential histogram's buckets: returns the offset, adds the counts. */
    private int buckets(JsonFields p, byte[] name, MetricPoint.Longs counts) throws OtlpFormatException {
        int b = doc.find(p, name, null);
        if (b < 0) {
            return 0;
        }
        JsonFields buckets = doc.object(p, b, MEMBER_LEVEL);
        int o = doc.find(buckets, Keys.J_OFFSET, null);
        int offset = o < 0 ? 0 : doc.int32(buckets, o);
        unsignedArray(buckets, Keys.J_BUCKET_COUNTS, BUCKET_COUNTS_SNAKE, MEMBER_LEVEL + 1, counts);
        return offset;
    }

    private void exemplar(JsonFields e) throws OtlpFormatException {
        JsonFields attrs = doc.arrayOrEmpty(e, Keys.J_FILTERED_ATTRIBUTES, FILTERED_SNAKE, MEMBER_LEVEL + 2);
        JsonWriter json = values.json().reset();
        for (int k = 0; k < attrs.size(); k++) {
            values.member(attrs, k, MEMBER_LEVEL + 3, 1);
        }
        long time = uint64(e, Keys.J_TIME_UNIX_NANO, TIME_SNAKE);
        int dv = doc.find(e, Keys.J_AS_DOUBLE, AS_DOUBLE_SNAKE);
        int iv = doc.find(e, Keys.J_AS_INT, AS_INT_SNAKE);
        int type = MetricPoint.NONE;
        double d = 0;
        long l = 0;
        if (dv > iv) {
            type = MetricPoint.DOUBLE;
            d = doc.dbl(e, dv);
        } else if (iv >= 0) {
            type = MetricPoint.INT;
            l = doc.int64(e, iv);
        }
        int t = doc.find(e, Keys.J_TRACE_ID, TRACE_ID_SNAKE);
        int traceLen = t < 0 ? 0 : doc.hexId(e, t, ids, 0, 16, "traceId");
        int s = doc.find(e, Keys.J_SPAN_ID, SPAN_ID_SNAKE);
        int spanLen = s < 0 ? 0 : doc.hexId(e, s, ids, 16, 8, "spanId");
        point.exemplar(time, type, d, l, ids, 0, traceLen, 16, spanLen, json.buffer(), 0, json.length());
    }

    private double dbl(JsonFields f, byte[] camel, byte[] snake) throws OtlpFormatException {
        int i = doc.find(f, camel, snake);
        return i < 0 ? 0 : doc.dbl(f, i);
    }
}
