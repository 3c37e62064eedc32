package io.sluice.hec.codec;

import io.sluice.core.message.Metadata;
import io.sluice.core.message.OtlpFields;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

import static io.sluice.hec.codec.OtlpEvents.RESOURCE_PREFIX;
import static io.sluice.hec.codec.OtlpEvents.ascii;
import static io.sluice.hec.codec.OtlpEvents.eq;
import static io.sluice.hec.codec.OtlpEvents.equal;

/**
 * What each field of an OTLP message is, as the exporter sees it: the {@code otlp.*} values read, the resource
 * and record (or point) attributes, and which attributes give host, source, sourcetype and index (the
 * {@code Otel*Attribute} settings) or are the access token. The records of a resource and scope carry the same
 * keys in the same order, so the last message's keys are kept and checked word-wise first ({@link #classify}).
 * The answers are package fields, read by the log and metric mappings right after a {@link #classify}.
 */
final class OtlpKeys {
    private static final byte[] OTLP_PREFIX = ascii("otlp.");
    private static final byte[] SCOPE_PREFIX = ascii("scope.");
    private static final byte[] TOKEN = ascii("com.splunk.hec.access_token");

    // The otlp.* keys read, and where classify() found them (-1: absent).
    private static final byte[][] OTLP_KEYS = {ascii(OtlpFields.SEVERITY_TEXT), ascii(OtlpFields.SEVERITY_NUMBER),
        ascii(OtlpFields.TRACE_ID), ascii(OtlpFields.SPAN_ID), ascii(OtlpFields.OBSERVED_TIME),
        ascii(OtlpFields.BODY_TYPE), ascii(OtlpFields.METRIC_TYPE), ascii(OtlpFields.HISTOGRAM),
        ascii(OtlpFields.SUMMARY)};
    static final int SEV_TEXT = 0;
    static final int SEV_NUMBER = 1;
    static final int TRACE = 2;
    static final int SPAN = 3;
    static final int OBSERVED = 4;
    static final int BODY_TYPE = 5;
    static final int TYPE = 6;
    static final int HISTOGRAM = 7;
    static final int SUMMARY = 8;
    final int[] at = new int[OTLP_KEYS.length];

    // The current message's resource and record (or point) attributes: metadata indices, and what the exporter
    // makes of each key (FIELD, or one of HOST..TOKEN_CODE: not a field).
    int[] res = new int[16];
    int[] resCode = new int[16];
    int resCount;
    int[] rec = new int[16];
    int[] recCode = new int[16];
    int recCount;
    int iValue;
    static final int FIELD = 0;
    static final int HOST = 1;
    static final int SOURCE = 2;
    static final int SOURCETYPE = 3;
    static final int INDEX = 4;
    static final int TOKEN_CODE = 5;
    /** The fields giving host, source, sourcetype, index: from the resource [1..4] and from the record [6..9]. */
    final int[] meta = new int[11];
    // Fields giving host, source, sourcetype, index (-1: the default).
    int iHost;
    int iSource;
    int iSourcetype;
    int iIndex;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int W_OTLP = (int) INTS.get(OTLP_PREFIX, 0);
    private static final long W_RESOURCE = (long) LONGS.get(RESOURCE_PREFIX, 0);
    private static final int W_SCOP = (int) INTS.get(SCOPE_PREFIX, 0);
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

    OtlpKeys(HecFormat format) {
        this.metaKeys = new byte[][] {null, format.otelHostKey, format.otelSourceKey, format.otelSourcetypeKey,
            format.otelIndexKey, TOKEN};
        this.metaByLength = byLength(metaKeys, HOST, FIELD);
        for (int k = HOST; k <= TOKEN_CODE; k++) {
            metaFirst[k] = first(metaKeys[k]);
            metaLast[k] = last(metaKeys[k]);
        }
    }

    /**
     * Sorts the message's fields into otlp.* values, resource attributes and record attributes, and finds which
     * give host, source, sourcetype and index. Prefixes are compared as words: this runs for every record. Returns
     * whether the keys are the last message's, in the same order (what was derived from them still holds).
     */
    boolean classify(Metadata md, boolean metric) {
        if (sameLayout(md, metric)) {
            return true; // the keys of the last message classified, in the same order: the same answers
        }
        classifyKeys(md, metric);
        keepLayout(md, metric);
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
                if (metric && ReservedKeys.isMetric(md, i)) { // metric_name:, the value's key
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
        return shortWord(a, off, len) == first;
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
    void pickMeta(boolean record) {
        iHost = record && meta[5 + HOST] >= 0 ? meta[5 + HOST] : meta[HOST];
        iSource = record && meta[5 + SOURCE] >= 0 ? meta[5 + SOURCE] : meta[SOURCE];
        iSourcetype = record && meta[5 + SOURCETYPE] >= 0 ? meta[5 + SOURCETYPE] : meta[SOURCETYPE];
        iIndex = record && meta[5 + INDEX] >= 0 ? meta[5 + INDEX] : meta[INDEX];
    }
}
