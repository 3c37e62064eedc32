package io.sluice.hec.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.OtlpFields;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static io.sluice.hec.codec.OtlpEvents.METRIC_PREFIX;
import static io.sluice.hec.codec.OtlpEvents.RESOURCE_PREFIX;
import static io.sluice.hec.codec.OtlpEvents.ascii;
import static io.sluice.hec.codec.OtlpEvents.equal;
import static io.sluice.hec.codec.OtlpEvents.is;
import static io.sluice.hec.codec.OtlpEvents.parseLong;
import static io.sluice.hec.codec.OtlpEvents.unsignedToDouble;
import static io.sluice.hec.codec.OtlpKeys.FIELD;
import static io.sluice.hec.codec.OtlpKeys.HISTOGRAM;
import static io.sluice.hec.codec.OtlpKeys.SUMMARY;
import static io.sluice.hec.codec.OtlpKeys.TYPE;

/**
 * An OTLP metric data point as the exporter's {@code mapMetricToSplunkEvent} maps it, by kind: a gauge or sum is
 * one event; a histogram {@code _sum}, {@code _count} and cumulative {@code _bucket} events with {@code le}; a
 * summary {@code _sum}, {@code _count} and one event per quantile with {@code qt}. The events share one header and
 * the point's dimensions; each adds its own dimension and measurement, so that the encoder can write them whole
 * (single-metric) or as prefix and measurement (multi-metric).
 * <p>Just over 400 lines: one method per metric kind (gauge, sum, histogram, exponential histogram, summary), as
 * the exporter has one function per kind; splitting them would spread one mapping over several files.
 */
final class OtlpMetricEvents {
    private static final byte[] METRIC_TYPE = ascii("metric_type");
    private static final byte[] LE = ascii("le");
    private static final byte[] QT = ascii("qt");
    private static final byte[] PLUS_INF = ascii("+Inf");
    private static final byte[] MINUS_INF = ascii("-Inf");
    private static final byte[] NAN = ascii("NaN");
    private static final byte[] INFINITY = ascii("Infinity");
    private static final byte[] MINUS_INFINITY = ascii("-Infinity");
    private static final byte[] SUFFIX_SUM = ascii("_sum");
    private static final byte[] SUFFIX_COUNT = ascii("_count");
    private static final byte[] SUFFIX_BUCKET = ascii("_bucket");
    private static final byte[] M_COUNT = ascii("count");
    private static final byte[] M_SUM = ascii("sum");
    private static final byte[] M_BUCKETS = ascii("bucketCounts");
    private static final byte[] M_BOUNDS = ascii("explicitBounds");
    private static final byte[] M_QUANTILES = ascii("quantileValues");
    private static final byte[] M_QUANTILE = ascii("quantile");
    private static final byte[] M_VALUE = ascii("value");
    private static final byte[] H_METRIC = ascii(",\"event\":\"metric\",\"fields\":{");

    // metric_type values and the otlp.metric.type names they stand for.
    private static final byte[][] TYPE_NAMES = {ascii(OtlpFields.TYPE_GAUGE), ascii(OtlpFields.TYPE_SUM),
        ascii(OtlpFields.TYPE_HISTOGRAM), ascii(OtlpFields.TYPE_SUMMARY)};
    private static final byte[][] TYPE_VALUES = {ascii("Gauge"), ascii("Sum"), ascii("Histogram"), ascii("Summary")};

    private final OtlpKeys keys;
    private final OtlpHeader header;
    private final OtlpEntries fields;
    /** A metric message's header: everything before its fields' entries. */
    private final ByteOut hdr = new ByteOut(256);

    // A metric message's events: their extra dimension (le, qt) and measurement entries (-1: none).
    private int events;
    private int[] evDim = new int[16];
    private int[] evMeasure = new int[16];

    OtlpMetricEvents(OtlpKeys keys, OtlpHeader header, OtlpEntries fields) {
        this.keys = keys;
        this.header = header;
        this.fields = fields;
    }

    /**
     * Prepares the events of the OTLP metric data point in {@code m}, as {@code mapMetricToSplunkEvent}; returns
     * how many there are (then {@link #writeEvent} or {@link #writePrefix}/{@link #writeMeasurement} each), or -1
     * when the exporter would send none: an exponential histogram, an unknown type.
     */
    int beginMetric(Message m, Metadata md) {
        keys.classify(md, true);
        int type = metricType(md);
        if (type < 0) {
            return -1;
        }
        keys.pickMeta(false); // the point's own attributes are only dimensions

        fields.clear();
        byte[] a = md.arena();
        for (int j = 0; j < keys.resCount; j++) {
            if (keys.resCode[j] == FIELD) {
                int i = keys.res[j];
                int e = fields.entry(a, md.keyOffset(i) + RESOURCE_PREFIX.length, md.keyLength(i) - RESOURCE_PREFIX.length);
                fields.asString(md, i);
                fields.endEntry(e);
            }
        }
        for (int j = 0; j < keys.recCount; j++) {
            int i = keys.rec[j];
            int e = fields.entry(a, md.keyOffset(i), md.keyLength(i));
            fields.asString(md, i);
            fields.endEntry(e);
        }
        int e = fields.entry(METRIC_TYPE, 0, METRIC_TYPE.length);
        fields.ents.writeQuoted(TYPE_VALUES[type], 0, TYPE_VALUES[type].length);
        fields.endEntry(e);
        int dims = fields.entries;
        fields.sortEntries(dims);

        // math.Round(float64(ts)/1e6): ts is a uint64 (one past 2^63 is a negative long here).
        hdr.clear();
        byte[] hb = hdr.ensure(header.headerRoom(md) + H_METRIC.length);
        int hat = header.putHeader(hb, 0, Math.round(unsignedToDouble(m.timestamp()) / 1e6), md.arena());
        System.arraycopy(H_METRIC, 0, hb, hat, H_METRIC.length);
        hdr.setLength(hat + H_METRIC.length);

        events = 0;
        switch (type) {
            case 0, 1 -> numberEvent(m, md);
            case 2 -> histogramEvents(m, md);
            default -> summaryEvents(m, md);
        }
        return events;
    }

    /** Index of the metric_type value, -1 for a type the exporter does not send. */
    private int metricType(Metadata md) {
        int t = keys.at[TYPE];
        if (t < 0) {
            return keys.iValue >= 0 ? 0 : -1; // a number point without its type: a gauge
        }
        for (int k = 0; k < TYPE_NAMES.length; k++) {
            if (is(md, t, TYPE_NAMES[k])) {
                return k;
            }
        }
        return -1; // exponential_histogram: "Point with unsupported type ExponentialHistogram"
    }

    private void addEvent(int dim, int measure) {
        if (events == evDim.length) {
            evDim = Arrays.copyOf(evDim, events * 2);
            evMeasure = Arrays.copyOf(evMeasure, events * 2);
        }
        evDim[events] = dim;
        evMeasure[events] = measure;
        events++;
    }

    /** Starts the entry {@code "metric_name:<name><suffix>":}; the value is written next. */
    private int measureEntry(Message m, byte[] suffix, int suffixLen) {
        int e = fields.startEntry();
        fields.ents.write(METRIC_PREFIX);
        fields.ents.writeEscaped(m.payload(), 0, m.length());
        fields.ents.writeEscaped(suffix, 0, suffixLen);
        fields.keyDone(e);
        return e;
    }

    /** Gauge and sum: one event; a point without a value still makes one, without a measurement, as in Go. */
    private void numberEvent(Message m, Metadata md) {
        if (keys.iValue < 0) {
            addEvent(-1, -1);
            return;
        }
        int e = measureEntry(m, SUFFIX_SUM, 0); // no suffix: metric_name:<name>
        byte[] a = md.arena();
        int vo = md.valueOffset(keys.iValue);
        int vl = md.valueLength(keys.iValue);
        boolean special = equal(a, vo, vl, NAN) || equal(a, vo, vl, INFINITY) || equal(a, vo, vl, MINUS_INFINITY);
        if (md.kind(keys.iValue) == Metadata.NUMBER && !special) {
            fields.json.writeNumber(a, vo, vl, fields.ents, GoNumbers.JSON);
        } else {
            sanitized(a, vo, vl, true);
        }
        fields.endEntry(e);
        addEvent(-1, e);
    }

    /**
     * The exporter's {@code sanitizeFloat}: a value that is {@code text} (string contents: {@code NaN},
     * {@code Infinity}, {@code -Infinity}, as the contract writes what JSON cannot) becomes {@code "NaN"},
     * {@code "+Inf"}, {@code "-Inf"}; otherwise it is a JSON token, a number or a quoted string.
     */
    private void sanitized(byte[] b, int off, int len, boolean text) {
        if (!text && len > 0 && b[off] == '"') {
            off++;
            len -= 2;
            text = true;
        }
        if (!text) {
            fields.json.writeNumber(b, off, len, fields.ents, GoNumbers.JSON);
        } else if (equal(b, off, len, INFINITY)) {
            fields.ents.writeQuoted(PLUS_INF, 0, PLUS_INF.length);
        } else if (equal(b, off, len, MINUS_INFINITY)) {
            fields.ents.writeQuoted(MINUS_INF, 0, MINUS_INF.length);
        } else {
            fields.ents.writeQuoted(b, off, len);
        }
    }

    private static int member(byte[] b, JsonFields f, byte[] name) {
        return f.lastIndexOf(b, name, 0, name.length);
    }

    /** Histogram: {@code _sum} (when set and not NaN), {@code _count}, then cumulative {@code _bucket} per bound. */
    private void histogramEvents(Message m, Metadata md) {
        int h = keys.at[HISTOGRAM];
        if (h < 0) {
            return;
        }
        byte[] a = md.arena();
        int ho = md.valueOffset(h);
        int hEnd = ho + md.valueLength(h);
        JsonFields f = fields.json.level(0);
        if (!fields.json.scanner.scanObject(a, ho, hEnd, f)) {
            return;
        }
        sumAndCount(m, a, f, false);
        int ci = member(a, f, M_BUCKETS);
        int bi = member(a, f, M_BOUNDS);
        JsonFields counts = fields.json.level(1);
        JsonFields bounds = fields.json.level(2);
        int nc = ci >= 0 && scanArray(a, f, ci, counts) ? counts.size() : 0;
        int nb = bi >= 0 && scanArray(a, f, bi, bounds) ? bounds.size() : 0;
        if (nc == 0 || nc != nb + 1) {
            return; // "Spec says counts is optional but if present it must have one more element than the bounds"
        }
        long value = 0;
        for (int i = 0; i <= nb; i++) {
            int d = fields.startEntry();
            fields.ents.write(LE);
            fields.keyDone(d);
            fields.ents.write('"');
            if (i < nb) {
                dimValue(a, bounds.valueOffset(i), bounds.valueLength(i), bounds.kind(i) == JsonFields.STRING);
            } else {
                fields.ents.write(PLUS_INF);
            }
            fields.ents.write('"');
            fields.endEntry(d);
            value += parseLong(a, counts.valueOffset(i), counts.valueLength(i));
            int e = measureEntry(m, SUFFIX_BUCKET, SUFFIX_BUCKET.length);
            putUnsigned(fields.ents, value);
            fields.endEntry(e);
            addEvent(d, e);
        }
    }

    private boolean scanArray(byte[] a, JsonFields f, int i, JsonFields into) {
        if (f.kind(i) != JsonFields.ARRAY) {
            return false;
        }
        int vo = f.valueOffset(i);
        return fields.json.scanner.scanArray(a, vo, vo + f.valueLength(i), into);
    }

    /** The {@code _sum} (finite, not NaN) and {@code _count} events of a histogram or summary object {@code f}. */
    private void sumAndCount(Message m, byte[] a, JsonFields f, boolean summary) {
        int si = member(a, f, M_SUM);
        if (si >= 0 && f.kind(si) == JsonFields.NUMBER) { // finite: NaN and the infinities are strings
            // Go's fields.json.Marshal fails on an infinite sum and the exporter drops that event; NaN it skips itself.
            int e = measureEntry(m, SUFFIX_SUM, SUFFIX_SUM.length);
            fields.json.writeNumber(a, f.valueOffset(si), f.valueLength(si), fields.ents, GoNumbers.JSON);
            fields.endEntry(e);
            addEvent(-1, e);
        } else if (si < 0 && summary) {
            // A histogram's sum is optional (HasSum); a summary's is not, and unset reads as 0 in pdata.
            int e = measureEntry(m, SUFFIX_SUM, SUFFIX_SUM.length);
            fields.ents.write('0');
            fields.endEntry(e);
            addEvent(-1, e);
        }
        int ci = member(a, f, M_COUNT);
        int e = measureEntry(m, SUFFIX_COUNT, SUFFIX_COUNT.length);
        putUnsigned(fields.ents, ci < 0 ? 0 : parseLong(a, f.valueOffset(ci), f.valueLength(ci)));
        fields.endEntry(e);
        addEvent(-1, e);
    }

    /** Summary: {@code _sum}, {@code _count}, then {@code _<quantile>} with dimension {@code qt} per quantile. */
    private void summaryEvents(Message m, Metadata md) {
        int s = keys.at[SUMMARY];
        if (s < 0) {
            return;
        }
        byte[] a = md.arena();
        int so = md.valueOffset(s);
        JsonFields f = fields.json.level(0);
        if (!fields.json.scanner.scanObject(a, so, so + md.valueLength(s), f)) {
            return;
        }
        sumAndCount(m, a, f, true);
        int qi = member(a, f, M_QUANTILES);
        JsonFields qs = fields.json.level(1);
        if (qi < 0 || !scanArray(a, f, qi, qs)) {
            return;
        }
        JsonFields q = fields.json.level(2);
        for (int i = 0; i < qs.size(); i++) {
            int vo = qs.valueOffset(i);
            if (qs.kind(i) != JsonFields.OBJECT || !fields.json.scanner.scanObject(a, vo, vo + qs.valueLength(i), q)) {
                continue;
            }
            int qq = member(a, q, M_QUANTILE);
            int qv = member(a, q, M_VALUE);
            int d = fields.startEntry();
            fields.ents.write(QT);
            fields.keyDone(d);
            fields.ents.write('"');
            if (qq >= 0) {
                dimValue(a, q.valueOffset(qq), q.valueLength(qq), q.kind(qq) == JsonFields.STRING);
            } else {
                fields.ents.write('0');
            }
            fields.ents.write('"');
            fields.endEntry(d);
            // The measurement: metric_name:<name>_<strconv.FormatFloat(quantile, 'f', -1, 64)>.
            int e = fields.startEntry();
            fields.ents.write(METRIC_PREFIX);
            fields.ents.writeEscaped(m.payload(), 0, m.length());
            fields.ents.write('_');
            if (qq >= 0) {
                fields.json.writeNumber(a, q.valueOffset(qq), q.valueLength(qq), fields.ents, GoNumbers.F);
            } else {
                fields.ents.write('0');
            }
            fields.keyDone(e);
            if (qv >= 0) {
                sanitized(a, q.valueOffset(qv), q.valueLength(qv), q.kind(qv) == JsonFields.STRING);
            } else {
                fields.ents.write('0');
            }
            fields.endEntry(e);
            addEvent(d, e);
        }
    }

    /** {@code strconv.FormatFloat(f, 'g', -1, 64)} of a bound or quantile (inside quotes). */
    private void dimValue(byte[] b, int off, int len, boolean text) {
        if (!text) {
            fields.json.writeNumber(b, off, len, fields.ents, GoNumbers.G);
        } else if (equal(b, off, len, INFINITY)) {
            fields.ents.write(PLUS_INF);
        } else if (equal(b, off, len, MINUS_INFINITY)) {
            fields.ents.write(MINUS_INF);
        } else {
            fields.ents.writeEscaped(b, off, len); // "NaN", or a count written as a string
        }
    }

    private static void putUnsigned(ByteOut o, long v) {
        if (v >= 0) {
            o.writeLong(v);
        } else {
            byte[] s = Long.toUnsignedString(v).getBytes(StandardCharsets.US_ASCII); // counts past 2^63: rare
            o.write(s);
        }
    }

    /** Event {@code k}'s whole text, its fields in key order, with {@code }}\n}: the single-metric format. */
    void writeEvent(int k, ByteOut o) {
        o.write(hdr.array(), 0, hdr.length());
        fields.writeEntries(o, evDim[k], evMeasure[k]);
        o.write('}');
        o.write('}');
        o.write('\n');
    }

    /**
     * Event {@code k} up to its measurement (header and dimensions, in key order): what decides which multi-metric
     * event it joins. Returns whether {@code fields} has fields.entries so far.
     */
    boolean writePrefix(int k, ByteOut o) {
        o.write(hdr.array(), 0, hdr.length());
        int before = o.length();
        fields.writeEntries(o, evDim[k], -1);
        return o.length() > before;
    }

    /** Event {@code k}'s measurement, after a comma when {@code comma}; nothing for a point without a value. */
    void writeMeasurement(int k, ByteOut o, boolean comma) {
        int e = evMeasure[k];
        if (e >= 0) {
            if (comma) {
                o.write(',');
            }
            o.write(fields.ents.array(), fields.eOff[e], fields.eEnd[e] - fields.eOff[e]);
        }
    }

    /** A hash of event {@code k}'s measurement name (0 without one), for multi-metric duplicate checks. */
    int measurementHash(int k) {
        int e = evMeasure[k];
        return e < 0 ? 0 : Metadata.hash(fields.ents.array(), fields.eOff[e] + 1, fields.eKey[e]);
    }

    /** Whether event {@code k} has a measurement. */
    boolean hasMeasurement(int k) {
        return evMeasure[k] >= 0;
    }
}
