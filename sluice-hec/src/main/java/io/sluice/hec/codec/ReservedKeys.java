package io.sluice.hec.codec;

import io.sluice.core.message.Metadata;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Sorts one message's metadata keys for the encoder: which fields give the event's host, source, sourcetype and
 * index, which are measurements ({@code metric_name:<name>}), and which of the rest go into {@code fields}. The
 * reserved keys are compared as little-endian words, one or two compares per key instead of a byte loop: this runs
 * for every field of every message. Not thread-safe: the indices are the last classified message's.
 */
final class ReservedKeys {
    /** Prefix of a metadata key carrying a measurement, as HEC's multi-metric format names it. */
    static final byte[] METRIC_PREFIX = "metric_name:".getBytes(StandardCharsets.US_ASCII);

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle SHORTS =
            MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int W_HOST = word4("host");
    private static final int W_INDE = word4("inde");
    private static final int W_SOUR = word4("sour");
    private static final short W_CE = word2("ce");
    private static final long W_SOURCETY = word8("sourcety");
    private static final short W_PE = word2("pe");
    private static final long W_METRIC_N = word8("metric_n");
    private static final int W_AME = word4("ame:");

    /** The {@code Fields} setting: the keys sent in {@code fields}, or null for every one not reserved. */
    private final byte[][] fieldKeys;

    // Reserved keys found in the current message's metadata: field indices, -1 when absent.
    int iHost;
    int iSource;
    int iSourcetype;
    int iIndex;
    /** Measurements in the current message's metadata. */
    int metricCount;

    ReservedKeys(byte[][] fieldKeys) {
        this.fieldKeys = fieldKeys;
    }

    private static long word8(String s) {
        return (long) LONGS.get(s.getBytes(StandardCharsets.US_ASCII), 0);
    }

    private static int word4(String s) {
        return (int) INTS.get(s.getBytes(StandardCharsets.US_ASCII), 0);
    }

    private static short word2(String s) {
        return (short) SHORTS.get(s.getBytes(StandardCharsets.US_ASCII), 0);
    }

    /** Finds the reserved keys and counts the measurements of {@code md} (null: a message without metadata). */
    void classify(Metadata md) {
        iHost = -1;
        iSource = -1;
        iSourcetype = -1;
        iIndex = -1;
        metricCount = 0;
        if (md == null) {
            return;
        }
        byte[] a = md.arena();
        for (int i = 0; i < md.size(); i++) {
            int off = md.keyOffset(i);
            switch (md.keyLength(i)) {
                case 4:
                    if ((int) INTS.get(a, off) == W_HOST) {
                        iHost = i;
                    }
                    break;
                case 5:
                    if ((int) INTS.get(a, off) == W_INDE && a[off + 4] == 'x') {
                        iIndex = i;
                    }
                    break;
                case 6:
                    if ((int) INTS.get(a, off) == W_SOUR && (short) SHORTS.get(a, off + 4) == W_CE) {
                        iSource = i;
                    }
                    break;
                case 10:
                    if ((long) LONGS.get(a, off) == W_SOURCETY && (short) SHORTS.get(a, off + 8) == W_PE) {
                        iSourcetype = i;
                    }
                    break;
                default:
                    if (isMetric(md, i)) {
                        metricCount++;
                    }
            }
        }
    }

    /** Whether metadata field {@code i} is a measurement ({@code metric_name:<name>}). */
    static boolean isMetric(Metadata md, int i) {
        int off = md.keyOffset(i);
        byte[] a = md.arena();
        return md.keyLength(i) > METRIC_PREFIX.length && (long) LONGS.get(a, off) == W_METRIC_N
                && (int) INTS.get(a, off + 8) == W_AME;
    }

    /** Whether metadata field i goes into {@code fields} (measurements are handled by the caller). */
    boolean selected(Metadata md, int i) {
        if (i == iHost || i == iSource || i == iSourcetype || i == iIndex) {
            return false;
        }
        byte[][] keys = fieldKeys;
        if (keys == null) {
            return true;
        }
        int off = md.keyOffset(i);
        int len = md.keyLength(i);
        for (byte[] k : keys) {
            if (k.length == len && Arrays.equals(md.arena(), off, off + len, k, 0, len)) {
                return true;
            }
        }
        return false;
    }
}
