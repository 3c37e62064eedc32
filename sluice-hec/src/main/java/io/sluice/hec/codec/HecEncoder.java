package io.sluice.hec.codec;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Turns messages into HEC request bodies. Two steps:
 * <ol>
 *   <li>{@link #encode()} writes every event of the batches {@link #add added}, uncompressed, into one reused
 *       buffer and records where each event ends and which messages it came from (a message with several
 *       measurements may become several metric events; with {@code UseMultiMetricFormat} the metric messages
 *       sharing time and dimensions anywhere in the batches become one event);</li>
 *   <li>{@link #plan()} cuts the events into requests of at most {@code MaxContentLength} bytes as sent:
 *       plain requests are slices of the event buffer (no copy), gzip requests are compressed into a second
 *       reused buffer with sync flushes that keep the compressed size provably under the limit.</li>
 * </ol>
 * A message from consumer.OTLP (marked by {@code otlp.signal}) is mapped as the OTel Collector's splunkhec exporter
 * maps the same log record or data point ({@link OtlpEvents}); records that exporter would not send are skipped
 * ({@link #skippedMessages()}).
 * Messages are numbered across the batches added, in order ({@link #add} returns a batch's first number).
 * Events that cannot be sent (larger than {@code MaxEventSize}, or alone larger than a request may be) are
 * marked failed with a reason; the producer routes their messages to the fallback stream. Not thread-safe:
 * one encoder per delivering thread.
 */
public final class HecEncoder {
    private static final Piece P_TIME = Piece.of("\"time\":");
    private static final Piece P_EVENT = Piece.of("\"event\":");
    private static final Piece P_METRIC = Piece.of("\"event\":\"metric\"");
    private static final Piece P_FIELDS = Piece.of(",\"fields\":{");
    private static final Piece P_END = Piece.of("}}\n");
    private static final Piece P_HOST = Piece.of("\"host\":");
    private static final Piece P_SOURCE = Piece.of("\"source\":");
    private static final Piece P_SOURCETYPE = Piece.of("\"sourcetype\":");
    private static final Piece P_INDEX = Piece.of("\"index\":");
    private static final byte[] END = "}}\n".getBytes(StandardCharsets.US_ASCII);
    /** Prefix of a metadata key carrying a measurement, as HEC's multi-metric format names it. */
    public static final byte[] METRIC_PREFIX = "metric_name:".getBytes(StandardCharsets.US_ASCII);
    /** Feed the deflater in slices of this size, so that JNI calls are per 64 KiB, not per event. */
    private static final int FEED_SLICE = 64 * 1024;

    // Reserved keys compared as little-endian words: one or two compares per key instead of a byte loop.
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
    private final JsonScanner scanner = new JsonScanner(512);
    private ByteOut raw = new ByteOut(64 * 1024);
    /** The other buffer of {@link #splice}, made on first use. */
    private ByteOut spare;
    private final ByteOut zipped;
    private final GzipWriter gzip;
    private final MetricGroups groups;
    /** The OTLP mapping (messages with {@code otlp.signal}), as the OTel exporter's. */
    private final OtlpEvents otlp;
    /** Messages the OTel exporter would not send (a log without a body, an exponential histogram). */
    private int skipped;

    // The messages of the batches added, numbered in order.
    private Message[] msgs = new Message[512];
    private int messages;

    // Events: end offset in raw and first member. Members are nodes (a message, the next node): a message
    // belongs to one event mostly, but an OTLP histogram's to several (each bucket its own), so a message
    // cannot be its own link.
    private int events;
    private int[] evEnd = new int[1024];
    private int[] evFirst = new int[1024];
    private int nodes;
    private int[] nodeMsg = new int[1024];
    private int[] nodeNext = new int[1024];

    // Requests: event range and where their bytes are.
    private int requests;
    private int[] reqFirstEv = new int[64];
    private int[] reqEndEv = new int[64];
    private int[] reqOff = new int[64];
    private int[] reqLen = new int[64];

    // Per message: why it failed, or null.
    private String[] failure = new String[512];
    private int[] failStatus = new int[512];
    private int[] failCode = new int[512];
    private int failed;

    // The last host/source/sourcetype/index values written (array null: the default) and their encoding.
    // Valid within one encode(): the messages, and so the arrays, do not change meanwhile.
    private final ByteOut metaCache = new ByteOut(256);
    private final byte[][] metaArr = new byte[4][];
    private final int[] metaOff = new int[4];
    private final int[] metaLen = new int[4];
    private boolean metaCached;
    /** Set by {@link #writeMetricPrefix}: whether the prefix's {@code fields} has entries (dimensions). */
    private boolean prefixDims;

    // Reserved keys found in the current message's metadata.
    private int iHost;
    private int iSource;
    private int iSourcetype;
    private int iIndex;
    private int metricCount;

    public HecEncoder(HecFormat format) {
        this.format = format;
        this.gzip = format.gzip ? new GzipWriter(format.gzipLevel) : null;
        this.zipped = format.gzip ? new ByteOut(64 * 1024) : null;
        this.groups = format.multiMetric && !format.raw ? new MetricGroups() : null;
        this.otlp = new OtlpEvents(format);
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

    public HecFormat format() {
        return format;
    }

    // ------------------------------------------------------------------------------------------ events

    /** Encodes every message of the batch into events; previous results are discarded. */
    public void encode(Batch batch) {
        clear();
        add(batch);
        encode();
    }

    /** Forgets the batches added and what was encoded from them. */
    public void clear() {
        messages = 0;
        events = 0;
        requests = 0;
        failed = 0;
        raw.clear();
    }

    /**
     * Adds a batch to be encoded with the others by {@link #encode()}; returns the number its first message has
     * (for {@link #failure(int)}). The batch must not change until the requests were sent.
     */
    public int add(Batch batch) {
        int base = messages;
        int n = base + batch.size();
        if (msgs.length < n) {
            msgs = Arrays.copyOf(msgs, Math.max(n, msgs.length * 2));
        }
        for (int i = 0; i < batch.size(); i++) {
            msgs[base + i] = batch.get(i);
        }
        messages = n;
        return base;
    }

    /** Encodes every message added since {@link #clear()} into events; previous events are discarded. */
    public void encode() {
        int n = messages;
        raw.clear();
        events = 0;
        requests = 0;
        failed = 0;
        if (failure.length < n) {
            failure = new String[Math.max(n, failure.length * 2)];
            failStatus = new int[failure.length];
            failCode = new int[failure.length];
        } else {
            Arrays.fill(failure, 0, n, null);
        }
        nodes = 0;
        skipped = 0;
        metaCached = false;
        if (groups != null) {
            groups.clear(n);
        }
        for (int i = 0; i < n; i++) {
            encodeMessage(msgs[i], i);
        }
        if (groups != null && groups.hasPieces()) {
            splice();
        }
    }

    private void encodeMessage(Message m, int mi) {
        int start = raw.length();
        int eventsBefore = events;
        Metadata md = m.hasMetadata() ? m.metadata() : null;
        if (md != null && !format.raw) {
            int signal = OtlpEvents.signal(md);
            if (signal != OtlpEvents.NONE) {
                encodeOtlp(m, md, mi, signal);
                return;
            }
        }
        classify(md);
        if (groups != null && metricCount > 0) {
            encodeMultiMetric(m, md, mi);
            return;
        }
        if (format.raw) {
            int len = m.length();
            if (len > 0 && m.payload()[len - 1] == '\n') {
                len--;
            }
            raw.write(m.payload(), 0, len);
            raw.write('\n');
            addEvent(mi);
        } else if (metricCount > 0) {
            for (int i = 0; i < md.size(); i++) {
                if (isMetric(md, i)) {
                    writeMetricEvent(m, md, mi, i);
                }
            }
        } else {
            writeLogEvent(m, md);
            addEvent(mi);
        }
        // An event too large to be accepted anywhere: drop what this message wrote, report it.
        for (int e = eventsBefore; e < events; e++) {
            int len = evEnd[e] - (e == 0 ? 0 : evEnd[e - 1]);
            if (len > format.maxEventSize) {
                raw.setLength(start);
                events = eventsBefore;
                failTooLarge(mi, len);
                return;
            }
        }
    }

    /**
     * An OTLP log record or metric point, mapped by {@link OtlpEvents} as the OTel exporter maps it: one log
     * event; or one metric event per measurement (a histogram has several), which with {@code
     * UseMultiMetricFormat} join the events sharing their time, host/source/sourcetype/index and dimensions, as
     * the exporter's {@code mergeEventsToMultiMetricFormat} merges them. What the exporter would not send is
     * skipped (counted, see {@link #skippedMessages()}).
     */
    private void encodeOtlp(Message m, Metadata md, int mi, int signal) {
        if (signal == OtlpEvents.LOG) {
            int start = raw.length();
            if (!otlp.writeLog(raw, m, md)) {
                skipped++;
                return;
            }
            checkedEvent(mi, start);
            return;
        }
        int n = otlp.beginMetric(m, md);
        if (n < 0) {
            skipped++;
            return;
        }
        for (int k = 0; k < n; k++) {
            int start = raw.length();
            if (groups == null) {
                otlp.writeEvent(k, raw);
                checkedEvent(mi, start);
                continue;
            }
            boolean dims = otlp.writePrefix(k, raw);
            int len = raw.length() - start;
            int h = Metadata.hash(raw.array(), start, len);
            int g = groups.find(h, raw.array(), start, len);
            if (g >= 0 && joinOtlp(g, mi, start, k)) {
                continue;
            }
            otlp.writeMeasurement(k, raw, dims);
            raw.write(END);
            if (!checkedEvent(mi, start)) {
                continue;
            }
            groups.addName(events - 1, otlp.measurementHash(k));
            if (g < 0) {
                groups.add(h, start, len, dims, events - 1);
            } else {
                groups.setEvent(g, events - 1);
            }
        }
    }

    /** Records the event written from {@code start} on, or drops it and fails message {@code mi} when too large. */
    private boolean checkedEvent(int mi, int start) {
        int len = raw.length() - start;
        if (len > format.maxEventSize) {
            raw.setLength(start);
            failTooLarge(mi, len);
            return false;
        }
        addEvent(mi);
        return true;
    }

    /** Like {@link #join} for OTLP metric event {@code k}'s one measurement. */
    private boolean joinOtlp(int g, int mi, int start, int k) {
        int e = groups.event(g);
        indexNames(e);
        int name = otlp.measurementHash(k);
        if (otlp.hasMeasurement(k) && groups.holdsName(e, name)) {
            return false; // the exporter would overwrite the value; a second event keeps both
        }
        int piece = groups.extra.length();
        otlp.writeMeasurement(k, groups.extra, true);
        if (!attach(e, mi, start, piece)) {
            return false;
        }
        groups.addName(e, name);
        return true;
    }

    private void failTooLarge(int mi, int len) {
        fail(mi, "event of " + len + " bytes exceeds MaxEventSize (" + format.maxEventSize + ")");
    }

    private void classify(Metadata md) {
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

    private boolean reserved(int i) {
        return i == iHost || i == iSource || i == iSourcetype || i == iIndex;
    }

    /** Whether metadata field i goes into {@code fields} (measurements are handled by the caller). */
    private boolean selected(Metadata md, int i) {
        if (reserved(i)) {
            return false;
        }
        byte[][] keys = format.fieldKeys;
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

    // --------------------------------------------------------------------------------- writing one event
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
        at = putMeta(b, at, md, iHost, P_HOST, format.host);
        at = putMeta(b, at, md, iSource, P_SOURCE, format.source);
        at = putMeta(b, at, md, iSourcetype, P_SOURCETYPE, format.sourcetype);
        at = putMeta(b, at, md, iIndex, P_INDEX, format.index);
        rememberMeta(md, b, start, at);
        return at;
    }

    /**
     * Whether host/source/sourcetype/index are the same values as in the last header written, whose encoded
     * bytes are then in {@link #metaCache}. Consecutive events mostly share them, and comparing four short
     * values costs less than quoting them again.
     */
    private boolean sameMetaAsLast(Metadata md) {
        return metaCached && sameValue(md, iHost, 0) && sameValue(md, iSource, 1) && sameValue(md, iSourcetype, 2)
                && sameValue(md, iIndex, 3);
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
        remember(md, iHost, 0);
        remember(md, iSource, 1);
        remember(md, iSourcetype, 2);
        remember(md, iIndex, 3);
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

    private void writeLogEvent(Message m, Metadata md) {
        byte[] b = raw.ensure(eventRoom(m, md));
        int at = putHeader(b, raw.length(), m, md);
        at = P_EVENT.put(b, at);
        at = putPayload(b, at, m);
        boolean any = false;
        if (md != null) {
            for (int i = 0; i < md.size(); i++) {
                if (selected(md, i)) {
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
        raw.setLength(at);
    }

    /** The payload as {@code event}'s value: JSON as it is, or a quoted string, as EventFormat says. */
    private int putPayload(byte[] b, int at, Message m) {
        byte[] p = m.payload();
        int len = m.length();
        boolean asJson;
        switch (format.eventFormat) {
            case JSON:
                if (len == 0) {
                    b[at++] = '"';
                    b[at++] = '"';
                    return at;
                }
                asJson = true;
                break;
            case STRING:
                asJson = false;
                break;
            default:
                asJson = len > 1 && (p[0] == '{' || p[0] == '[') && scanner.isJsonContainer(p, 0, len);
        }
        if (!asJson) {
            return ByteOut.putQuoted(b, at, p, 0, len);
        }
        System.arraycopy(p, 0, b, at, len);
        return at + len;
    }

    /**
     * Writes the part of a metric event before its measurements into {@code o} and sets {@link #prefixDims} to
     * whether {@code fields} has entries. Needs {@link #classify} of the message first.
     */
    private void writeMetricPrefix(ByteOut o, Message m, Metadata md) {
        byte[] b = o.ensure(eventRoom(m, md));
        int at = putHeader(b, o.length(), m, md);
        at = P_METRIC.put(b, at);
        at = P_FIELDS.put(b, at);
        boolean any = false;
        for (int i = 0; i < md.size(); i++) {
            if (!isMetric(md, i) && selected(md, i)) {
                at = putField(b, at, md, i, any);
                any = true;
            }
        }
        o.setLength(at);
        prefixDims = any;
    }

    /** One metric event per measurement (single-metric format): measurement {@code only} with every dimension. */
    private void writeMetricEvent(Message m, Metadata md, int mi, int only) {
        writeMetricPrefix(raw, m, md);
        byte[] b = raw.ensure(fieldRoom(md, md.arena(), only) + 16);
        int at = putField(b, raw.length(), md, only, prefixDims);
        at = P_END.put(b, at);
        raw.setLength(at);
        addEvent(mi);
    }

    /**
     * Multi-metric: the message's measurements join the event collecting its prefix (time, host/source/sourcetype/
     * index and dimensions) anywhere in the batches, if there is one and it can take them; else they start a new
     * event with that prefix. "The same prefix" is decided on the encoded bytes: the prefix is written where a new
     * event would start, looked up, and dropped when an event has it already.
     */
    private void encodeMultiMetric(Message m, Metadata md, int mi) {
        int start = raw.length();
        writeMetricPrefix(raw, m, md);
        int len = raw.length() - start;
        int h = Metadata.hash(raw.array(), start, len);
        int g = groups.find(h, raw.array(), start, len);
        if (g >= 0 && join(g, md, mi, start)) {
            return;
        }
        writeMeasurements(raw, md, prefixDims);
        raw.write(END);
        int size = raw.length() - start;
        if (size > format.maxEventSize) {
            raw.setLength(start);
            failTooLarge(mi, size);
            return;
        }
        addEvent(mi);
        if (g < 0) {
            groups.add(h, start, len, prefixDims, events - 1);
        } else {
            groups.setEvent(g, events - 1); // the earlier event is full or has these names: collect here now
        }
    }

    /**
     * Adds the measurements of message {@code mi} (whose prefix was written at {@code start}) to group {@code g}'s
     * current event, unless that would exceed MaxEventSize or repeat a measurement name. The last event written
     * takes them in place; an earlier one gets them as a piece spliced in at the end.
     */
    private boolean join(int g, Metadata md, int mi, int start) {
        int e = groups.event(g);
        indexNames(e);
        if (groups.holdsName(e, md)) {
            return false;
        }
        ByteOut extra = groups.extra;
        int piece = extra.length();
        writeMeasurements(extra, md, true);
        if (!attach(e, mi, start, piece)) {
            return false;
        }
        groups.addNames(e, md);
        return true;
    }

    /** Indexes the measurement names of event {@code e} if not done yet: those of its only message so far. */
    private void indexNames(int e) {
        if (!groups.namesIndexed(e)) {
            groups.addNames(e, msgs[nodeMsg[evFirst[e]]].metadata());
        }
    }

    /**
     * Adds the measurements just written to {@code groups.extra} from {@code piece} on (for message {@code mi},
     * whose prefix was written at {@code start}) to event {@code e}, unless that would exceed MaxEventSize. The
     * last event written takes them in place; an earlier one gets them as a piece spliced in at the end.
     */
    private boolean attach(int e, int mi, int start, int piece) {
        ByteOut extra = groups.extra;
        int pieceLen = extra.length() - piece;
        int size = evEnd[e] - evStart(e) + groups.extraBytes(e) + pieceLen;
        if (size > format.maxEventSize) {
            extra.setLength(piece);
            return false;
        }
        if (e == events - 1 && evEnd[e] == start) {
            raw.setLength(start - END.length); // reopen the event: drop the prefix and its closing "}}\n"
            raw.write(extra.array(), piece, pieceLen);
            raw.write(END);
            evEnd[e] = raw.length();
            extra.setLength(piece);
        } else {
            raw.setLength(start);
            groups.addPiece(e, piece, pieceLen);
        }
        int node = newNode(mi);
        nodeNext[groups.lastMsg(e)] = node;
        groups.setLastMsg(e, node);
        return true;
    }

    /** A member node for message {@code mi}, last of its chain. */
    private int newNode(int mi) {
        if (nodes == nodeMsg.length) {
            nodeMsg = Arrays.copyOf(nodeMsg, nodes * 2);
            nodeNext = Arrays.copyOf(nodeNext, nodes * 2);
        }
        nodeMsg[nodes] = mi;
        nodeNext[nodes] = -1;
        return nodes++;
    }

    /** Writes the measurements of {@code md} into {@code o}, the first with a comma when {@code comma}. */
    private void writeMeasurements(ByteOut o, Metadata md, boolean comma) {
        byte[] a = md.arena();
        int room = 16;
        for (int i = 0; i < md.size(); i++) {
            room += fieldRoom(md, a, i);
        }
        byte[] b = o.ensure(room);
        int at = o.length();
        for (int i = 0; i < md.size(); i++) {
            if (isMetric(md, i)) {
                at = putField(b, at, md, i, comma);
                comma = true;
            }
        }
        o.setLength(at);
    }

    /**
     * Rewrites the events into the spare buffer with the measurements that joined earlier events placed before
     * those events' closing {@code }}\n}, then swaps the buffers: one copy, only when such merges happened.
     */
    private void splice() {
        ByteOut out = spare != null ? spare : new ByteOut(raw.length() + groups.extra.length());
        out.clear();
        out.ensure(raw.length() + groups.extra.length());
        byte[] src = raw.array();
        int from = 0;
        for (int e = 0; e < events; e++) {
            int end = evEnd[e];
            if (groups.extraBytes(e) == 0) {
                out.write(src, from, end - from);
            } else {
                out.write(src, from, end - from - END.length);
                groups.writePieces(e, out);
                out.write(END);
            }
            from = end;
            evEnd[e] = out.length();
        }
        spare = raw;
        raw = out;
    }

    /** Records the event just written (ending at the buffer's end); its first message is {@code firstMsg}. */
    private void addEvent(int firstMsg) {
        if (events == evEnd.length) {
            int cap = events * 2;
            evEnd = Arrays.copyOf(evEnd, cap);
            evFirst = Arrays.copyOf(evFirst, cap);
        }
        int node = newNode(firstMsg);
        evEnd[events] = raw.length();
        evFirst[events] = node;
        if (groups != null) {
            groups.newEvent(events, node);
        }
        events++;
    }

    private void fail(int mi, String reason) {
        fail(mi, 0, -1, reason);
    }

    private void fail(int mi, int status, int code, String reason) {
        if (failure[mi] == null) {
            failure[mi] = reason;
            failStatus[mi] = status;
            failCode[mi] = code;
            failed++;
        }
    }

    // ------------------------------------------------------------------------------------------ requests

    /** Cuts the encoded events into requests that each fit {@code MaxContentLength} as sent. */
    public void plan() {
        requests = 0;
        if (zipped != null) {
            zipped.clear();
            planGzip();
        } else {
            planPlain();
        }
    }

    private int evStart(int e) {
        return e == 0 ? 0 : evEnd[e - 1];
    }

    private void planPlain() {
        int max = format.maxContentLength;
        int first = 0;
        for (int e = 0; e < events; e++) {
            if (evEnd[e] - evStart(first) > max) {
                if (e > first) {
                    addRequest(first, e, evStart(first), evStart(e) - evStart(first));
                }
                first = e;
                if (evEnd[e] - evStart(e) > max) {
                    failEvent(e, "event of " + (evEnd[e] - evStart(e)) + " bytes exceeds MaxContentLength (" + max + ")");
                    first = e + 1;
                }
            }
        }
        if (first < events) {
            addRequest(first, events, evStart(first), evEnd[events - 1] - evStart(first));
        }
    }

    /**
     * Greedy gzip packing with a guaranteed bound: an event is added while the exact compressed size after the
     * last sync flush plus the worst-case size of everything fed since stays under the limit; when it would not,
     * a sync flush makes the size exact again, and only if it still does not fit does the request end.
     */
    private void planGzip() {
        int max = format.maxContentLength - 8; // room for the trailer
        ByteOut out = zipped;
        byte[] src = raw.array();
        int e = 0;
        while (e < events) {
            int reqStart = out.length();
            int first = e;
            gzip.begin(out);
            int fedTo = evStart(e);
            int pending = 0;
            for (; e < events; e++) {
                int len = evEnd[e] - evStart(e);
                if (out.length() - reqStart + GzipWriter.bound(pending + len) > max) {
                    if (pending > 0) {
                        gzip.feed(out, src, fedTo, evStart(e) - fedTo);
                        fedTo = evStart(e);
                        gzip.syncFlush(out);
                        pending = 0;
                    }
                    if (out.length() - reqStart + GzipWriter.bound(len) > max) {
                        if (e > first) {
                            break; // the request is full
                        }
                        // Alone in its request and maybe too big even compressed: try it.
                        gzip.feed(out, src, evStart(e), len);
                        gzip.finish(out);
                        if (out.length() - reqStart <= format.maxContentLength) {
                            addRequest(e, e + 1, reqStart, out.length() - reqStart);
                        } else {
                            out.setLength(reqStart);
                            failEvent(e, "event of " + len + " bytes exceeds MaxContentLength ("
                                    + format.maxContentLength + ") even compressed");
                        }
                        e++;
                        first = -1;
                        break;
                    }
                }
                pending += len;
                if (evEnd[e] - fedTo >= FEED_SLICE) {
                    gzip.feed(out, src, fedTo, evEnd[e] - fedTo);
                    fedTo = evEnd[e];
                }
            }
            if (first >= 0 && e > first) {
                gzip.feed(out, src, fedTo, evEnd[e - 1] - fedTo);
                gzip.finish(out);
                addRequest(first, e, reqStart, out.length() - reqStart);
            } else if (first >= 0) {
                out.setLength(reqStart);
            }
        }
    }

    /** Compresses (or slices) events {@code [first, end)} as one request, ignoring the size limit. */
    private void buildRequest(int first, int end) {
        if (zipped == null) {
            addRequest(first, end, evStart(first), evEnd[end - 1] - evStart(first));
            return;
        }
        int reqStart = zipped.length();
        gzip.begin(zipped);
        gzip.feed(zipped, raw.array(), evStart(first), evEnd[end - 1] - evStart(first));
        gzip.finish(zipped);
        addRequest(first, end, reqStart, zipped.length() - reqStart);
    }

    /**
     * For a 413 answer: replaces nothing, appends two requests holding each half of request {@code r}'s events,
     * and returns the index of the first (the second follows it); -1 when the request holds a single event.
     */
    public int split(int r) {
        int first = reqFirstEv[r];
        int end = reqEndEv[r];
        if (end - first < 2) {
            return -1;
        }
        int mid = (first + end) >>> 1;
        int at = requests;
        buildRequest(first, mid);
        buildRequest(mid, end);
        return at;
    }

    private void addRequest(int first, int end, int off, int len) {
        if (requests == reqFirstEv.length) {
            int cap = requests * 2;
            reqFirstEv = Arrays.copyOf(reqFirstEv, cap);
            reqEndEv = Arrays.copyOf(reqEndEv, cap);
            reqOff = Arrays.copyOf(reqOff, cap);
            reqLen = Arrays.copyOf(reqLen, cap);
        }
        reqFirstEv[requests] = first;
        reqEndEv[requests] = end;
        reqOff[requests] = off;
        reqLen[requests] = len;
        requests++;
    }

    private void failEvent(int e, String reason) {
        failEvent(e, 0, -1, reason);
    }

    private void failEvent(int e, int status, int code, String reason) {
        for (int n = evFirst[e]; n >= 0; n = nodeNext[n]) {
            fail(nodeMsg[n], status, code, reason);
        }
    }

    /**
     * Marks every message of request {@code r} failed (a permanent error, or retries exhausted), with the HTTP
     * status and HEC {@code code} (0 and -1 when there was no answer) and HEC's {@code text}.
     */
    public void failRequest(int r, int status, int code, String text) {
        for (int e = reqFirstEv[r]; e < reqEndEv[r]; e++) {
            failEvent(e, status, code, text);
        }
    }

    // ------------------------------------------------------------------------------------------ accessors

    /** Number of events encoded. */
    public int events() {
        return events;
    }

    /** Number of requests planned (including halves appended by {@link #split}). */
    public int requests() {
        return requests;
    }

    /** The array holding request {@code r}'s body. */
    public byte[] requestArray(int r) {
        return zipped != null ? zipped.array() : raw.array();
    }

    public int requestOffset(int r) {
        return reqOff[r];
    }

    public int requestLength(int r) {
        return reqLen[r];
    }

    /** Number of events in request {@code r}. */
    public int requestEvents(int r) {
        return reqEndEv[r] - reqFirstEv[r];
    }

    /** Whether request bodies are gzip. */
    public boolean compressed() {
        return zipped != null;
    }

    /** Number of messages added (the batches' sizes summed). */
    public int messages() {
        return messages;
    }

    /**
     * OTLP messages of the last {@link #encode()} that were not sent because the OTel exporter does not send them
     * (a log record without a body, an exponential histogram): not failures, there is nothing to deliver.
     */
    public int skippedMessages() {
        return skipped;
    }

    /** Messages added that cannot be delivered. */
    public int failedMessages() {
        return failed;
    }

    /** Why message {@code i} (numbered across the batches added) failed, or null when it did not. */
    public String failure(int i) {
        return i < messages ? failure[i] : null;
    }

    /** HTTP status of message {@code i}'s failure, 0 when it failed before sending. */
    public int failureStatus(int i) {
        return failStatus[i];
    }

    /** HEC {@code code} of message {@code i}'s failure, -1 when there was none. */
    public int failureCode(int i) {
        return failCode[i];
    }

    /** The uncompressed events (tests, debugging). */
    public String eventsText() {
        return raw.toString();
    }

    /** Frees the native deflater. */
    public void close() {
        if (gzip != null) {
            gzip.close();
        }
    }
}
