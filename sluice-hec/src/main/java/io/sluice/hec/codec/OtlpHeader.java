package io.sluice.hec.codec;

import io.sluice.core.message.Metadata;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import static io.sluice.hec.codec.OtlpEvents.ascii;
import static io.sluice.hec.codec.OtlpEvents.eq;
import static io.sluice.hec.codec.OtlpEvents.putMillisAsSeconds;

/**
 * The start of an OTLP record's or point's event, as the exporter's Event struct: {@code time}, then host, source,
 * sourcetype and index from the attributes {@link OtlpKeys} found, else the defaults (host: else
 * {@code unknown}). Consecutive records mostly share those values, so the last ones are kept with their encoding.
 */
final class OtlpHeader {
    private static final byte[] UNKNOWN = ascii("unknown");
    private static final byte[] H_TIME = ascii("{\"time\":");
    private static final byte[] H_HOST = ascii("\"host\":");
    private static final byte[] H_SOURCE = ascii(",\"source\":");
    private static final byte[] H_SOURCETYPE = ascii(",\"sourcetype\":");
    private static final byte[] H_INDEX = ascii(",\"index\":");
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final OtlpKeys keys;
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

    OtlpHeader(HecFormat format, OtlpKeys keys) {
        this.keys = keys;
        this.defaults = new byte[][] {format.hostValue != null ? format.hostValue : UNKNOWN, format.sourceValue,
            format.sourcetypeValue, format.indexValue};
    }

    /** Room for the header's fixed parts: keys, braces, commas, the time (up to 25 bytes) and slack. */
    private static final int HEADER_FIXED = 96;

    /**
     * Picks the header's host, source, sourcetype and index values and returns the room {@link #putHeader} needs
     * for them. Consecutive records mostly share them: then their encoding is copied from the last header.
     */
    int headerRoom(Metadata md) {
        value(0, md, keys.iHost, true);
        value(1, md, keys.iSource, false);
        value(2, md, keys.iSourcetype, false);
        value(3, md, keys.iIndex, false);
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
    int putHeader(byte[] b, int at, long ms, byte[] a) {
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

    /** The bytes slot {@code s}'s value lies in: the arena {@code a}, or the default. */
    private byte[] bytesOf(int s, byte[] a) {
        return valueInArena[s] ? a : defaults[s];
    }

    /** Whether slot {@code s}'s value is the one written last (compared as bytes: a copy was kept). */
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
}
