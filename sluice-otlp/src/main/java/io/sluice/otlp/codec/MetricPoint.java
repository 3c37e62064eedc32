package io.sluice.otlp.codec;

import io.sluice.core.json.JsonWriter;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.util.Arrays;

/**
 * One metric data point on its way into a message, filled by a decoder (protobuf or JSON) and written by
 * {@link #emit}: so both decoders spell a point's fields and its histogram, summary and exemplar JSON the same way.
 * A decoder {@link #reset}s it, adds the point's attributes to {@link #fields}, sets the values it found, adds
 * exemplars one by one ({@link #exemplar}), and emits. Reused from point to point; allocation-free once grown.
 */
final class MetricPoint {
    /** What the point holds, set by the metric's type. */
    static final int NUMBER = 0;
    static final int HISTOGRAM = 1;
    static final int EXPONENTIAL_HISTOGRAM = 2;
    static final int SUMMARY = 3;

    /** How a number point's (or an exemplar's) value was given. */
    static final int NONE = 0;
    static final int DOUBLE = 1;
    static final int INT = 2;

    /** The point's fields: a decoder adds the attributes, {@link #emit} the rest. */
    final FieldBlock fields = new FieldBlock();
    private final JsonWriter json = new JsonWriter();
    private final JsonWriter exemplars = new JsonWriter();
    private final ValueText.Json text = new ValueText.Json();
    private int exemplarCount;

    long startTime;
    long time;
    long flags;
    int valueType;
    double asDouble;
    long asInt;
    long count;
    boolean hasSum;
    double sum;
    boolean hasMin;
    double min;
    boolean hasMax;
    double max;
    int scale;
    long zeroCount;
    double zeroThreshold;
    int positiveOffset;
    int negativeOffset;
    /** Whether the point had a positive / negative Buckets message at all: an absent one stays absent. */
    boolean hasPositive;
    boolean hasNegative;
    final Longs bucketCounts = new Longs();
    final Doubles explicitBounds = new Doubles();
    final Longs positive = new Longs();
    final Longs negative = new Longs();
    /** Quantile, value, quantile, value, ... */
    final Doubles quantiles = new Doubles();

    /** Starts the next point. */
    void reset() {
        fields.clear();
        exemplars.reset();
        exemplarCount = 0;
        startTime = 0;
        time = 0;
        flags = 0;
        valueType = NONE;
        asDouble = 0;
        asInt = 0;
        count = 0;
        hasSum = false;
        sum = 0; // a summary's sum has no presence: written even when not sent
        hasMin = false;
        min = 0;
        hasMax = false;
        max = 0;
        scale = 0;
        zeroCount = 0;
        zeroThreshold = 0;
        positiveOffset = 0;
        negativeOffset = 0;
        hasPositive = false;
        hasNegative = false;
        bucketCounts.size = 0;
        explicitBounds.size = 0;
        positive.size = 0;
        negative.size = 0;
        quantiles.size = 0;
    }

    /**
     * Adds an exemplar: {@code valueType} {@link #DOUBLE}, {@link #INT} or {@link #NONE}; ids as bytes (length 0:
     * not set); its filtered attributes as the members of a JSON object, without braces ({@code al} 0: none).
     */
    void exemplar(long timeUnixNano, int type, double d, long i, byte[] ids, int traceOff, int traceLen, int spanOff,
                  int spanLen, byte[] attrs, int ao, int al) {
        if (exemplarCount++ == 0) {
            exemplars.beginArray();
        }
        JsonWriter w = exemplars;
        w.beginObject();
        w.rawName(Keys.J_TIME_UNIX_NANO, 0, Keys.J_TIME_UNIX_NANO.length);
        text.unsigned(w, timeUnixNano);
        if (type == DOUBLE) {
            w.rawName(Keys.J_AS_DOUBLE, 0, Keys.J_AS_DOUBLE.length);
            text.dbl(w, d);
        } else if (type == INT) {
            w.rawName(Keys.J_AS_INT, 0, Keys.J_AS_INT.length);
            text.signed(w, i);
        }
        if (spanLen > 0 && !ValueText.allZero(ids, spanOff, spanLen)) {
            w.rawName(Keys.J_SPAN_ID, 0, Keys.J_SPAN_ID.length);
            text.hex(w, ids, spanOff, spanLen);
        }
        if (traceLen > 0 && !ValueText.allZero(ids, traceOff, traceLen)) {
            w.rawName(Keys.J_TRACE_ID, 0, Keys.J_TRACE_ID.length);
            text.hex(w, ids, traceOff, traceLen);
        }
        if (al > 0) {
            w.rawName(Keys.J_FILTERED_ATTRIBUTES, 0, Keys.J_FILTERED_ATTRIBUTES.length);
            w.beginObject();
            w.raw(attrs, ao, al);
            w.endObject();
        }
        w.endObject();
    }

    /**
     * Fills {@code m}: the metric's name as payload, the point's time, the metric's fields ({@code metric}: the
     * signal, resource, scope and metric fields, copied as a whole), then the point's attributes, fields and value.
     */
    void emit(Message m, int type, Metadata metric, byte[] name, int nameOff, int nameLen) {
        m.setTimestamp(time);
        m.setPayload(name, nameOff, nameLen);
        FieldBlock f = fields;
        if (startTime != 0) {
            f.key(Keys.START_TIME, Keys.H_START_TIME).unsigned(startTime);
        }
        if (flags != 0) {
            f.key(Keys.FLAGS, Keys.H_FLAGS).unsigned(flags);
        }
        if (exemplarCount > 0) {
            exemplars.endArray();
            f.key(Keys.EXEMPLARS, Keys.H_EXEMPLARS).json(exemplars.buffer(), 0, exemplars.length());
        }
        // The JSON is written before its buffer is taken: writing may grow the buffer (json.buffer() taken first,
        // as an argument before the call that writes, was the old, shorter array: a fuzzing finding).
        switch (type) {
            case NUMBER -> number(f, name, nameOff, nameLen);
            case HISTOGRAM -> {
                int n = histogram();
                f.key(Keys.HISTOGRAM, Keys.H_HISTOGRAM).json(json.buffer(), 0, n);
            }
            case EXPONENTIAL_HISTOGRAM -> {
                int n = exponential();
                f.key(Keys.EXPONENTIAL_HISTOGRAM, Keys.H_EXPONENTIAL_HISTOGRAM).json(json.buffer(), 0, n);
            }
            default -> {
                int n = summary();
                f.key(Keys.SUMMARY, Keys.H_SUMMARY).json(json.buffer(), 0, n);
            }
        }
        Metadata md = m.metadata();
        md.copyFrom(metric);
        f.copyTo(md);
    }

    private void number(FieldBlock f, byte[] name, int nameOff, int nameLen) {
        f.key(Keys.METRIC_VALUE_PREFIX, name, nameOff, nameLen);
        switch (valueType) {
            case DOUBLE -> f.dbl(asDouble);
            case INT -> f.signed(asInt);
            default -> f.nul();
        }
    }

    private void name(byte[] n) {
        json.rawName(n, 0, n.length);
    }

    private int histogram() {
        JsonWriter w = json.reset();
        w.beginObject();
        countSumMinMax();
        name(Keys.J_BUCKET_COUNTS);
        unsignedArray(bucketCounts);
        name(Keys.J_EXPLICIT_BOUNDS);
        w.beginArray();
        for (int i = 0; i < explicitBounds.size; i++) {
            text.dbl(w, explicitBounds.values[i]);
        }
        w.endArray();
        w.endObject();
        return w.length();
    }

    private int exponential() {
        JsonWriter w = json.reset();
        w.beginObject();
        countSumMinMax();
        name(Keys.J_SCALE);
        text.signed(w, scale);
        name(Keys.J_ZERO_COUNT);
        text.unsigned(w, zeroCount);
        name(Keys.J_ZERO_THRESHOLD);
        text.dbl(w, zeroThreshold);
        if (hasPositive) {
            name(Keys.J_POSITIVE);
            buckets(positiveOffset, positive);
        }
        if (hasNegative) {
            name(Keys.J_NEGATIVE);
            buckets(negativeOffset, negative);
        }
        w.endObject();
        return w.length();
    }

    private int summary() {
        JsonWriter w = json.reset();
        w.beginObject();
        name(Keys.J_COUNT);
        text.unsigned(w, count);
        name(Keys.J_SUM);
        text.dbl(w, sum);
        name(Keys.J_QUANTILE_VALUES);
        w.beginArray();
        for (int i = 0; i + 1 < quantiles.size; i += 2) {
            w.beginObject();
            name(Keys.J_QUANTILE);
            text.dbl(w, quantiles.values[i]);
            name(Keys.J_VALUE);
            text.dbl(w, quantiles.values[i + 1]);
            w.endObject();
        }
        w.endArray();
        w.endObject();
        return w.length();
    }

    private void countSumMinMax() {
        name(Keys.J_COUNT);
        text.unsigned(json, count);
        if (hasSum) {
            name(Keys.J_SUM);
            text.dbl(json, sum);
        }
        if (hasMin) {
            name(Keys.J_MIN);
            text.dbl(json, min);
        }
        if (hasMax) {
            name(Keys.J_MAX);
            text.dbl(json, max);
        }
    }

    private void buckets(int offset, Longs counts) {
        json.beginObject();
        name(Keys.J_OFFSET);
        text.signed(json, offset);
        name(Keys.J_BUCKET_COUNTS);
        unsignedArray(counts);
        json.endObject();
    }

    private void unsignedArray(Longs values) {
        json.beginArray();
        for (int i = 0; i < values.size; i++) {
            text.unsigned(json, values.values[i]);
        }
        json.endArray();
    }

    /** A growable list of longs, reused. */
    static final class Longs {
        long[] values = new long[16];
        int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }
    }

    /** A growable list of doubles, reused. */
    static final class Doubles {
        double[] values = new double[16];
        int size;

        void add(double v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }
    }
}
