package io.sluice.otlp.codec;

import io.sluice.core.json.JsonWriter;

/**
 * Reads one data point's protobuf (a NumberDataPoint, HistogramDataPoint, ExponentialHistogramDataPoint or
 * SummaryDataPoint, the reader entered into it) into a {@link MetricPoint}, for {@link MetricsDecoder}.
 *
 * <p>The four messages share most of their fields (attributes, times, count, sum, exemplars, flags, min, max) under
 * different numbers: a table per kind ({@link #ROLES}) says what each field number is, and one loop reads every kind.
 */
final class PointDecoder {
    // What a field of a point is.
    private static final byte SKIP = 0;
    private static final byte ATTRIBUTES = 1;
    private static final byte START = 2;
    private static final byte TIME = 3;
    private static final byte COUNT = 4;
    private static final byte SUM = 5;
    private static final byte AS_DOUBLE = 6;
    private static final byte AS_INT = 7;
    private static final byte EXEMPLAR = 8;
    private static final byte FLAGS = 9;
    private static final byte MIN = 10;
    private static final byte MAX = 11;
    private static final byte BUCKET_COUNTS = 12;
    private static final byte EXPLICIT_BOUNDS = 13;
    private static final byte SCALE = 14;
    private static final byte ZERO_COUNT = 15;
    private static final byte POSITIVE = 16;
    private static final byte NEGATIVE = 17;
    private static final byte ZERO_THRESHOLD = 18;
    private static final byte QUANTILE = 19;

    /** By {@link MetricPoint} kind, then field number: the role of the field (opentelemetry-proto metrics/v1). */
    private static final byte[][] ROLES = {
        // NumberDataPoint
        roles(7, ATTRIBUTES, 2, START, 3, TIME, 4, AS_DOUBLE, 6, AS_INT, 5, EXEMPLAR, 8, FLAGS),
        // HistogramDataPoint
        roles(9, ATTRIBUTES, 2, START, 3, TIME, 4, COUNT, 5, SUM, 6, BUCKET_COUNTS, 7, EXPLICIT_BOUNDS, 8, EXEMPLAR,
                10, FLAGS, 11, MIN, 12, MAX),
        // ExponentialHistogramDataPoint
        roles(1, ATTRIBUTES, 2, START, 3, TIME, 4, COUNT, 5, SUM, 6, SCALE, 7, ZERO_COUNT, 8, POSITIVE, 9, NEGATIVE,
                10, FLAGS, 11, EXEMPLAR, 12, MIN, 13, MAX, 14, ZERO_THRESHOLD),
        // SummaryDataPoint (its sum has no presence: MetricPoint writes it whatever hasSum says)
        roles(7, ATTRIBUTES, 2, START, 3, TIME, 4, COUNT, 5, SUM, 6, QUANTILE, 8, FLAGS),
    };

    private final ProtoReader in;
    private final ProtoValues values;

    PointDecoder(ProtoReader in, ProtoValues values) {
        this.in = in;
        this.values = values;
    }

    private static byte[] roles(int... fieldRole) {
        byte[] r = new byte[16];
        for (int i = 0; i < fieldRole.length; i += 2) {
            r[fieldRole[i]] = (byte) fieldRole[i + 1];
        }
        return r;
    }

    /** Reads the point of kind {@code kind} ({@link MetricPoint#NUMBER}, ...) the reader is in into {@code p}. */
    void read(int kind, MetricPoint p) throws OtlpFormatException {
        byte[] roles = ROLES[kind];
        while (in.hasMore()) {
            int t = in.readTag();
            int f = ProtoReader.field(t);
            switch (f < roles.length ? roles[f] : SKIP) {
                case ATTRIBUTES -> values.attribute(t, p.fields, Keys.EMPTY);
                case START -> p.startTime = in.fixed64(t);
                case TIME -> p.time = in.fixed64(t);
                case COUNT -> p.count = in.fixed64(t);
                case SUM -> {
                    p.sum = in.double64(t);
                    p.hasSum = true;
                }
                case AS_DOUBLE -> {
                    p.asDouble = in.double64(t);
                    p.valueType = MetricPoint.DOUBLE;
                }
                case AS_INT -> {
                    p.asInt = in.fixed64(t);
                    p.valueType = MetricPoint.INT;
                }
                case EXEMPLAR -> exemplar(t, p);
                case FLAGS -> p.flags = in.uint32(t);
                case MIN -> {
                    p.min = in.double64(t);
                    p.hasMin = true;
                }
                case MAX -> {
                    p.max = in.double64(t);
                    p.hasMax = true;
                }
                case BUCKET_COUNTS -> fixed64s(t, p.bucketCounts, null);
                case EXPLICIT_BOUNDS -> fixed64s(t, null, p.explicitBounds);
                case SCALE -> p.scale = in.sint32(t);
                case ZERO_COUNT -> p.zeroCount = in.fixed64(t);
                case POSITIVE -> {
                    p.positiveOffset = buckets(t, p.positive, p.positiveOffset);
                    p.hasPositive = true;
                }
                case NEGATIVE -> {
                    p.negativeOffset = buckets(t, p.negative, p.negativeOffset);
                    p.hasNegative = true;
                }
                case ZERO_THRESHOLD -> p.zeroThreshold = in.double64(t);
                case QUANTILE -> quantile(t, p);
                default -> in.skip(t);
            }
        }
    }

    /** A ValueAtQuantile: quantile (1) and value (2), doubles. */
    private void quantile(int tag, MetricPoint p) throws OtlpFormatException {
        int old = in.enterMessage(tag);
        double q = 0;
        double v = 0;
        while (in.hasMore()) {
            int t = in.readTag();
            switch (ProtoReader.field(t)) {
                case 1 -> q = in.double64(t);
                case 2 -> v = in.double64(t);
                default -> in.skip(t);
            }
        }
        in.leave(old);
        p.quantiles.add(q);
        p.quantiles.add(v);
    }

    /**
     * Buckets of an exponential histogram: offset (1, sint32) and bucket_counts (2, repeated uint64). A second
     * occurrence of the field merges into the first, as protobuf does: counts appended, offset replaced if set.
     */
    private int buckets(int tag, MetricPoint.Longs counts, int offset) throws OtlpFormatException {
        int old = in.enterMessage(tag);
        while (in.hasMore()) {
            int t = in.readTag();
            switch (ProtoReader.field(t)) {
                case 1 -> offset = in.sint32(t);
                case 2 -> varints(t, counts);
                default -> in.skip(t);
            }
        }
        in.leave(old);
        return offset;
    }

    /** An Exemplar, rendered into the point's exemplar array. */
    private void exemplar(int tag, MetricPoint p) throws OtlpFormatException {
        int old = in.enterMessage(tag);
        long time = 0;
        int type = MetricPoint.NONE;
        long bits = 0;
        int traceOff = 0;
        int traceLen = 0;
        int spanOff = 0;
        int spanLen = 0;
        JsonWriter attrs = values.json().reset();
        while (in.hasMore()) {
            int t = in.readTag();
            switch (ProtoReader.field(t)) {
                case 7 -> values.member(t, 1);
                case 2 -> time = in.fixed64(t);
                case 3 -> {
                    bits = in.fixed64(t);
                    type = MetricPoint.DOUBLE;
                }
                case 6 -> {
                    bits = in.fixed64(t);
                    type = MetricPoint.INT;
                }
                case 4 -> {
                    spanOff = values.readBytes(t);
                    spanLen = in.idLength(values.lastLength, 8, "span_id");
                }
                case 5 -> {
                    traceOff = values.readBytes(t);
                    traceLen = in.idLength(values.lastLength, 16, "trace_id");
                }
                default -> in.skip(t);
            }
        }
        in.leave(old);
        p.exemplar(time, type, Double.longBitsToDouble(bits), bits, in.buffer(), traceOff, traceLen, spanOff,
                spanLen, attrs.buffer(), 0, attrs.length());
    }

    /** Repeated fixed64 (into {@code longs}) or double (into {@code doubles}), packed or not. */
    private void fixed64s(int tag, MetricPoint.Longs longs, MetricPoint.Doubles doubles) throws OtlpFormatException {
        if (ProtoReader.wireType(tag) == ProtoReader.LEN) {
            int old = in.enter(in.readLength());
            while (in.hasMore()) {
                add(in.readFixed64(), longs, doubles);
            }
            in.leave(old);
        } else {
            add(in.fixed64(tag), longs, doubles);
        }
    }

    private static void add(long bits, MetricPoint.Longs longs, MetricPoint.Doubles doubles) {
        if (longs != null) {
            longs.add(bits);
        } else {
            doubles.add(Double.longBitsToDouble(bits));
        }
    }

    /** Repeated uint64, packed or not. */
    private void varints(int tag, MetricPoint.Longs into) throws OtlpFormatException {
        if (ProtoReader.wireType(tag) == ProtoReader.LEN) {
            int old = in.enter(in.readLength());
            while (in.hasMore()) {
                into.add(in.readVarint());
            }
            in.leave(old);
        } else {
            in.expect(tag, ProtoReader.VARINT);
            into.add(in.readVarint());
        }
    }
}
