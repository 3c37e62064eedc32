package io.sluice.otlp.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.message.Metadata;

/**
 * The parts of a data point the message model keeps as JSON ({@link io.sluice.core.message.OtlpFields}: a
 * histogram's, exponential histogram's or summary's counts, sums and buckets, and exemplars), written back as the
 * point's protobuf fields for {@link MetricsEncoder}. Scans with reused {@link JsonFields}, so it allocates nothing
 * per point.
 */
final class PointJson {
    private final ProtoWriter out;
    private final Values values;
    private final JsonScanner scanner = new JsonScanner();
    private final JsonFields point = new JsonFields();
    private final JsonFields array = new JsonFields();
    private final JsonFields inner = new JsonFields();
    private final JsonFields innerArray = new JsonFields();
    private final JsonFields exemplars = new JsonFields();
    private final JsonFields exemplar = new JsonFields();

    /** Writes into {@code out}, the encoder's request, with the encoder's {@code values} for attributes and ids. */
    PointJson(ProtoWriter out, Values values) {
        this.out = out;
        this.values = values;
    }

    private boolean scan(Metadata md, int i, JsonFields into) {
        return i >= 0 && scanner.scanObject(md.arena(), md.valueOffset(i), md.valueOffset(i) + md.valueLength(i), into);
    }

    /** A HistogramDataPoint's own fields from the JSON object of field {@code i} (none when absent). */
    void histogram(Metadata md, int i) {
        if (!scan(md, i, point)) {
            return;
        }
        byte[] a = md.arena();
        fixed64(a, point, Keys.J_COUNT, 4);
        optionalDouble(a, point, Keys.J_SUM, 5);
        packed64(a, point, Keys.J_BUCKET_COUNTS, 6, false);
        packed64(a, point, Keys.J_EXPLICIT_BOUNDS, 7, true);
        optionalDouble(a, point, Keys.J_MIN, 11);
        optionalDouble(a, point, Keys.J_MAX, 12);
    }

    /** An ExponentialHistogramDataPoint's own fields from the JSON object of field {@code i}. */
    void exponential(Metadata md, int i) {
        if (!scan(md, i, point)) {
            return;
        }
        byte[] a = md.arena();
        fixed64(a, point, Keys.J_COUNT, 4);
        optionalDouble(a, point, Keys.J_SUM, 5);
        int scale = point.lastIndexOf(a, Keys.J_SCALE, 0, Keys.J_SCALE.length);
        if (scale >= 0) {
            out.sint32Field(6, (int) Text.parseLong(a, point.valueOffset(scale), point.valueLength(scale)));
        }
        fixed64(a, point, Keys.J_ZERO_COUNT, 7);
        buckets(a, point.lastIndexOf(a, Keys.J_POSITIVE, 0, Keys.J_POSITIVE.length), 8);
        buckets(a, point.lastIndexOf(a, Keys.J_NEGATIVE, 0, Keys.J_NEGATIVE.length), 9);
        optionalDouble(a, point, Keys.J_MIN, 12);
        optionalDouble(a, point, Keys.J_MAX, 13);
        optionalDouble(a, point, Keys.J_ZERO_THRESHOLD, 14);
    }

    /** Buckets {offset (sint32), bucket_counts (packed uint64)} from the JSON object of member {@code k}. */
    private void buckets(byte[] a, int k, int field) {
        if (k < 0 || point.kind(k) != JsonFields.OBJECT) {
            return;
        }
        int off = point.valueOffset(k);
        if (!scanner.scanObject(a, off, off + point.valueLength(k), inner)) {
            return;
        }
        out.begin(field);
        int o = inner.lastIndexOf(a, Keys.J_OFFSET, 0, Keys.J_OFFSET.length);
        if (o >= 0) {
            out.sint32Field(1, (int) Text.parseLong(a, inner.valueOffset(o), inner.valueLength(o)));
        }
        int c = inner.lastIndexOf(a, Keys.J_BUCKET_COUNTS, 0, Keys.J_BUCKET_COUNTS.length);
        if (c >= 0 && scanArray(a, inner, c, innerArray) && innerArray.size() > 0) {
            out.begin(2);
            for (int j = 0; j < innerArray.size(); j++) {
                out.varint64(Text.parseLong(a, innerArray.valueOffset(j), innerArray.valueLength(j)));
            }
            out.end();
        }
        out.end();
    }

    /** A SummaryDataPoint's own fields from the JSON object of field {@code i}. */
    void summary(Metadata md, int i) {
        if (!scan(md, i, point)) {
            return;
        }
        byte[] a = md.arena();
        fixed64(a, point, Keys.J_COUNT, 4);
        optionalDouble(a, point, Keys.J_SUM, 5);
        int q = point.lastIndexOf(a, Keys.J_QUANTILE_VALUES, 0, Keys.J_QUANTILE_VALUES.length);
        if (q < 0 || !scanArray(a, point, q, array)) {
            return;
        }
        for (int j = 0; j < array.size(); j++) {
            int off = array.valueOffset(j);
            if (array.kind(j) != JsonFields.OBJECT || !scanner.scanObject(a, off, off + array.valueLength(j), inner)) {
                continue;
            }
            out.begin(6);
            optionalDouble(a, inner, Keys.J_QUANTILE, 1);
            optionalDouble(a, inner, Keys.J_VALUE, 2);
            out.end();
        }
    }

    /** The exemplars of the JSON array at {@code a[off, off+len)}, each as repeated field {@code field}. */
    void exemplars(int field, byte[] a, int off, int len) {
        if (!scanner.scanArray(a, off, off + len, exemplars)) {
            return;
        }
        for (int j = 0; j < exemplars.size(); j++) {
            int xo = exemplars.valueOffset(j);
            if (exemplars.kind(j) != JsonFields.OBJECT
                    || !scanner.scanObject(a, xo, xo + exemplars.valueLength(j), exemplar)) {
                continue;
            }
            out.begin(field);
            int f = exemplar.lastIndexOf(a, Keys.J_FILTERED_ATTRIBUTES, 0, Keys.J_FILTERED_ATTRIBUTES.length);
            if (f >= 0 && exemplar.kind(f) == JsonFields.OBJECT) {
                values.objectMembers(out, 7, a, exemplar.valueOffset(f), exemplar.valueLength(f));
            }
            fixed64(a, exemplar, Keys.J_TIME_UNIX_NANO, 2);
            optionalDouble(a, exemplar, Keys.J_AS_DOUBLE, 3);
            int asInt = exemplar.lastIndexOf(a, Keys.J_AS_INT, 0, Keys.J_AS_INT.length);
            if (asInt >= 0) {
                out.fixed64Field(6, Text.parseLong(a, exemplar.valueOffset(asInt), exemplar.valueLength(asInt)));
            }
            hex(a, exemplar, Keys.J_SPAN_ID, 4);
            hex(a, exemplar, Keys.J_TRACE_ID, 5);
            out.end();
        }
    }

    private boolean scanArray(byte[] a, JsonFields f, int k, JsonFields into) {
        int off = f.valueOffset(k);
        return f.kind(k) == JsonFields.ARRAY && scanner.scanArray(a, off, off + f.valueLength(k), into);
    }

    /** A fixed64 field from member {@code key} (a number or a string of digits), when present. */
    private void fixed64(byte[] a, JsonFields f, byte[] key, int field) {
        int k = f.lastIndexOf(a, key, 0, key.length);
        if (k >= 0) {
            out.fixed64Field(field, Text.parseLong(a, f.valueOffset(k), f.valueLength(k)));
        }
    }

    /** A double field from member {@code key}, when present (presence matters: sum, min and max are optional). */
    private void optionalDouble(byte[] a, JsonFields f, byte[] key, int field) {
        int k = f.lastIndexOf(a, key, 0, key.length);
        if (k >= 0 && f.kind(k) != JsonFields.NULL) {
            out.doubleField(field, Text.parseDouble(a, f.valueOffset(k), f.valueLength(k)));
        }
    }

    /** A packed repeated fixed64 field, or with {@code doubles} a packed double field, from the array {@code key}. */
    private void packed64(byte[] a, JsonFields f, byte[] key, int field, boolean doubles) {
        int k = f.lastIndexOf(a, key, 0, key.length);
        if (k >= 0 && scanArray(a, f, k, array) && array.size() > 0) {
            out.tag(field, ProtoWriter.LEN);
            out.varint32(array.size() * 8);
            for (int j = 0; j < array.size(); j++) {
                int o = array.valueOffset(j);
                int n = array.valueLength(j);
                out.fixed64(doubles ? Double.doubleToRawLongBits(Text.parseDouble(a, o, n)) : Text.parseLong(a, o, n));
            }
        }
    }

    private void hex(byte[] a, JsonFields f, byte[] key, int field) {
        int k = f.lastIndexOf(a, key, 0, key.length);
        if (k >= 0) {
            int n = values.hex(a, f.valueOffset(k), f.valueLength(k));
            if (n > 0) {
                out.bytesField(field, values.scratch(), 0, n);
            }
        }
    }
}
