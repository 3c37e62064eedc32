package io.sluice.otlp.codec;

import io.sluice.core.message.Metadata;
import io.sluice.core.json.JsonWriter;

/**
 * Decodes a protobuf {@code ExportMetricsServiceRequest} (opentelemetry-proto collector/metrics/v1) into one
 * message per data point of every gauge, sum, histogram, exponential histogram and summary, as
 * {@link io.sluice.core.message.OtlpFields} describes: the metric's name as payload, the point's time as timestamp,
 * the resource's, scope's, metric's and point's fields as metadata, the value as {@code metric_name:<name>} or as
 * a histogram or summary JSON object, exemplars as a JSON array.
 *
 * <p>The resource and scope fields are encoded once per group, the metric's own fields once per metric, and copied
 * into each point's metadata as bytes. Malformed input ends decoding with an {@link OtlpFormatException}; the
 * messages already handed out are complete points. Not thread-safe: one per thread.
 */
public final class MetricsDecoder {
    private final Envelope envelope;

    /** A decoder accepting attribute values nested {@link LogsDecoder#DEFAULT_MAX_DEPTH} levels deep. */
    public MetricsDecoder() {
        this(LogsDecoder.DEFAULT_MAX_DEPTH);
    }

    /** A decoder rejecting attribute values nested deeper than {@code maxDepth} (1 to 64) levels. */
    public MetricsDecoder(int maxDepth) {
        envelope = new Envelope(maxDepth);
    }

    /**
     * Decodes the request in {@code buf[off, off+len)}, filling one message from {@code sink} per data point.
     *
     * @return the number of data points decoded
     * @throws OtlpFormatException if the request is malformed; messages already filled hold whole points
     */
    public int decode(byte[] buf, int off, int len, RecordSink sink) throws OtlpFormatException {
        return envelope.decodeRequest(buf, off, len, sink);
    }

    /**
     * Counts the data points of a request without decoding them (a pass over the framing down to the points).
     * A request it counts may still fail {@link #decode}.
     */
    public static int countPoints(byte[] buf, int off, int len) throws OtlpFormatException {
        return ProtoEnvelope.countItems(buf, off, len, MetricsDecoder::countMetric);
    }

    /** The points of the metric {@code r} is in: field 1 of its data (the oneof, last one wins). */
    private static int countMetric(ProtoReader r) throws OtlpFormatException {
        int n = 0;
        while (r.hasMore()) {
            int t = r.readTag();
            if (!isData(ProtoReader.field(t))) {
                r.skip(t);
                continue;
            }
            n = 0;
            int o = r.enterMessage(t);
            while (r.hasMore()) {
                int t2 = r.readTag();
                if (ProtoReader.field(t2) == 1) {
                    r.expect(t2, ProtoReader.LEN);
                    n++;
                }
                r.skip(t2);
            }
            r.leave(o);
        }
        return n;
    }

    /** The Metric fields of the data oneof: gauge 5, sum 7, histogram 9, exponential histogram 10, summary 11. */
    static boolean isData(int field) {
        return field == 5 || field == 7 || field == 9 || field == 10 || field == 11;
    }

    /** The envelope walker with the Metric as its item. */
    private static final class Envelope extends ProtoEnvelope {
        /** The prefix and the metric's own fields: what every point of the metric starts with. */
        private final FieldBlock metric = new FieldBlock();
        private final MetricPoint point = new MetricPoint();
        /** {@link #metric} as metadata, which each point's message starts as a copy of. */
        private final Metadata metricFields = new Metadata();

        Envelope(int maxDepth) {
            super(maxDepth, Keys.METRIC);
        }

        @Override
        int item(RecordSink sink) throws OtlpFormatException {
            int start = in.position();
            int nameOff = start;
            int nameLen = 0;
            int descOff = 0;
            int descLen = 0;
            int unitOff = 0;
            int unitLen = 0;
            int data = 0;
            int dataOff = 0;
            int dataLen = 0;
            boolean hasMetadata = false;
            while (in.hasMore()) {
                int t = in.readTag();
                int f = ProtoReader.field(t);
                switch (f) {
                    case 1 -> {
                        nameOff = values.readString(t);
                        nameLen = values.lastLength;
                    }
                    case 2 -> {
                        descOff = values.readString(t);
                        descLen = values.lastLength;
                    }
                    case 3 -> {
                        unitOff = values.readString(t);
                        unitLen = values.lastLength;
                    }
                    case 5, 7, 9, 10, 11 -> {
                        in.expect(t, ProtoReader.LEN);
                        data = f;
                        dataLen = in.readLength();
                        dataOff = in.position();
                        in.skipBytes(dataLen);
                    }
                    case 12 -> {
                        in.expect(t, ProtoReader.LEN);
                        hasMetadata = true;
                        in.skip(t);
                    }
                    default -> in.skip(t);
                }
            }
            if (data == 0) {
                return 0; // a metric without data has no points
            }
            byte[] b = in.buffer();
            FieldBlock m = metric;
            m.copyFrom(prefix);
            byte[] type = switch (data) {
                case 5 -> Keys.TYPE_GAUGE;
                case 7 -> Keys.TYPE_SUM;
                case 9 -> Keys.TYPE_HISTOGRAM;
                case 10 -> Keys.TYPE_EXPONENTIAL_HISTOGRAM;
                default -> Keys.TYPE_SUMMARY;
            };
            m.key(Keys.METRIC_TYPE).string(type, 0, type.length);
            if (descLen > 0) {
                m.key(Keys.METRIC_DESCRIPTION).string(b, descOff, descLen);
            }
            if (unitLen > 0) {
                m.key(Keys.METRIC_UNIT).string(b, unitOff, unitLen);
            }
            if (hasMetadata) {
                metadata(start);
            }
            in.position(dataOff);
            int old = in.enter(dataLen);
            int n = data(sink, data, nameOff, nameLen);
            in.leave(old);
            return n;
        }

        /** Writes the metric's metadata (field 12, KeyValues) as a JSON object, walking the metric from {@code start}. */
        private void metadata(int start) throws OtlpFormatException {
            int end = in.position();
            in.position(start);
            JsonWriter json = values.json().reset();
            json.beginObject();
            while (in.hasMore()) {
                int t = in.readTag();
                if (ProtoReader.field(t) == 12) {
                    values.member(t, 1);
                } else {
                    in.skip(t);
                }
            }
            json.endObject();
            metric.key(Keys.METRIC_METADATA).json(json.buffer(), 0, json.length());
            in.position(end);
        }

        /** Decodes the data message the reader is in (a Gauge, Sum, ...): its settings, then its points. */
        private int data(RecordSink sink, int data, int nameOff, int nameLen) throws OtlpFormatException {
            int start = in.position();
            if (data != 5 && data != 11) {
                long temporality = 0;
                boolean monotonic = false;
                while (in.hasMore()) {
                    int t = in.readTag();
                    switch (ProtoReader.field(t)) {
                        case 2 -> {
                            in.expect(t, ProtoReader.VARINT);
                            temporality = (int) in.readVarint(); // an enum is an int32
                        }
                        case 3 -> {
                            if (data != 7) {
                                in.skip(t);
                                continue;
                            }
                            in.expect(t, ProtoReader.VARINT);
                            monotonic = in.readVarint() != 0;
                        }
                        default -> in.skip(t);
                    }
                }
                metric.key(Keys.METRIC_TEMPORALITY).signed(temporality);
                if (data == 7) {
                    metric.key(Keys.METRIC_MONOTONIC).bool(monotonic);
                }
                in.position(start);
            }
            metric.copyToOnly(metricFields);
            int kind = switch (data) {
                case 5, 7 -> MetricPoint.NUMBER;
                case 9 -> MetricPoint.HISTOGRAM;
                case 10 -> MetricPoint.EXPONENTIAL_HISTOGRAM;
                default -> MetricPoint.SUMMARY;
            };
            int n = 0;
            while (in.hasMore()) {
                int t = in.readTag();
                if (ProtoReader.field(t) != 1) {
                    in.skip(t);
                    continue;
                }
                int old = in.enterMessage(t);
                point.reset();
                switch (kind) {
                    case MetricPoint.NUMBER -> numberPoint();
                    case MetricPoint.HISTOGRAM -> histogramPoint();
                    case MetricPoint.EXPONENTIAL_HISTOGRAM -> exponentialPoint();
                    default -> summaryPoint();
                }
                in.leave(old);
                point.emit(sink.next(), kind, metricFields, in.buffer(), nameOff, nameLen);
                n++;
            }
            return n;
        }

        private void numberPoint() throws OtlpFormatException {
            MetricPoint p = point;
            while (in.hasMore()) {
                int t = in.readTag();
                switch (ProtoReader.field(t)) {
                    case 7 -> values.attribute(t, p.fields, Keys.EMPTY);
                    case 2 -> p.startTime = fixed64(t);
                    case 3 -> p.time = fixed64(t);
                    case 4 -> {
                        p.asDouble = Double.longBitsToDouble(fixed64(t));
                        p.valueType = MetricPoint.DOUBLE;
                    }
                    case 6 -> {
                        p.asInt = fixed64(t);
                        p.valueType = MetricPoint.INT;
                    }
                    case 5 -> exemplar(t);
                    case 8 -> p.flags = uint32(t);
                    default -> in.skip(t);
                }
            }
        }

        private void histogramPoint() throws OtlpFormatException {
            MetricPoint p = point;
            while (in.hasMore()) {
                int t = in.readTag();
                switch (ProtoReader.field(t)) {
                    case 9 -> values.attribute(t, p.fields, Keys.EMPTY);
                    case 2 -> p.startTime = fixed64(t);
                    case 3 -> p.time = fixed64(t);
                    case 4 -> p.count = fixed64(t);
                    case 5 -> {
                        p.sum = dbl(t);
                        p.hasSum = true;
                    }
                    case 6 -> fixed64s(t, p.bucketCounts, null);
                    case 7 -> fixed64s(t, null, p.explicitBounds);
                    case 8 -> exemplar(t);
                    case 10 -> p.flags = uint32(t);
                    case 11 -> {
                        p.min = dbl(t);
                        p.hasMin = true;
                    }
                    case 12 -> {
                        p.max = dbl(t);
                        p.hasMax = true;
                    }
                    default -> in.skip(t);
                }
            }
        }

        private void exponentialPoint() throws OtlpFormatException {
            MetricPoint p = point;
            while (in.hasMore()) {
                int t = in.readTag();
                switch (ProtoReader.field(t)) {
                    case 1 -> values.attribute(t, p.fields, Keys.EMPTY);
                    case 2 -> p.startTime = fixed64(t);
                    case 3 -> p.time = fixed64(t);
                    case 4 -> p.count = fixed64(t);
                    case 5 -> {
                        p.sum = dbl(t);
                        p.hasSum = true;
                    }
                    case 6 -> p.scale = sint32(t);
                    case 7 -> p.zeroCount = fixed64(t);
                    case 8 -> {
                        p.positiveOffset = buckets(t, p.positive, p.positiveOffset);
                        p.hasPositive = true;
                    }
                    case 9 -> {
                        p.negativeOffset = buckets(t, p.negative, p.negativeOffset);
                        p.hasNegative = true;
                    }
                    case 10 -> p.flags = uint32(t);
                    case 11 -> exemplar(t);
                    case 12 -> {
                        p.min = dbl(t);
                        p.hasMin = true;
                    }
                    case 13 -> {
                        p.max = dbl(t);
                        p.hasMax = true;
                    }
                    case 14 -> p.zeroThreshold = dbl(t);
                    default -> in.skip(t);
                }
            }
        }

        private void summaryPoint() throws OtlpFormatException {
            MetricPoint p = point;
            while (in.hasMore()) {
                int t = in.readTag();
                switch (ProtoReader.field(t)) {
                    case 7 -> values.attribute(t, p.fields, Keys.EMPTY);
                    case 2 -> p.startTime = fixed64(t);
                    case 3 -> p.time = fixed64(t);
                    case 4 -> p.count = fixed64(t);
                    case 5 -> p.sum = dbl(t);
                    case 6 -> quantile(t);
                    case 8 -> p.flags = uint32(t);
                    default -> in.skip(t);
                }
            }
        }

        /** A ValueAtQuantile: quantile (1) and value (2), doubles. */
        private void quantile(int tag) throws OtlpFormatException {
            int old = in.enterMessage(tag);
            double q = 0;
            double v = 0;
            while (in.hasMore()) {
                int t = in.readTag();
                switch (ProtoReader.field(t)) {
                    case 1 -> q = dbl(t);
                    case 2 -> v = dbl(t);
                    default -> in.skip(t);
                }
            }
            in.leave(old);
            point.quantiles.add(q);
            point.quantiles.add(v);
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
                    case 1 -> offset = sint32(t);
                    case 2 -> varints(t, counts);
                    default -> in.skip(t);
                }
            }
            in.leave(old);
            return offset;
        }

        /** An Exemplar, rendered into the point's exemplar array. */
        private void exemplar(int tag) throws OtlpFormatException {
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
                    case 2 -> time = fixed64(t);
                    case 3 -> {
                        bits = fixed64(t);
                        type = MetricPoint.DOUBLE;
                    }
                    case 6 -> {
                        bits = fixed64(t);
                        type = MetricPoint.INT;
                    }
                    case 4 -> {
                        spanOff = values.readBytes(t);
                        spanLen = id(values.lastLength, 8, "span_id");
                    }
                    case 5 -> {
                        traceOff = values.readBytes(t);
                        traceLen = id(values.lastLength, 16, "trace_id");
                    }
                    default -> in.skip(t);
                }
            }
            in.leave(old);
            point.exemplar(time, type, Double.longBitsToDouble(bits), bits, in.buffer(), traceOff, traceLen, spanOff,
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
                add(fixed64(tag), longs, doubles);
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

        private long fixed64(int tag) throws OtlpFormatException {
            in.expect(tag, ProtoReader.I64);
            return in.readFixed64();
        }

        private double dbl(int tag) throws OtlpFormatException {
            return Double.longBitsToDouble(fixed64(tag));
        }

        /** A sint32: zigzag-encoded, the low 32 bits. */
        private int sint32(int tag) throws OtlpFormatException {
            in.expect(tag, ProtoReader.VARINT);
            int v = (int) in.readVarint();
            return (v >>> 1) ^ -(v & 1);
        }

        private int id(int len, int size, String name) throws OtlpFormatException {
            if (len != 0 && len != size) {
                throw in.error(name + " of " + len + " bytes (expected " + size + ")");
            }
            return len;
        }
    }
}
