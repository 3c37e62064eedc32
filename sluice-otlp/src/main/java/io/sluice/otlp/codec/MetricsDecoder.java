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
public final class MetricsDecoder extends ProtoEnvelope {
    /** A decoder accepting attribute values nested {@link LogsDecoder#DEFAULT_MAX_DEPTH} levels deep. */
    public MetricsDecoder() {
        super(LogsDecoder.DEFAULT_MAX_DEPTH, Keys.METRIC);
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

    /** The prefix and the metric's own fields: what every point of the metric starts with. */
    private final FieldBlock metric = new FieldBlock();
    private final MetricPoint point = new MetricPoint();
    private final PointDecoder points = new PointDecoder(in, values);
    /** {@link #metric} as metadata, which each point's message starts as a copy of. */
    private final Metadata metricFields = new Metadata();

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
            points.read(kind, point);
            in.leave(old);
            point.emit(sink.next(), kind, metricFields, in.buffer(), nameOff, nameLen);
            n++;
        }
        return n;
    }
}
