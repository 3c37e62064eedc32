package io.sluice.hec.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.OtlpFields;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The HEC events of an OTLP log record or metric data point (a message marked by {@code otlp.signal}, laid out
 * as {@link OtlpFields} says), mapped as the OpenTelemetry Collector's splunkhec exporter maps them
 * ({@code logdata_to_splunk.go}, {@code metricdata_to_splunk.go}). What it keeps from the exporter:
 * <ul>
 *   <li>host, source, sourcetype and index from the resource attributes and then (logs only) the record's
 *       attributes named by {@code otel_attrs_to_hec_metadata} ({@code host.name}, {@code com.splunk.*}), else the
 *       producer's Source/Sourcetype/Index; host falls back to the producer's Host and then, as in the exporter,
 *       to {@code unknown}. Those attributes and {@code com.splunk.hec.access_token} are not sent as fields
 *       (a metric point's own attributes are all sent, as the exporter does);</li>
 *   <li>a log's {@code time} is its time (else its observed time) rounded to the millisecond; {@code event} its
 *       body; {@code fields} span_id, trace_id, the severity under the configured keys, then resource and record
 *       attributes, maps flattened with dots, flat arrays kept and other arrays as their JSON text. A record
 *       without a body is skipped, silently as the exporter skips it (Splunk rejects empty events);</li>
 *   <li>a metric point's dimensions are its resource and point attributes as strings, with {@code metric_type}
 *       ({@code Gauge}, {@code Sum}, {@code Histogram}, {@code Summary}); a histogram becomes {@code _sum} (when
 *       set and not NaN), {@code _count} and cumulative {@code _bucket} events with {@code le} (the last
 *       {@code +Inf}); a summary {@code _sum}, {@code _count} and {@code _<quantile>} events with {@code qt};
 *       NaN and infinite values as {@code "NaN"}, {@code "+Inf"}, {@code "-Inf"}. Exponential histograms are
 *       skipped, as the exporter skips them ("unsupported type");</li>
 *   <li>{@code fields} keys in Go's map order (sorted), numbers as Go prints them, so that an event reads byte
 *       for byte as the exporter's, but for the newline after each event and Go's escaping of {@code <>&}.</li>
 * </ul>
 * Keys of scope attributes and the other {@code otlp.*} fields are not sent: the exporter ignores them too.
 * Everything is written through reused buffers; nothing is allocated per event once they have grown. The records
 * of a resource and scope carry the same keys in the same order: what depends only on the keys (which field is
 * what, a log record's sorted fields with their keys encoded) is kept from the last message and reused while a
 * word-wise check finds the same keys ({@link #classify}, {@link #plan}).
 */
final class OtlpEvents {
    /** {@link #signal}: not an OTLP message. */
    static final int NONE = 0;
    /** {@link #signal}: an OTLP log record. */
    static final int LOG = 1;
    /** {@link #signal}: an OTLP metric data point. */
    static final int METRIC = 2;

    private static final Metadata.Key SIGNAL = new Metadata.Key(OtlpFields.SIGNAL);
    private static final byte[] LOG_VALUE = ascii(OtlpFields.SIGNAL_LOG);
    private static final byte[] METRIC_VALUE = ascii(OtlpFields.SIGNAL_METRIC);
    private static final byte[] OTLP_PREFIX = ascii("otlp.");
    private static final byte[] RESOURCE_PREFIX = ascii(OtlpFields.RESOURCE_PREFIX);
    private static final byte[] SCOPE_PREFIX = ascii("scope.");
    private static final byte[] METRIC_PREFIX = ascii(OtlpFields.METRIC_VALUE_PREFIX);
    private static final byte[] TOKEN = ascii("com.splunk.hec.access_token");
    private static final byte[] UNKNOWN = ascii("unknown");
    private static final byte[] EMPTY = ascii("empty");
    private static final byte[] SPAN_ID = ascii("span_id");
    private static final byte[] TRACE_ID = ascii("trace_id");
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

    private static final byte[] H_TIME = ascii("{\"time\":");
    private static final byte[] H_HOST = ascii("\"host\":");
    private static final byte[] H_SOURCE = ascii(",\"source\":");
    private static final byte[] H_SOURCETYPE = ascii(",\"sourcetype\":");
    private static final byte[] H_INDEX = ascii(",\"index\":");
    private static final byte[] H_EVENT = ascii(",\"event\":");
    private static final byte[] H_METRIC = ascii(",\"event\":\"metric\",\"fields\":{");
    private static final byte[] H_FIELDS = ascii(",\"fields\":{");

    // The otlp.* keys read, and where classify() found them (-1: absent).
    private static final byte[][] OTLP_KEYS = {ascii(OtlpFields.SEVERITY_TEXT), ascii(OtlpFields.SEVERITY_NUMBER),
        ascii(OtlpFields.TRACE_ID), ascii(OtlpFields.SPAN_ID), ascii(OtlpFields.OBSERVED_TIME),
        ascii(OtlpFields.BODY_TYPE), ascii(OtlpFields.METRIC_TYPE), ascii(OtlpFields.HISTOGRAM),
        ascii(OtlpFields.SUMMARY)};
    private static final int SEV_TEXT = 0;
    private static final int SEV_NUMBER = 1;
    private static final int TRACE = 2;
    private static final int SPAN = 3;
    private static final int OBSERVED = 4;
    private static final int BODY_TYPE = 5;
    private static final int TYPE = 6;
    private static final int HISTOGRAM = 7;
    private static final int SUMMARY = 8;
    private final int[] at = new int[OTLP_KEYS.length];

    // metric_type values and the otlp.metric.type names they stand for.
    private static final byte[][] TYPE_NAMES = {ascii(OtlpFields.TYPE_GAUGE), ascii(OtlpFields.TYPE_SUM),
        ascii(OtlpFields.TYPE_HISTOGRAM), ascii(OtlpFields.TYPE_SUMMARY)};
    private static final byte[][] TYPE_VALUES = {ascii("Gauge"), ascii("Sum"), ascii("Histogram"), ascii("Summary")};

    private final HecFormat format;
    private final GoNumbers numbers = new GoNumbers();
    private final GoJson json = new GoJson(numbers);
    /** The current message's fields entries ({@code "key":value}) and, after them, its events' own entries. */
    private final ByteOut ents = new ByteOut(1024);
    /** A flattened key being built (escaped), for maps in log attributes. */
    private final ByteOut keys = new ByteOut(128);
    /** Scratch for JSON text that is sent as a string. */
    private final ByteOut tmp = new ByteOut(256);
    /** A metric message's header: everything before its fields' entries. */
    private final ByteOut hdr = new ByteOut(256);

    private int entries;
    private int[] eOff = new int[32];
    private int[] eKey = new int[32];
    private int[] eEnd = new int[32];
    /** Entries [0, unique) in key order, each key once (the last one set wins, as in a Go map). */
    private int[] order = new int[32];
    private int unique;

    // The current message's resource and record (or point) attributes: metadata indices, and what the exporter
    // makes of each key (FIELD, or one of HOST..TOKEN_CODE: not a field).
    private int[] res = new int[16];
    private int[] resCode = new int[16];
    private int resCount;
    private int[] rec = new int[16];
    private int[] recCode = new int[16];
    private int recCount;
    private int iValue;
    private static final int FIELD = 0;
    private static final int HOST = 1;
    private static final int SOURCE = 2;
    private static final int SOURCETYPE = 3;
    private static final int INDEX = 4;
    private static final int TOKEN_CODE = 5;
    /** The fields giving host, source, sourcetype, index: from the resource [1..4] and from the record [6..9]. */
    private final int[] meta = new int[11];
    // Fields giving host, source, sourcetype, index (-1: the default).
    private int iHost;
    private int iSource;
    private int iSourcetype;
    private int iIndex;

    // The last host/source/sourcetype/index written and their encoding: consecutive records mostly share them.
    private final byte[][] lastValue = {new byte[64], new byte[64], new byte[64], new byte[64]};
    private final int[] lastLength = new int[4];
    private final ByteOut lastMeta = new ByteOut(256);
    private boolean lastValid;
    /**
     * Whether slot s's value lies in the message's arena (else it is the default, {@link #defaults}): a flag, not
     * the array, since storing a reference into this long-lived object costs a GC write barrier with a fence.
     */
    private final boolean[] valueInArena = new boolean[4];
    /** The defaults of host (else "unknown"), source, sourcetype and index. */
    private final byte[][] defaults;
    private final int[] valueOffset = new int[4];
    private final int[] valueLength = new int[4];

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int W_OTLP = (int) INTS.get(OTLP_PREFIX, 0);
    private static final long W_RESOURCE = (long) LONGS.get(RESOURCE_PREFIX, 0);
    private static final int W_SCOP = (int) INTS.get(SCOPE_PREFIX, 0);
    private static final long W_METRIC_N = (long) LONGS.get(METRIC_PREFIX, 0);
    private static final int W_AME = (int) INTS.get(METRIC_PREFIX, 8);
    private static final int W_RESO = (int) INTS.get(RESOURCE_PREFIX, 0);
    /** {@link #byLength}: several keys of one length. */
    private static final byte AMBIGUOUS = 100;
    /** The {@link #OTLP_KEYS} index by key length, -1 for none ({@link #byLength}). */
    private static final byte[] OTLP_BY_LENGTH = byLength(OTLP_KEYS, 0, -1);
    /** The keys {@link #metaCode} looks for, at their codes (HOST..TOKEN_CODE), and their codes by length. */
    private final byte[][] metaKeys;
    /** {@link #first} and {@link #last} of each of {@link #metaKeys}. */
    private final long[] metaFirst = new long[6];
    private final long[] metaLast = new long[6];
    private final byte[] metaByLength;

    // A metric message's events: their extra dimension (le, qt) and measurement entries (-1: none).
    private int events;
    private int[] evDim = new int[16];
    private int[] evMeasure = new int[16];

    OtlpEvents(HecFormat format) {
        this.format = format;
        this.defaults = new byte[][] {format.hostValue != null ? format.hostValue : UNKNOWN, format.sourceValue,
            format.sourcetypeValue, format.indexValue};
        this.metaKeys = new byte[][] {null, format.otelHostKey, format.otelSourceKey, format.otelSourcetypeKey,
            format.otelIndexKey, TOKEN};
        this.metaByLength = byLength(metaKeys, HOST, FIELD);
        for (int k = HOST; k <= TOKEN_CODE; k++) {
            metaFirst[k] = first(metaKeys[k]);
            metaLast[k] = last(metaKeys[k]);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@link #LOG}, {@link #METRIC} or {@link #NONE}, from the message's {@code otlp.signal}. */
    static int signal(Metadata md) {
        // consumer.OTLP writes it first: look there before searching (a search scans from the last field).
        byte[] k = SIGNAL.bytes();
        int i = md.size() > 0 && md.keyLength(0) == k.length && eq(md.arena(), md.keyOffset(0), k) ? 0 : md.indexOf(SIGNAL);
        if (i < 0) {
            return NONE;
        }
        if (is(md, i, LOG_VALUE)) {
            return LOG;
        }
        return is(md, i, METRIC_VALUE) ? METRIC : NONE;
    }

    private static boolean is(Metadata md, int i, byte[] v) {
        int off = md.valueOffset(i);
        return md.valueLength(i) == v.length && eq(md.arena(), off, v);
    }

    private static boolean equal(byte[] a, int off, int len, byte[] k) {
        return len == k.length && eq(a, off, k);
    }

    /**
     * Whether {@code a[off, off+k.length)} equals {@code k}, a word at a time: keys are short, and the library's
     * range compare costs more in its setup than in comparing them.
     */
    private static boolean eq(byte[] a, int off, byte[] k) {
        return eq(a, off, k, k.length);
    }

    /** Whether {@code a[off, off+n)} equals {@code k[0, n)}, as {@link #eq(byte[], int, byte[])}. */
    private static boolean eq(byte[] a, int off, byte[] k, int n) {
        if (n >= 8) {
            for (int i = 0; i < n - 8; i += 8) {
                if ((long) LONGS.get(a, off + i) != (long) LONGS.get(k, i)) {
                    return false;
                }
            }
            return (long) LONGS.get(a, off + n - 8) == (long) LONGS.get(k, n - 8); // the last word overlaps
        }
        if (n >= 4) {
            return (int) INTS.get(a, off) == (int) INTS.get(k, 0) && (int) INTS.get(a, off + n - 4) == (int) INTS.get(k, n - 4);
        }
        for (int i = 0; i < n; i++) {
            if (a[off + i] != k[i]) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------ classify

    /**
     * Sorts the message's fields into otlp.* values, resource attributes and record attributes, and finds which
     * give host, source, sourcetype and index. Prefixes are compared as words: this runs for every record.
     */
    private boolean classify(Metadata md, boolean metric) {
        if (sameLayout(md, metric)) {
            return true; // the keys of the last message classified, in the same order: the same answers
        }
        classifyKeys(md, metric);
        keepLayout(md, metric);
        planned = false;
        return false;
    }

    // The keys classify() last looked at, with the message kind: per key its length, first and last 8 bytes and,
    // for keys longer than 16, the bytes between (the word at 8 up to 24 bytes, else a copy). The records of a
    // resource and scope mostly carry the same keys in the same order; checking costs less than classifying.
    private int lN = -1;
    private boolean lMetric;
    private int[] lLen = new int[16];
    private long[] lFirst = new long[16];
    private long[] lLast = new long[16];
    private int[] lMid = new int[16];
    private long[] lMidWord = new long[16];
    private final ByteOut lMidBytes = new ByteOut(256);

    /** Whether {@code md}'s keys are those {@link #keepLayout} kept, in the same order. */
    private boolean sameLayout(Metadata md, boolean metric) {
        int n = md.size();
        if (n != lN || metric != lMetric) {
            return false;
        }
        byte[] a = md.arena();
        for (int i = 0; i < n; i++) {
            int off = md.keyOffset(i);
            int len = md.keyLength(i);
            if (len != lLen[i]) {
                return false;
            }
            if (len >= 8) {
                if ((long) LONGS.get(a, off) != lFirst[i] || (long) LONGS.get(a, off + len - 8) != lLast[i]) {
                    return false;
                }
                if (len > 16 && (len <= 24 ? (long) LONGS.get(a, off + 8) != lMidWord[i]
                        : !eqRange(a, off + 8, lMidBytes.array(), lMid[i], len - 16))) {
                    return false; // up to 24 bytes: three words cover the key
                }
            } else if (shortWord(a, off, len) != lFirst[i]) {
                return false;
            }
        }
        return true;
    }

    /** Keeps {@code md}'s keys for {@link #sameLayout}. */
    private void keepLayout(Metadata md, boolean metric) {
        int n = md.size();
        if (lLen.length < n) {
            int cap = Math.max(n, lLen.length * 2);
            lLen = new int[cap];
            lFirst = new long[cap];
            lLast = new long[cap];
            lMid = new int[cap];
            lMidWord = new long[cap];
        }
        lMidBytes.clear();
        byte[] a = md.arena();
        for (int i = 0; i < n; i++) {
            int off = md.keyOffset(i);
            int len = md.keyLength(i);
            lLen[i] = len;
            if (len >= 8) {
                lFirst[i] = (long) LONGS.get(a, off);
                lLast[i] = (long) LONGS.get(a, off + len - 8);
                lMid[i] = lMidBytes.length();
                if (len > 24) {
                    lMidBytes.write(a, off + 8, len - 16);
                } else if (len > 16) {
                    lMidWord[i] = (long) LONGS.get(a, off + 8);
                }
            } else {
                lFirst[i] = shortWord(a, off, len);
            }
        }
        lMetric = metric;
        lN = n;
    }

    /** A key of fewer than 8 bytes as a word, its bytes little-endian and zeros above. */
    private static long shortWord(byte[] a, int off, int len) {
        if (off + 8 <= a.length) {
            return len == 0 ? 0 : (long) LONGS.get(a, off) & (-1L >>> ((8 - len) << 3));
        }
        long w = 0;
        for (int i = len - 1; i >= 0; i--) {
            w = (w << 8) | (a[off + i] & 0xFF);
        }
        return w;
    }

    /** Whether {@code a[ao, ao+n)} equals {@code b[bo, bo+n)}, eight bytes at a time. */
    private static boolean eqRange(byte[] a, int ao, byte[] b, int bo, int n) {
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            if ((long) LONGS.get(a, ao + i) != (long) LONGS.get(b, bo + i)) {
                return false;
            }
        }
        for (; i < n; i++) {
            if (a[ao + i] != b[bo + i]) {
                return false;
            }
        }
        return true;
    }

    /** {@link #classify} without the layout check. */
    private void classifyKeys(Metadata md, boolean metric) {
        Arrays.fill(at, -1);
        Arrays.fill(meta, -1);
        resCount = 0;
        recCount = 0;
        iValue = -1;
        byte[] a = md.arena();
        int n = md.size();
        for (int i = 0; i < n; i++) {
            int off = md.keyOffset(i);
            int len = md.keyLength(i);
            if (len >= 5) {
                int w = (int) INTS.get(a, off);
                if (w == W_OTLP && a[off + 4] == '.') {
                    int k = len < 64 ? OTLP_BY_LENGTH[len] : -1; // otlp.signal and the others: no length of ours
                    if (k >= 0 && k != AMBIGUOUS) {
                        if (eq(a, off, OTLP_KEYS[k])) {
                            at[k] = i;
                        }
                    } else if (k == AMBIGUOUS) {
                        for (k = 0; k < OTLP_KEYS.length; k++) {
                            if (equal(a, off, len, OTLP_KEYS[k])) {
                                at[k] = i;
                                break;
                            }
                        }
                    }
                    continue;
                }
                if (len >= 9 && w == W_RESO && (long) LONGS.get(a, off) == W_RESOURCE && a[off + 8] == '.') {
                    if (resCount == res.length) {
                        res = Arrays.copyOf(res, resCount * 2);
                        resCode = Arrays.copyOf(resCode, resCount * 2);
                    }
                    int code = metaCode(a, off + 9, len - 9);
                    meta[code] = i;
                    res[resCount] = i;
                    resCode[resCount++] = code;
                    continue;
                }
                if (w == W_SCOP && len >= 6 && a[off + 4] == 'e' && a[off + 5] == '.') {
                    continue; // the exporter sends nothing of the scope
                }
                if (metric && len > 12 && (long) LONGS.get(a, off) == W_METRIC_N && (int) INTS.get(a, off + 8) == W_AME) {
                    iValue = i;
                    continue;
                }
            }
            if (recCount == rec.length) {
                rec = Arrays.copyOf(rec, recCount * 2);
                recCode = Arrays.copyOf(recCode, recCount * 2);
            }
            int code = metaCode(a, off, len);
            meta[5 + code] = i;
            rec[recCount] = i;
            recCode[recCount++] = code;
        }
    }

    /**
     * What the exporter makes of attribute key {@code a[off, off+len)}: FIELD, HOST, ..., TOKEN_CODE. The key's
     * length picks the one candidate it can be ({@link #metaByLength}), so that a key costs at most one compare.
     */
    private int metaCode(byte[] a, int off, int len) {
        int c = len < 64 ? metaByLength[len] : AMBIGUOUS;
        if (c == FIELD) {
            return FIELD;
        }
        if (c != AMBIGUOUS) {
            return same(a, off, len, metaFirst[c], metaLast[c]) && (len <= 16 || eq(a, off, metaKeys[c])) ? c : FIELD;
        }
        for (int k = HOST; k <= TOKEN_CODE; k++) {
            if (equal(a, off, len, metaKeys[k])) {
                return k;
            }
        }
        return FIELD;
    }

    /**
     * Whether {@code a[off, off+len)} has the first and last 8 bytes {@code first} and {@code last} ({@link #first},
     * {@link #last}): the whole key when it has 16 bytes or fewer. Two loads instead of a loop: this runs for the
     * host/source/sourcetype/index candidates of every record.
     */
    private static boolean same(byte[] a, int off, int len, long first, long last) {
        if (len >= 8) {
            return (long) LONGS.get(a, off) == first && (long) LONGS.get(a, off + len - 8) == last;
        }
        long w = 0;
        for (int i = len - 1; i >= 0; i--) {
            w = (w << 8) | (a[off + i] & 0xFF);
        }
        return w == first;
    }

    /** The first 8 bytes of {@code k} as {@link #same} compares them (fewer: the bytes it has, zero above). */
    private static long first(byte[] k) {
        return k == null ? 0 : k.length >= 8 ? (long) LONGS.get(k, 0) : ByteOut.word(k, 0);
    }

    /** The last 8 bytes of {@code k} as {@link #same} compares them. */
    private static long last(byte[] k) {
        return k == null || k.length < 8 ? 0 : (long) LONGS.get(k, k.length - 8);
    }

    /**
     * For each length below 64: the one of {@code keys} (its index) with that length, {@code none} when there is
     * none, {@link #AMBIGUOUS} when several share it; keys of 64 bytes or more make every longer length ambiguous
     * (callers treat lengths from 64 on as ambiguous).
     */
    private static byte[] byLength(byte[][] keys, int from, int none) {
        byte[] t = new byte[64];
        Arrays.fill(t, (byte) none);
        for (int k = from; k < keys.length; k++) {
            int n = keys[k].length;
            if (n < 64) {
                t[n] = t[n] == none ? (byte) k : AMBIGUOUS;
            }
        }
        return t;
    }

    /**
     * Sets {@link #iHost} and the others: a record attribute overrides a resource one (the exporter ranges the
     * resource's attributes and then the record's); a metric point's own attributes are never looked at
     * ({@code record} false).
     */
    private void pickMeta(boolean record) {
        iHost = record && meta[5 + HOST] >= 0 ? meta[5 + HOST] : meta[HOST];
        iSource = record && meta[5 + SOURCE] >= 0 ? meta[5 + SOURCE] : meta[SOURCE];
        iSourcetype = record && meta[5 + SOURCETYPE] >= 0 ? meta[5 + SOURCETYPE] : meta[SOURCETYPE];
        iIndex = record && meta[5 + INDEX] >= 0 ? meta[5 + INDEX] : meta[INDEX];
    }

    // ------------------------------------------------------------------------------------------ header

    /** Room for the header's fixed parts: keys, braces, commas, the time (up to 25 bytes) and slack. */
    private static final int HEADER_FIXED = 96;

    /**
     * Picks the header's host, source, sourcetype and index values and returns the room {@link #putHeader} needs
     * for them. Consecutive records mostly share them: then their encoding is copied from the last header.
     */
    private int headerRoom(Metadata md) {
        value(0, md, iHost, true);
        value(1, md, iSource, false);
        value(2, md, iSourcetype, false);
        value(3, md, iIndex, false);
        byte[] a = md.arena();
        sameMeta = lastValid && sameAsLast(0, a) && sameAsLast(1, a) && sameAsLast(2, a) && sameAsLast(3, a);
        if (sameMeta) {
            return HEADER_FIXED + lastMeta.length();
        }
        int n = HEADER_FIXED;
        for (int s = 0; s < 4; s++) {
            n += ByteOut.quotedBound(Math.max(0, valueLength[s]));
        }
        return n;
    }

    /** Whether the values {@link #headerRoom} picked are the last header's. */
    private boolean sameMeta;

    /**
     * {@code {"time":T,"host":H[,"source":S][,"sourcetype":ST][,"index":I]}: as the exporter's Event struct; at
     * {@code b[at]}, with the room {@link #headerRoom} (called just before) asked for. Returns the end.
     */
    private int putHeader(byte[] b, int at, long ms, byte[] a) {
        if (ms != 0) {
            System.arraycopy(H_TIME, 0, b, at, H_TIME.length);
            at = putMillisAsSeconds(b, at + H_TIME.length, ms);
            b[at++] = ',';
        } else {
            b[at++] = '{';
        }
        if (sameMeta) {
            int n = lastMeta.length();
            System.arraycopy(lastMeta.array(), 0, b, at, n);
            return at + n;
        }
        int start = at;
        System.arraycopy(H_HOST, 0, b, at, H_HOST.length);
        at = ByteOut.putQuoted(b, at + H_HOST.length, bytesOf(0, a), valueOffset[0], valueLength[0]);
        at = putOptional(b, at, H_SOURCE, 1, a);
        at = putOptional(b, at, H_SOURCETYPE, 2, a);
        at = putOptional(b, at, H_INDEX, 3, a);
        lastMeta.clear();
        lastMeta.write(b, start, at - start);
        for (int s = 0; s < 4; s++) {
            int n = valueLength[s];
            lastLength[s] = n;
            if (n > 0) {
                if (lastValue[s].length < n) {
                    lastValue[s] = new byte[Math.max(n, lastValue[s].length * 2)];
                }
                System.arraycopy(bytesOf(s, a), valueOffset[s], lastValue[s], 0, n);
            }
        }
        lastValid = true;
        return at;
    }

    /**
     * The value written for slot {@code s} (host, source, sourcetype, index): the attribute's {@code Str()} (its
     * text when it is a string, else empty, as pdata answers), else the default; length -1 when it is not
     * written (an empty source, sourcetype or index is {@code omitempty} in the exporter's Event; host is not).
     */
    private void value(int s, Metadata md, int i, boolean always) {
        if (i >= 0) {
            valueInArena[s] = true;
            valueOffset[s] = md.valueOffset(i);
            valueLength[s] = md.kind(i) == Metadata.STRING ? md.valueLength(i) : 0;
        } else {
            byte[] dflt = defaults[s];
            valueInArena[s] = false;
            valueOffset[s] = 0;
            valueLength[s] = dflt == null ? 0 : dflt.length;
        }
        if (valueLength[s] == 0 && !always) {
            valueLength[s] = -1;
        }
    }

    /** Whether slot {@code s}'s value is the one written last (compared as bytes: a copy was kept). */
    /** The bytes slot {@code s}'s value lies in: the arena {@code a}, or the default. */
    private byte[] bytesOf(int s, byte[] a) {
        return valueInArena[s] ? a : defaults[s];
    }

    private boolean sameAsLast(int s, byte[] a) {
        int n = valueLength[s];
        if (n != lastLength[s]) {
            return false;
        }
        if (n <= 0) {
            return true;
        }
        byte[] v = bytesOf(s, a);
        int off = valueOffset[s];
        byte[] last = lastValue[s]; // at least 64 bytes long
        if (n <= 8) {
            if (off + 8 <= v.length) {
                long x = (long) LONGS.get(v, off) ^ (long) LONGS.get(last, 0);
                return x << ((8 - n) << 3) == 0; // little-endian: the bytes past n are the high ones
            }
        } else if (n <= 16) {
            return (long) LONGS.get(v, off) == (long) LONGS.get(last, 0)
                    && (long) LONGS.get(v, off + n - 8) == (long) LONGS.get(last, n - 8);
        }
        return eq(v, off, last, n);
    }

    private int putOptional(byte[] b, int at, byte[] key, int s, byte[] a) {
        if (valueLength[s] > 0) {
            System.arraycopy(key, 0, b, at, key.length);
            at = ByteOut.putQuoted(b, at + key.length, bytesOf(s, a), valueOffset[s], valueLength[s]);
        }
        return at;
    }

    /** Milliseconds as the float64 seconds Go prints: {@code 1.001}, {@code 1433188255.5}, {@code 2}. */
    static void putMillisAsSeconds(ByteOut o, long ms) {
        o.setLength(putMillisAsSeconds(o.ensure(32), o.length(), ms));
    }

    /** {@link #putMillisAsSeconds(ByteOut, long)} at {@code b[at]}, which has room for 32 bytes; returns the end. */
    static int putMillisAsSeconds(byte[] b, int at, long ms) {
        if (ms < 0) {
            b[at++] = '-';
            ms = -ms;
        }
        at = ByteOut.putLong(b, at, ms / 1000);
        int frac = (int) (ms % 1000);
        if (frac != 0) {
            b[at++] = '.';
            b[at++] = (byte) ('0' + frac / 100);
            if (frac % 100 != 0) {
                b[at++] = (byte) ('0' + frac / 10 % 10);
                if (frac % 10 != 0) {
                    b[at++] = (byte) ('0' + frac % 10);
                }
            }
        }
        return at;
    }

    /** {@code float64(uint64)}: the unsigned value rounded to the nearest double, as Go converts it. */
    static double unsignedToDouble(long v) {
        if (v >= 0) {
            return v;
        }
        return (double) ((v >>> 1) | (v & 1)) * 2.0; // halve keeping a sticky bit, so the rounding stays exact
    }

    /** Go's {@code time.Duration(ts).Round(time.Millisecond)} in milliseconds: halves away from zero. */
    static long roundToMillis(long nanos) {
        long r = nanos % 1_000_000L;
        long d = nanos - r;
        if (nanos >= 0) {
            return (r + r < 1_000_000L ? d : d + 1_000_000L) / 1_000_000L;
        }
        return (-r - r < 1_000_000L ? d : d - 1_000_000L) / 1_000_000L;
    }

    // ------------------------------------------------------------------------------------------ entries

    private int startEntry() {
        if (entries == eOff.length) {
            int cap = entries * 2;
            eOff = Arrays.copyOf(eOff, cap);
            eKey = Arrays.copyOf(eKey, cap);
            eEnd = Arrays.copyOf(eEnd, cap);
        }
        eOff[entries] = ents.length();
        ents.write('"');
        return entries;
    }

    /** Ends the key of entry {@code e}, whose escaped text was written after its quote. */
    private void keyDone(int e) {
        eKey[e] = ents.length() - eOff[e] - 1;
        ents.write('"');
        ents.write(':');
    }

    private void endEntry(int e) {
        eEnd[e] = ents.length();
        entries++;
    }

    /** An entry named by the raw key {@code k[off, off+len)}; its value is written next, then {@link #endEntry}. */
    private int entry(byte[] k, int off, int len) {
        int e = startEntry();
        ents.writeEscaped(k, off, len);
        keyDone(e);
        return e;
    }

    /** An entry named by the escaped key in {@link #keys}. */
    private int entryFromKeys() {
        int e = startEntry();
        ents.write(keys.array(), 0, keys.length());
        keyDone(e);
        return e;
    }

    private int compare(int x, int y) {
        byte[] b = ents.array();
        return compareBytes(b, eOff[x] + 1, eKey[x], b, eOff[y] + 1, eKey[y]);
    }

    /** Orders entries [0, count) by key into {@link #order}, keeping only the last of equal keys. */
    private void sortEntries(int count) {
        if (order.length < count) {
            order = new int[Math.max(count, order.length * 2)];
        }
        for (int i = 0; i < count; i++) {
            int j = i;
            while (j > 0 && compare(order[j - 1], i) > 0) { // stable: equal keys stay in the order they came
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        int u = 0;
        for (int s = 0; s < count; s++) {
            if (s + 1 < count && compare(order[s], order[s + 1]) == 0) {
                continue;
            }
            order[u++] = order[s];
        }
        unique = u;
    }

    /**
     * Writes the sorted entries with up to two more ({@code x}, {@code y}; -1 for none) merged in key order; an
     * extra one replaces a sorted entry of the same key (the exporter sets le/qt and the value last).
     */
    private void writeEntries(ByteOut o, int x, int y) {
        if (x < 0 || (y >= 0 && compare(x, y) > 0)) { // x first, and x set if either is
            int t = x;
            x = y;
            y = t;
        }
        byte[] b = ents.array();
        boolean comma = false;
        for (int s = 0; s < unique; s++) {
            int e = order[s];
            while (x >= 0) {
                int c = compare(x, e);
                if (c > 0) {
                    break;
                }
                comma = put(o, b, x, comma);
                x = y;
                y = -1;
                if (c == 0) {
                    e = -1;
                    break;
                }
            }
            if (e >= 0) {
                comma = put(o, b, e, comma);
            }
        }
        for (; x >= 0; x = y, y = -1) {
            comma = put(o, b, x, comma);
        }
    }

    private boolean put(ByteOut o, byte[] b, int e, boolean comma) {
        if (comma) {
            o.write(',');
        }
        o.write(b, eOff[e], eEnd[e] - eOff[e]);
        return true;
    }

    // ------------------------------------------------------------------------------------------ logs

    /**
     * Writes the event of the OTLP log record in {@code m} to {@code o}, as {@code mapLogRecordToSplunkEvent};
     * false (and nothing written) when the exporter would skip it: a record without a body.
     */
    boolean writeLog(ByteOut o, Message m, Metadata md) {
        boolean sameKeys = classify(md, false);
        int bt = at[BODY_TYPE];
        if (bt >= 0 ? is(md, bt, EMPTY) : m.length() == 0) {
            return false; // "events with no body are rejected by Splunk"
        }
        pickMeta(true);
        long ts = m.timestamp();
        if (ts == 0 && at[OBSERVED] >= 0) {
            ts = parseLong(md.arena(), md.valueOffset(at[OBSERVED]), md.valueLength(at[OBSERVED]));
        }

        int byPlan = sameKeys && planned ? planRoom(md) : -1;
        if (byPlan >= 0) {
            // The last record's keys, and no map or array among the fields: its fields plan holds.
            byte[] p = m.payload();
            int len = m.length();
            int room = headerRoom(md) + H_EVENT.length + byPlan;
            if (bt < 0) {
                room += ByteOut.quotedRoom(p, 0, len);
            }
            byte[] b = o.ensure(room);
            int at = putHeader(b, o.length(), roundToMillis(ts), md.arena());
            System.arraycopy(H_EVENT, 0, b, at, H_EVENT.length);
            at += H_EVENT.length;
            if (bt < 0) {
                at = ByteOut.putQuoted(b, at, p, 0, len);
            } else {
                o.setLength(at);
                putBody(o, m, md, bt);
                b = o.ensure(byPlan);
                at = o.length();
            }
            o.setLength(putPlan(b, at, md));
            return true;
        }

        // The fields as references (key bytes, what the value is), sorted by key and then written once, straight
        // into the event: no intermediate copy for the usual scalar attributes. Maps and arrays, which become
        // several fields or JSON text, are encoded into ents first and referenced from there.
        refs = 0;
        entries = 0;
        ents.clear();
        byte[] a = md.arena();
        mdRef(SPAN_ID, 0, SPAN_ID.length, R_STRING, at[SPAN]);
        mdRef(TRACE_ID, 0, TRACE_ID.length, R_STRING, at[TRACE]);
        mdRef(format.severityTextKey, 0, format.severityTextKey.length, R_STRING, at[SEV_TEXT]);
        mdRef(format.severityNumberKey, 0, format.severityNumberKey.length, R_RAW, at[SEV_NUMBER]);
        for (int j = 0; j < resCount; j++) {
            if (resCode[j] == FIELD) {
                int i = res[j];
                attributeRef(md, a, i, md.keyOffset(i) + RESOURCE_PREFIX.length, md.keyLength(i) - RESOURCE_PREFIX.length);
            }
        }
        for (int j = 0; j < recCount; j++) {
            if (recCode[j] == FIELD) {
                int i = rec[j];
                attributeRef(md, a, i, md.keyOffset(i), md.keyLength(i));
            }
        }
        sortRefs();
        if (!planned && entries == 0) {
            plan(md);
        }

        // One reservation for the whole event, written at a local position (see ByteOut); a body other than a
        // string goes through the JSON writer, and the fields' room is then reserved after it.
        int fieldsRoom = refsRoom(md);
        byte[] p = m.payload();
        int len = m.length();
        int room = headerRoom(md) + H_EVENT.length + fieldsRoom;
        if (bt < 0) {
            room += ByteOut.quotedRoom(p, 0, len);
        }
        byte[] b = o.ensure(room);
        int at = putHeader(b, o.length(), roundToMillis(ts), md.arena());
        System.arraycopy(H_EVENT, 0, b, at, H_EVENT.length);
        at += H_EVENT.length;
        if (bt < 0) {
            at = ByteOut.putQuoted(b, at, p, 0, len); // a string body is sent as a string, whatever it holds
        } else {
            o.setLength(at);
            putBody(o, m, md, bt);
            b = o.ensure(fieldsRoom);
            at = o.length();
        }
        o.setLength(putRefs(b, at, md));
        return true;
    }

    // Field references of a log event: key (array, offset, length), value kind, and the metadata field or the
    // ents entry holding it.
    private static final byte R_STRING = 0;
    private static final byte R_RAW = 1;
    private static final byte R_DOUBLE = 2;
    private static final byte R_NULL = 3;
    private static final byte R_ENTRY = 4;
    private int refs;
    private byte[][] rKey = new byte[16][];
    private int[] rKeyOff = new int[16];
    private int[] rKeyLen = new int[16];
    private byte[] rType = new byte[16];
    private int[] rIdx = new int[16];
    private int[] rOrder = new int[16];

    private void ref(byte[] key, int off, int len, byte type, int idx) {
        if (refs == rIdx.length) {
            int cap = refs * 2;
            rKey = Arrays.copyOf(rKey, cap);
            rKeyOff = Arrays.copyOf(rKeyOff, cap);
            rKeyLen = Arrays.copyOf(rKeyLen, cap);
            rType = Arrays.copyOf(rType, cap);
            rIdx = Arrays.copyOf(rIdx, cap);
            rOrder = Arrays.copyOf(rOrder, cap);
        }
        rKey[refs] = key;
        rKeyOff[refs] = off;
        rKeyLen[refs] = len;
        rType[refs] = type;
        rIdx[refs] = idx;
        refs++;
    }

    private void mdRef(byte[] key, int off, int len, byte type, int i) {
        if (i >= 0) {
            ref(key, off, len, type, i);
        }
    }

    /** The exporter's {@code mergeValue} of one attribute: a scalar by reference, a map or array via ents. */
    private void attributeRef(Metadata md, byte[] a, int i, int keyOff, int keyLen) {
        switch (md.kind(i)) {
            case Metadata.STRING -> ref(a, keyOff, keyLen, R_STRING, i);
            case Metadata.NUMBER -> {
                int vo = md.valueOffset(i);
                int vl = md.valueLength(i);
                ref(a, keyOff, keyLen, vl > 0 && GoNumbers.isFloat(a, vo, vl) ? R_DOUBLE : R_RAW, i);
            }
            case Metadata.NULL -> ref(a, keyOff, keyLen, R_NULL, i);
            case Metadata.JSON -> {
                int first = entries;
                mergeValue(md, i, keyOff, keyLen);
                for (int e = first; e < entries; e++) {
                    // The key as escaped (the same bytes unless it needed escapes); null: in ents, which may grow.
                    ref(null, eOff[e] + 1, eKey[e], R_ENTRY, e);
                }
            }
            default -> ref(a, keyOff, keyLen, R_RAW, i);
        }
    }

    /** Orders the references by key bytes (Go's map order), stable, keeping the last of equal keys. */
    private void sortRefs() {
        int n = refs;
        int[] order = rOrder;
        boolean equalKeys = false;
        for (int i = 0; i < n; i++) {
            int j = i;
            while (j > 0) {
                int c = compareRefs(order[j - 1], i);
                if (c <= 0) {
                    equalKeys |= c == 0; // an equal key, if any, is where the insertion stops
                    break;
                }
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        if (!equalKeys) {
            return;
        }
        int u = 0;
        for (int s = 0; s < n; s++) {
            if (s + 1 < n && compareRefs(order[s], order[s + 1]) == 0) {
                continue;
            }
            order[u++] = order[s];
        }
        refs = u;
    }

    private int compareRefs(int x, int y) {
        byte[] kx = rKey[x] != null ? rKey[x] : ents.array();
        byte[] ky = rKey[y] != null ? rKey[y] : ents.array();
        return compareBytes(kx, rKeyOff[x], rKeyLen[x], ky, rKeyOff[y], rKeyLen[y]);
    }

    /**
     * Unsigned byte order of two ranges, a word at a time; the last word overlaps the one before it (its first
     * bytes are known equal then, so its first difference is the first difference).
     */
    static int compareBytes(byte[] a, int ao, int al, byte[] b, int bo, int bl) {
        int n = Math.min(al, bl);
        if (n >= 8) {
            for (int i = 0; i < n - 8; i += 8) {
                long x = (long) LONGS.get(a, ao + i);
                long y = (long) LONGS.get(b, bo + i);
                if (x != y) {
                    return Long.compareUnsigned(Long.reverseBytes(x), Long.reverseBytes(y));
                }
            }
            long x = (long) LONGS.get(a, ao + n - 8);
            long y = (long) LONGS.get(b, bo + n - 8);
            return x != y ? Long.compareUnsigned(Long.reverseBytes(x), Long.reverseBytes(y)) : al - bl;
        }
        if (n >= 4) {
            int x = (int) INTS.get(a, ao);
            int y = (int) INTS.get(b, bo);
            if (x == y) {
                x = (int) INTS.get(a, ao + n - 4);
                y = (int) INTS.get(b, bo + n - 4);
            }
            return x != y ? Integer.compareUnsigned(Integer.reverseBytes(x), Integer.reverseBytes(y)) : al - bl;
        }
        for (int i = 0; i < n; i++) {
            int c = (a[ao + i] & 0xFF) - (b[bo + i] & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return al - bl;
    }

    // A log record's fields plan: its sorted fields as metadata indices and how each value is written, with the
    // text before each value (",\"fields\":{" or a comma, the quoted key, the colon) encoded once. It depends
    // only on the keys, in their order, so it holds for the next records while classify() finds the same keys,
    // as long as none of the fields is a map or array (those become a varying number of fields).
    private boolean planned;
    private int planCount;
    private int[] planIdx = new int[16];
    /** The value's reference type, or -1: by the field's kind, as attributeRef decides. */
    private byte[] planType = new byte[16];
    /** The value types of the record being written, set by {@link #planRoom}. */
    private byte[] planT = new byte[16];
    private int[] planKeyEnd = new int[16];
    private final ByteOut planKeys = new ByteOut(256);

    /** Makes the fields plan from the sorted references (none of them an entry of ents). */
    private void plan(Metadata md) {
        int n = refs;
        if (planIdx.length < n) {
            int cap = Math.max(n, planIdx.length * 2);
            planIdx = new int[cap];
            planType = new byte[cap];
            planT = new byte[cap];
            planKeyEnd = new int[cap];
        }
        planKeys.clear();
        byte[] a = md.arena();
        for (int s = 0; s < n; s++) {
            int r = rOrder[s];
            planIdx[s] = rIdx[r];
            planType[s] = rKey[r] == a ? -1 : rType[r]; // an attribute's key lies in the arena; otlp.* ones do not
            if (s == 0) {
                planKeys.write(H_FIELDS);
            } else {
                planKeys.write(',');
            }
            planKeys.writeQuoted(rKey[r], rKeyOff[r], rKeyLen[r]);
            planKeys.write(':');
            planKeyEnd[s] = planKeys.length();
        }
        planCount = n;
        planned = true;
    }

    /** An attribute's reference type, as attributeRef decides; R_ENTRY for a map or array (not planned). */
    private static byte refType(Metadata md, byte[] a, int i) {
        switch (md.kind(i)) {
            case Metadata.STRING:
                return R_STRING;
            case Metadata.JSON:
                return R_ENTRY;
            case Metadata.NUMBER:
                int vo = md.valueOffset(i);
                int vl = md.valueLength(i);
                return vl > 0 && GoNumbers.isFloat(a, vo, vl) ? R_DOUBLE : R_RAW;
            case Metadata.NULL:
                return R_NULL;
            default:
                return R_RAW;
        }
    }

    /**
     * Room {@link #putPlan} needs, and the value types it writes ({@link #planT}); -1 when the plan does not hold
     * for {@code md} (which has the planned keys): one of its attributes is a map or array.
     */
    private int planRoom(Metadata md) {
        int room = 24 + planKeys.length();
        byte[] a = md.arena();
        for (int s = 0; s < planCount; s++) {
            int i = planIdx[s];
            byte t = planType[s] < 0 ? refType(md, a, i) : planType[s];
            if (t == R_ENTRY) {
                return -1;
            }
            planT[s] = t;
            int vl = md.valueLength(i);
            room += t == R_STRING ? ByteOut.quotedRoom(a, md.valueOffset(i), vl) : vl + 48;
        }
        return room;
    }

    /**
     * The fields by the plan, as {@link #putRefs} writes them; at {@code b[at]}, with the room {@link #planRoom}
     * (called just before) asked for.
     */
    private int putPlan(byte[] b, int at, Metadata md) {
        int n = planCount;
        byte[] a = md.arena();
        byte[] k = planKeys.array();
        int from = 0;
        for (int s = 0; s < n; s++) {
            int end = planKeyEnd[s];
            System.arraycopy(k, from, b, at, end - from);
            at += end - from;
            from = end;
            int i = planIdx[s];
            at = putValue(b, at, a, md.valueOffset(i), md.valueLength(i), planT[s]);
        }
        if (n > 0) {
            b[at++] = '}';
        }
        b[at++] = '}';
        b[at++] = '\n';
        return at;
    }

    /** Room {@link #putRefs} needs for the sorted references. */
    private int refsRoom(Metadata md) {
        int n = refs;
        int room = 24;
        for (int r = 0; r < n; r++) {
            room += ByteOut.quotedBound(rKeyLen[r]) + 2;
            int i = rIdx[r];
            room += switch (rType[r]) {
                case R_STRING -> ByteOut.quotedRoom(md.arena(), md.valueOffset(i), md.valueLength(i));
                case R_ENTRY -> eEnd[i] - eOff[i];
                default -> md.valueLength(i) + 48; // a number as Go prints it: its digits and some zeros
            };
        }
        return room;
    }

    /**
     * {@code ,"fields":{...}}} and the newline (no fields: {@code }} and the newline) at {@code b[at]}, which has
     * the room {@link #refsRoom} asked for; returns the end.
     */
    private int putRefs(byte[] b, int at, Metadata md) {
        int n = refs;
        int[] order = rOrder;
        if (n > 0) {
            System.arraycopy(H_FIELDS, 0, b, at, H_FIELDS.length);
            at += H_FIELDS.length;
            byte[] a = md.arena();
            for (int s = 0; s < n; s++) {
                int r = order[s];
                if (s > 0) {
                    b[at++] = ',';
                }
                int i = rIdx[r];
                byte t = rType[r];
                if (t == R_ENTRY) {
                    int len = eEnd[i] - eOff[i];
                    System.arraycopy(ents.array(), eOff[i], b, at, len);
                    at += len;
                    continue;
                }
                at = ByteOut.putQuoted(b, at, rKey[r], rKeyOff[r], rKeyLen[r]);
                b[at++] = ':';
                at = putValue(b, at, a, md.valueOffset(i), md.valueLength(i), t);
            }
            b[at++] = '}';
        }
        b[at++] = '}';
        b[at++] = '\n';
        return at;
    }

    /** A scalar field's value, as its reference type says, at {@code b[at]}; returns the end. */
    private int putValue(byte[] b, int at, byte[] a, int vo, int vl, byte t) {
        switch (t) {
            case R_STRING -> at = ByteOut.putQuoted(b, at, a, vo, vl);
            case R_NULL -> {
                System.arraycopy(NULL_TEXT, 0, b, at, 4);
                at += 4;
            }
            case R_DOUBLE -> {
                tmp.clear();
                json.writeNumber(a, vo, vl, tmp, GoNumbers.JSON);
                System.arraycopy(tmp.array(), 0, b, at, tmp.length());
                at += tmp.length();
            }
            default -> {
                if (vl == 0) { // a number without text: what the encoder writes for one elsewhere
                    b[at++] = '0';
                } else {
                    System.arraycopy(a, vo, b, at, vl);
                    at += vl;
                }
            }
        }
        return at;
    }

    /** {@code event}: the body's {@code AsRaw()} as Go marshals it. */
    private void putBody(ByteOut o, Message m, Metadata md, int bt) {
        byte[] p = m.payload();
        int len = m.length();
        if (bt < 0) {
            o.writeQuoted(p, 0, len); // a string body is sent as a string, whatever it holds
            return;
        }
        byte c = md.arena()[md.valueOffset(bt)];
        switch (c) {
            case 'b': // bool, bytes (the payload is the base64 text, which Go writes for a []byte)
                if (md.valueLength(bt) == 5) {
                    o.writeQuoted(p, 0, len);
                } else {
                    o.write(p, 0, len);
                }
                break;
            case 'i': // int
                o.write(p, 0, len);
                break;
            default: // double, array, kvlist
                json.write(p, 0, len, o, 0);
        }
    }

    /** The exporter's {@code mergeValue}: one attribute into fields, maps flattened, arrays kept or as text. */
    private void mergeValue(Metadata md, int i, int keyOff, int keyLen) {
        byte[] a = md.arena();
        byte kind = md.kind(i);
        if (kind == Metadata.JSON) {
            int vo = md.valueOffset(i);
            int end = vo + md.valueLength(i);
            keys.clear();
            keys.writeEscaped(a, keyOff, keyLen);
            byte c = GoJson.first(a, vo, end);
            if (c == '{') {
                flatten(a, vo, end, 0);
            } else if (c == '[') {
                arrayEntry(a, vo, end, 0);
            } else {
                int e = entryFromKeys();
                ents.write(a, vo, end - vo);
                endEntry(e);
            }
            return;
        }
        int e = entry(a, keyOff, keyLen);
        scalar(ents, md, i, kind);
        endEntry(e);
    }

    /** A scalar attribute's value as Go marshals its {@code AsRaw()}. */
    private void scalar(ByteOut o, Metadata md, int i, byte kind) {
        byte[] a = md.arena();
        int vo = md.valueOffset(i);
        int vl = md.valueLength(i);
        switch (kind) {
            case Metadata.STRING -> o.writeQuoted(a, vo, vl);
            case Metadata.NUMBER -> {
                if (vl == 0) {
                    o.write('0');
                } else {
                    json.writeNumber(a, vo, vl, o, GoNumbers.JSON);
                }
            }
            case Metadata.NULL -> o.write(NULL_TEXT);
            default -> o.write(a, vo, vl);
        }
    }

    private static final byte[] NULL_TEXT = ascii("null");

    /** The exporter's {@code flattenAndMergeMap}: the object {@code b[off, end)} under the key in {@link #keys}. */
    private void flatten(byte[] b, int off, int end, int depth) {
        JsonFields f = json.level(depth);
        if (depth >= GoJson.MAX_DEPTH || !json.scanObject(b, off, end, f)) {
            int e = entryFromKeys();
            ents.write(b, off, end - off);
            endEntry(e);
            return;
        }
        if (GoJson.isBytes(b, f)) {
            int e = entryFromKeys();
            ents.write('"');
            ents.write(b, f.valueOffset(0), f.valueLength(0));
            ents.write('"');
            endEntry(e);
            return;
        }
        int base = keys.length();
        for (int i = 0; i < f.size(); i++) {
            keys.setLength(base);
            keys.write('.');
            keys.write(b, f.keyOffset(i), f.keyLength(i)); // raw JSON key text: already escaped
            int vo = f.valueOffset(i);
            int vl = f.valueLength(i);
            switch (f.kind(i)) {
                case JsonFields.OBJECT -> flatten(b, vo, vo + vl, depth + 1);
                case JsonFields.ARRAY -> arrayEntry(b, vo, vo + vl, depth + 1);
                case JsonFields.STRING -> {
                    int e = entryFromKeys();
                    ents.write('"');
                    ents.write(b, vo, vl);
                    ents.write('"');
                    endEntry(e);
                }
                case JsonFields.NUMBER -> {
                    int e = entryFromKeys();
                    json.writeNumber(b, vo, vl, ents, GoNumbers.JSON);
                    endEntry(e);
                }
                default -> {
                    int e = entryFromKeys();
                    ents.write(b, vo, vl);
                    endEntry(e);
                }
            }
        }
        keys.setLength(base);
    }

    /** An array attribute: kept when flat (no arrays or maps in it), else sent as its JSON text. */
    private void arrayEntry(byte[] b, int off, int end, int depth) {
        if (json.isFlatArray(b, off, end, depth)) {
            int e = entryFromKeys();
            json.write(b, off, end, ents, depth);
            endEntry(e);
        } else {
            tmp.clear();
            json.write(b, off, end, tmp, depth);
            int e = entryFromKeys();
            ents.writeQuoted(tmp.array(), 0, tmp.length());
            endEntry(e);
        }
    }

    // ------------------------------------------------------------------------------------------ metrics

    /**
     * Prepares the events of the OTLP metric data point in {@code m}, as {@code mapMetricToSplunkEvent}; returns
     * how many there are (then {@link #writeEvent} or {@link #writePrefix}/{@link #writeMeasurement} each), or -1
     * when the exporter would send none: an exponential histogram, an unknown type.
     */
    int beginMetric(Message m, Metadata md) {
        classify(md, true);
        int type = metricType(md);
        if (type < 0) {
            return -1;
        }
        pickMeta(false); // the point's own attributes are only dimensions

        entries = 0;
        ents.clear();
        byte[] a = md.arena();
        for (int j = 0; j < resCount; j++) {
            if (resCode[j] == FIELD) {
                int i = res[j];
                int e = entry(a, md.keyOffset(i) + RESOURCE_PREFIX.length, md.keyLength(i) - RESOURCE_PREFIX.length);
                asString(md, i);
                endEntry(e);
            }
        }
        for (int j = 0; j < recCount; j++) {
            int i = rec[j];
            int e = entry(a, md.keyOffset(i), md.keyLength(i));
            asString(md, i);
            endEntry(e);
        }
        int e = entry(METRIC_TYPE, 0, METRIC_TYPE.length);
        ents.writeQuoted(TYPE_VALUES[type], 0, TYPE_VALUES[type].length);
        endEntry(e);
        int dims = entries;
        sortEntries(dims);

        // math.Round(float64(ts)/1e6): ts is a uint64 (one past 2^63 is a negative long here).
        hdr.clear();
        byte[] hb = hdr.ensure(headerRoom(md) + H_METRIC.length);
        int hat = putHeader(hb, 0, Math.round(unsignedToDouble(m.timestamp()) / 1e6), md.arena());
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
        int t = at[TYPE];
        if (t < 0) {
            return iValue >= 0 ? 0 : -1; // a number point without its type: a gauge
        }
        for (int k = 0; k < TYPE_NAMES.length; k++) {
            if (is(md, t, TYPE_NAMES[k])) {
                return k;
            }
        }
        return -1; // exponential_histogram: "Point with unsupported type ExponentialHistogram"
    }

    /** A dimension: the attribute's {@code AsString()}. */
    private void asString(Metadata md, int i) {
        byte[] a = md.arena();
        int vo = md.valueOffset(i);
        int vl = md.valueLength(i);
        switch (md.kind(i)) {
            case Metadata.STRING -> ents.writeQuoted(a, vo, vl);
            case Metadata.NULL -> {
                ents.write('"');
                ents.write('"');
            }
            case Metadata.JSON -> {
                tmp.clear();
                json.write(a, vo, vo + vl, tmp, 0); // bytes come out as their quoted base64: unquote them
                if (tmp.length() >= 2 && tmp.array()[0] == '"') {
                    ents.write(tmp.array(), 0, tmp.length());
                } else {
                    ents.writeQuoted(tmp.array(), 0, tmp.length());
                }
            }
            default -> { // numbers and booleans, as text
                tmp.clear();
                json.writeNumber(a, vo, vl, tmp, GoNumbers.JSON);
                ents.writeQuoted(tmp.array(), 0, tmp.length());
            }
        }
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
        int e = startEntry();
        ents.write(METRIC_PREFIX);
        ents.writeEscaped(m.payload(), 0, m.length());
        ents.writeEscaped(suffix, 0, suffixLen);
        keyDone(e);
        return e;
    }

    /** Gauge and sum: one event; a point without a value still makes one, without a measurement, as in Go. */
    private void numberEvent(Message m, Metadata md) {
        if (iValue < 0) {
            addEvent(-1, -1);
            return;
        }
        int e = measureEntry(m, SUFFIX_SUM, 0); // no suffix: metric_name:<name>
        byte[] a = md.arena();
        int vo = md.valueOffset(iValue);
        int vl = md.valueLength(iValue);
        boolean special = equal(a, vo, vl, NAN) || equal(a, vo, vl, INFINITY) || equal(a, vo, vl, MINUS_INFINITY);
        if (md.kind(iValue) == Metadata.NUMBER && !special) {
            json.writeNumber(a, vo, vl, ents, GoNumbers.JSON);
        } else {
            sanitized(a, vo, vl, true);
        }
        endEntry(e);
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
            json.writeNumber(b, off, len, ents, GoNumbers.JSON);
        } else if (equal(b, off, len, INFINITY)) {
            ents.writeQuoted(PLUS_INF, 0, PLUS_INF.length);
        } else if (equal(b, off, len, MINUS_INFINITY)) {
            ents.writeQuoted(MINUS_INF, 0, MINUS_INF.length);
        } else {
            ents.writeQuoted(b, off, len);
        }
    }

    /** A double member of a histogram/summary object: whether it is finite (NaN and infinities are strings). */
    private static boolean finite(JsonFields f, int i) {
        return f.kind(i) == JsonFields.NUMBER;
    }

    private static int member(byte[] b, JsonFields f, byte[] name) {
        return f.lastIndexOf(b, name, 0, name.length);
    }

    /** Histogram: {@code _sum} (when set and not NaN), {@code _count}, then cumulative {@code _bucket} per bound. */
    private void histogramEvents(Message m, Metadata md) {
        int h = at[HISTOGRAM];
        if (h < 0) {
            return;
        }
        byte[] a = md.arena();
        int ho = md.valueOffset(h);
        int hEnd = ho + md.valueLength(h);
        JsonFields f = json.level(0);
        if (!json.scanObject(a, ho, hEnd, f)) {
            return;
        }
        sumAndCount(m, a, f, false);
        int ci = member(a, f, M_BUCKETS);
        int bi = member(a, f, M_BOUNDS);
        JsonFields counts = json.level(1);
        JsonFields bounds = json.level(2);
        int nc = ci >= 0 && scanArray(a, f, ci, counts) ? counts.size() : 0;
        int nb = bi >= 0 && scanArray(a, f, bi, bounds) ? bounds.size() : 0;
        if (nc == 0 || nc != nb + 1) {
            return; // "Spec says counts is optional but if present it must have one more element than the bounds"
        }
        long value = 0;
        for (int i = 0; i <= nb; i++) {
            int d = startEntry();
            ents.write(LE);
            keyDone(d);
            ents.write('"');
            if (i < nb) {
                dimValue(a, bounds.valueOffset(i), bounds.valueLength(i), bounds.kind(i) == JsonFields.STRING);
            } else {
                ents.write(PLUS_INF);
            }
            ents.write('"');
            endEntry(d);
            value += parseLong(a, counts.valueOffset(i), counts.valueLength(i));
            int e = measureEntry(m, SUFFIX_BUCKET, SUFFIX_BUCKET.length);
            putUnsigned(ents, value);
            endEntry(e);
            addEvent(d, e);
        }
    }

    private boolean scanArray(byte[] a, JsonFields f, int i, JsonFields into) {
        if (f.kind(i) != JsonFields.ARRAY) {
            return false;
        }
        int vo = f.valueOffset(i);
        return json.scanArray(a, vo, vo + f.valueLength(i), into);
    }

    /** The {@code _sum} (finite, not NaN) and {@code _count} events of a histogram or summary object {@code f}. */
    private void sumAndCount(Message m, byte[] a, JsonFields f, boolean summary) {
        int si = member(a, f, M_SUM);
        if (si >= 0 && finite(f, si)) {
            // Go's json.Marshal fails on an infinite sum and the exporter drops that event; NaN it skips itself.
            int e = measureEntry(m, SUFFIX_SUM, SUFFIX_SUM.length);
            json.writeNumber(a, f.valueOffset(si), f.valueLength(si), ents, GoNumbers.JSON);
            endEntry(e);
            addEvent(-1, e);
        } else if (si < 0 && summary) {
            // A histogram's sum is optional (HasSum); a summary's is not, and unset reads as 0 in pdata.
            int e = measureEntry(m, SUFFIX_SUM, SUFFIX_SUM.length);
            ents.write('0');
            endEntry(e);
            addEvent(-1, e);
        }
        int ci = member(a, f, M_COUNT);
        int e = measureEntry(m, SUFFIX_COUNT, SUFFIX_COUNT.length);
        putUnsigned(ents, ci < 0 ? 0 : parseLong(a, f.valueOffset(ci), f.valueLength(ci)));
        endEntry(e);
        addEvent(-1, e);
    }

    /** Summary: {@code _sum}, {@code _count}, then {@code _<quantile>} with dimension {@code qt} per quantile. */
    private void summaryEvents(Message m, Metadata md) {
        int s = at[SUMMARY];
        if (s < 0) {
            return;
        }
        byte[] a = md.arena();
        int so = md.valueOffset(s);
        JsonFields f = json.level(0);
        if (!json.scanObject(a, so, so + md.valueLength(s), f)) {
            return;
        }
        sumAndCount(m, a, f, true);
        int qi = member(a, f, M_QUANTILES);
        JsonFields qs = json.level(1);
        if (qi < 0 || !scanArray(a, f, qi, qs)) {
            return;
        }
        JsonFields q = json.level(2);
        for (int i = 0; i < qs.size(); i++) {
            int vo = qs.valueOffset(i);
            if (qs.kind(i) != JsonFields.OBJECT || !json.scanObject(a, vo, vo + qs.valueLength(i), q)) {
                continue;
            }
            int qq = member(a, q, M_QUANTILE);
            int qv = member(a, q, M_VALUE);
            int d = startEntry();
            ents.write(QT);
            keyDone(d);
            ents.write('"');
            if (qq >= 0) {
                dimValue(a, q.valueOffset(qq), q.valueLength(qq), q.kind(qq) == JsonFields.STRING);
            } else {
                ents.write('0');
            }
            ents.write('"');
            endEntry(d);
            // The measurement: metric_name:<name>_<strconv.FormatFloat(quantile, 'f', -1, 64)>.
            int e = startEntry();
            ents.write(METRIC_PREFIX);
            ents.writeEscaped(m.payload(), 0, m.length());
            ents.write('_');
            if (qq >= 0) {
                json.writeNumber(a, q.valueOffset(qq), q.valueLength(qq), ents, GoNumbers.F);
            } else {
                ents.write('0');
            }
            keyDone(e);
            if (qv >= 0) {
                sanitized(a, q.valueOffset(qv), q.valueLength(qv), q.kind(qv) == JsonFields.STRING);
            } else {
                ents.write('0');
            }
            endEntry(e);
            addEvent(d, e);
        }
    }

    /** {@code strconv.FormatFloat(f, 'g', -1, 64)} of a bound or quantile (inside quotes). */
    private void dimValue(byte[] b, int off, int len, boolean text) {
        if (!text) {
            json.writeNumber(b, off, len, ents, GoNumbers.G);
        } else if (equal(b, off, len, INFINITY)) {
            ents.write(PLUS_INF);
        } else if (equal(b, off, len, MINUS_INFINITY)) {
            ents.write(MINUS_INF);
        } else {
            ents.writeEscaped(b, off, len); // "NaN", or a count written as a string
        }
    }

    /** A non-negative decimal integer (a uint64 count, maybe quoted); wraps as Go's uint64 does. */
    static long parseLong(byte[] b, int off, int len) {
        long v = 0;
        for (int i = off; i < off + len; i++) {
            byte c = b[i];
            if (c >= '0' && c <= '9') {
                v = v * 10 + (c - '0');
            } else if (c != '"') {
                break;
            }
        }
        return v;
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
        writeEntries(o, evDim[k], evMeasure[k]);
        o.write('}');
        o.write('}');
        o.write('\n');
    }

    /**
     * Event {@code k} up to its measurement (header and dimensions, in key order): what decides which multi-metric
     * event it joins. Returns whether {@code fields} has entries so far.
     */
    boolean writePrefix(int k, ByteOut o) {
        o.write(hdr.array(), 0, hdr.length());
        int before = o.length();
        writeEntries(o, evDim[k], -1);
        return o.length() > before;
    }

    /** Event {@code k}'s measurement, after a comma when {@code comma}; nothing for a point without a value. */
    void writeMeasurement(int k, ByteOut o, boolean comma) {
        int e = evMeasure[k];
        if (e >= 0) {
            if (comma) {
                o.write(',');
            }
            o.write(ents.array(), eOff[e], eEnd[e] - eOff[e]);
        }
    }

    /** A hash of event {@code k}'s measurement name (0 without one), for multi-metric duplicate checks. */
    int measurementHash(int k) {
        int e = evMeasure[k];
        return e < 0 ? 0 : Metadata.hash(ents.array(), eOff[e] + 1, eKey[e]);
    }

    /** Whether event {@code k} has a measurement. */
    boolean hasMeasurement(int k) {
        return evMeasure[k] >= 0;
    }

}
