package io.sluice.hec.codec;

import io.sluice.core.json.JsonScanner;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes one HEC event as JSON: a log event ({@code time}, host/source/sourcetype/index, {@code event},
 * {@code fields}) or a metric event and its measurements, for a message whose keys {@link ReservedKeys} sorted.
 * The host/source/sourcetype/index part of the last header is kept encoded: consecutive events mostly share it.
 * Not thread-safe: one per encoder.
 */
final class EventWriter {
    private static final Piece P_TIME = Piece.of("\"time\":");
    private static final Piece P_EVENT = Piece.of("\"event\":");
    private static final Piece P_METRIC = Piece.of("\"event\":\"metric\"");
    private static final Piece P_FIELDS = Piece.of(",\"fields\":{");
    private static final Piece P_END = Piece.of("}}\n");
    private static final Piece P_HOST = Piece.of("\"host\":");
    private static final Piece P_SOURCE = Piece.of("\"source\":");
    private static final Piece P_SOURCETYPE = Piece.of("\"sourcetype\":");
    private static final Piece P_INDEX = Piece.of("\"index\":");
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * A fixed piece of JSON (at most 16 bytes) as two little-endian words, written with one or two stores instead of
     * an array copy. A record, so that the JIT trusts its fields as constants.
     */
    private record Piece(long w0, long w1, int len) {
        static Piece of(String s) {
            byte[] b = s.getBytes(StandardCharsets.US_ASCII);
            return new Piece(ByteOut.word(b, 0), b.length > 8 ? ByteOut.word(b, 8) : 0, b.length);
        }

        /** Writes the piece at {@code b[at]}, which has 16 bytes of room; returns the end. */
        int put(byte[] b, int at) {
            ByteOut.putWord(b, at, w0, 8);
            if (len > 8) {
                ByteOut.putWord(b, at + 8, w1, 8);
            }
            return at + len;
        }
    }

    private final HecFormat format;
    private final ReservedKeys keys;
    /** EventFormat auto: whether a payload is JSON, UTF-8 checked (HEC wants UTF-8), at most 512 levels deep. */
    private final JsonScanner scanner = new JsonScanner(512, true);

    // The last host/source/sourcetype/index values written (array null: the default) and their encoding.
    // Valid within one encode(): the messages, and so the arrays, do not change meanwhile.
    private final ByteOut metaCache = new ByteOut(256);
    private final byte[][] metaArr = new byte[4][];
    private final int[] metaOff = new int[4];
    private final int[] metaLen = new int[4];
    private boolean metaCached;

    EventWriter(HecFormat format, ReservedKeys keys) {
        this.format = format;
        this.keys = keys;
    }

    /** Forgets the last header: the messages it was taken from may be gone (a new encode). */
    void forgetHeader() {
        metaCached = false;
    }

    // Each event is written at a position kept in a local variable, after reserving its worst case once
    // (eventRoom): see ByteOut. The methods below take the array and position and return the new position.

    /**
     * Room that writing an event of message {@code m} can take: the payload and every metadata field quoted
     * (each key and value escaped in the worst case, which also covers host/source/sourcetype/index), the
     * defaults, the time, the fixed pieces and slack for 8-byte stores past the end.
     */
    private int eventRoom(Message m, Metadata md) {
        int n = 96 + ByteOut.MAX_EPOCH_SECONDS + format.defaultsLength + ByteOut.quotedRoom(m.payload(), 0, m.length());
        if (md != null) {
            byte[] a = md.arena();
            for (int i = 0; i < md.size(); i++) {
                n += fieldRoom(md, a, i);
            }
        }
        return n;
    }

    private static int fieldRoom(Metadata md, byte[] a, int i) {
        int k = md.keyLength(i);
        // A value still escaped is no shorter than unescaped: its stored length bounds it without decoding it.
        int v = md.rawValueLength(i);
        if (v <= 256) {
            return 2 + ByteOut.quotedBound(k + v);
        }
        v = md.valueLength(i);
        return 2 + ByteOut.quotedBound(k) + ByteOut.quotedRoom(a, md.valueOffset(i), v);
    }

    /** {@code {"time":T,"host":..,"source":..,"sourcetype":..,"index":..,} } */
    private int putHeader(byte[] b, int at, Message m, Metadata md) {
        b[at++] = '{';
        long ts = m.timestamp();
        if (ts != 0) {
            at = P_TIME.put(b, at);
            at = ByteOut.putEpochSeconds(b, at, ts);
            b[at++] = ',';
        }
        if (sameMetaAsLast(md)) {
            int n = metaCache.length();
            System.arraycopy(metaCache.array(), 0, b, at, n);
            return at + n;
        }
        int start = at;
        at = putMeta(b, at, md, keys.iHost, P_HOST, format.host);
        at = putMeta(b, at, md, keys.iSource, P_SOURCE, format.source);
        at = putMeta(b, at, md, keys.iSourcetype, P_SOURCETYPE, format.sourcetype);
        at = putMeta(b, at, md, keys.iIndex, P_INDEX, format.index);
        rememberMeta(md, b, start, at);
        return at;
    }

    /**
     * Whether host/source/sourcetype/index are the same values as in the last header written, whose encoded
     * bytes are then in {@link #metaCache}. Consecutive events mostly share them, and comparing four short
     * values costs less than quoting them again.
     */
    private boolean sameMetaAsLast(Metadata md) {
        return metaCached && sameValue(md, keys.iHost, 0) && sameValue(md, keys.iSource, 1)
                && sameValue(md, keys.iSourcetype, 2) && sameValue(md, keys.iIndex, 3);
    }

    private boolean sameValue(Metadata md, int i, int slot) {
        if (i < 0) {
            return metaArr[slot] == null; // both the configured default
        }
        int len = md.valueLength(i);
        return metaArr[slot] != null && metaLen[slot] == len
                && sameBytes(metaArr[slot], metaOff[slot], md.arena(), md.valueOffset(i), len);
    }

    /** Equal byte ranges; a value of up to 8 bytes, the usual host or index name, costs one word compare. */
    private static boolean sameBytes(byte[] a, int aOff, byte[] b, int bOff, int len) {
        if (len == 0) {
            return true;
        }
        if (len <= 8 && aOff + 8 <= a.length && bOff + 8 <= b.length) {
            long x = (long) LONGS.get(a, aOff) ^ (long) LONGS.get(b, bOff);
            return x << ((8 - len) << 3) == 0; // little-endian: the bytes past len are the high ones
        }
        return Arrays.equals(a, aOff, aOff + len, b, bOff, bOff + len);
    }

    private void remember(Metadata md, int i, int slot) {
        metaArr[slot] = i < 0 ? null : md.arena();
        metaOff[slot] = i < 0 ? 0 : md.valueOffset(i);
        metaLen[slot] = i < 0 ? 0 : md.valueLength(i);
    }

    /** Keeps the values just written at {@code b[start, end)} and their encoding, for {@link #sameMetaAsLast}. */
    private void rememberMeta(Metadata md, byte[] b, int start, int end) {
        remember(md, keys.iHost, 0);
        remember(md, keys.iSource, 1);
        remember(md, keys.iSourcetype, 2);
        remember(md, keys.iIndex, 3);
        metaCache.clear();
        metaCache.write(b, start, end - start);
        metaCached = true;
    }

    /** {@code "key":"value",} from metadata field {@code i}, else the configured default (pre-encoded), if any. */
    private static int putMeta(byte[] b, int at, Metadata md, int i, Piece key, byte[] dflt) {
        if (i >= 0) {
            at = key.put(b, at);
            at = ByteOut.putQuoted(b, at, md.arena(), md.valueOffset(i), md.valueLength(i));
            b[at++] = ',';
        } else if (dflt != null) {
            System.arraycopy(dflt, 0, b, at, dflt.length);
            at += dflt.length;
        }
        return at;
    }

    /** {@code ,"key":value} (no comma when {@code comma} is false), the value as its kind says. */
    private static int putField(byte[] b, int at, Metadata md, int i, boolean comma) {
        if (comma) {
            b[at++] = ',';
        }
        byte[] a = md.arena();
        at = ByteOut.putQuoted(b, at, a, md.keyOffset(i), md.keyLength(i));
        b[at++] = ':';
        int len = md.valueLength(i);
        if (md.kind(i) == Metadata.STRING) {
            return ByteOut.putQuoted(b, at, a, md.valueOffset(i), len);
        }
        if (len == 0) {
            b[at++] = '"';
            b[at++] = '"';
            return at;
        }
        System.arraycopy(a, md.valueOffset(i), b, at, len);
        return at + len;
    }

    /** A log event of message {@code m} into {@code o}: header, {@code event}, {@code fields}. */
    void writeLogEvent(ByteOut o, Message m, Metadata md) {
        byte[] b = o.ensure(eventRoom(m, md));
        int at = putHeader(b, o.length(), m, md);
        at = P_EVENT.put(b, at);
        at = putPayload(b, at, m);
        boolean any = false;
        if (md != null) {
            for (int i = 0; i < md.size(); i++) {
                if (keys.selected(md, i)) {
                    if (!any) {
                        at = P_FIELDS.put(b, at);
                    }
                    at = putField(b, at, md, i, any);
                    any = true;
                }
            }
        }
        if (any) {
            b[at++] = '}';
        }
        b[at++] = '}';
        b[at++] = '\n';
        o.setLength(at);
    }

    /** The payload as {@code event}'s value: JSON as it is, or a quoted string, as EventFormat says. */
    private int putPayload(byte[] b, int at, Message m) {
        byte[] p = m.payload();
        int len = m.length();
        boolean asJson = switch (format.eventFormat) {
            case JSON -> len > 0; // an empty payload is the empty string
            case STRING -> false;
            default -> len > 1 && (p[0] == '{' || p[0] == '[') && scanner.scanValue(p, 0, len);
        };
        if (!asJson) {
            return ByteOut.putQuoted(b, at, p, 0, len);
        }
        System.arraycopy(p, 0, b, at, len);
        return at + len;
    }

    /**
     * Writes the part of a metric event before its measurements into {@code o}; returns whether {@code fields}
     * has entries (dimensions).
     */
    boolean writeMetricPrefix(ByteOut o, Message m, Metadata md) {
        byte[] b = o.ensure(eventRoom(m, md));
        int at = putHeader(b, o.length(), m, md);
        at = P_METRIC.put(b, at);
        at = P_FIELDS.put(b, at);
        boolean any = false;
        for (int i = 0; i < md.size(); i++) {
            if (!ReservedKeys.isMetric(md, i) && keys.selected(md, i)) {
                at = putField(b, at, md, i, any);
                any = true;
            }
        }
        o.setLength(at);
        return any;
    }

    /** One metric event per measurement (single-metric format): measurement {@code only} with every dimension. */
    void writeMetricEvent(ByteOut o, Message m, Metadata md, int only) {
        boolean dims = writeMetricPrefix(o, m, md);
        byte[] b = o.ensure(fieldRoom(md, md.arena(), only) + 16);
        int at = putField(b, o.length(), md, only, dims);
        at = P_END.put(b, at);
        o.setLength(at);
    }

    /** Writes the measurements of {@code md} into {@code o}, the first with a comma when {@code comma}. */
    void writeMeasurements(ByteOut o, Metadata md, boolean comma) {
        byte[] a = md.arena();
        int room = 16;
        for (int i = 0; i < md.size(); i++) {
            room += fieldRoom(md, a, i);
        }
        byte[] b = o.ensure(room);
        int at = o.length();
        for (int i = 0; i < md.size(); i++) {
            if (ReservedKeys.isMetric(md, i)) {
                at = putField(b, at, md, i, comma);
                comma = true;
            }
        }
        o.setLength(at);
    }
}
