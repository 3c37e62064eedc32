package io.sluice.hec.encode;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Turns a batch of messages into HEC request bodies. Two steps, both per batch:
 * <ol>
 *   <li>{@link #encode(Batch)} writes every event, uncompressed, into one reused buffer and records where each
 *       event ends and which messages it came from (a message with several measurements may become several
 *       metric events; several messages may merge into one multi-metric event);</li>
 *   <li>{@link #plan()} cuts the events into requests of at most {@code MaxContentLength} bytes as sent:
 *       plain requests are slices of the event buffer (no copy), gzip requests are compressed into a second
 *       reused buffer with sync flushes that keep the compressed size provably under the limit.</li>
 * </ol>
 * Events that cannot be sent (larger than {@code MaxEventSize}, or alone larger than a request may be) are
 * marked failed with a reason; the producer routes their messages to the fallback stream. Not thread-safe:
 * one encoder per delivering thread.
 */
public final class HecEncoder {
    private static final byte[] TIME = "\"time\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVENT = "\"event\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] METRIC = "\"event\":\"metric\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FIELDS = ",\"fields\":{".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] K_HOST = "host".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] K_SOURCE = "source".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] K_SOURCETYPE = "sourcetype".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] K_INDEX = "index".getBytes(StandardCharsets.US_ASCII);
    /** Prefix of a metadata key carrying a measurement, as HEC's multi-metric format names it. */
    public static final byte[] METRIC_PREFIX = "metric_name:".getBytes(StandardCharsets.US_ASCII);
    /** Feed the deflater in slices of this size, so that JNI calls are per 64 KiB, not per event. */
    private static final int FEED_SLICE = 64 * 1024;

    private final HecFormat format;
    private final JsonScanner scanner = new JsonScanner(512);
    private final ByteOut raw = new ByteOut(64 * 1024);
    private final ByteOut zipped;
    private final GzipWriter gzip;

    // Events: end offset in raw, first and last message index.
    private int events;
    private int[] evEnd = new int[1024];
    private int[] evFirstMsg = new int[1024];
    private int[] evLastMsg = new int[1024];

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
    private int messages;
    private int failed;

    // Multi-metric merging: the previous metric event's "prefix" (everything before its measurements).
    private int mergeEvent = -1;
    private int mergePrefixStart;
    private int mergePrefixLen;
    private long mergeTime;

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
    }

    public HecFormat format() {
        return format;
    }

    // ------------------------------------------------------------------------------------------ events

    /** Encodes every message of the batch into events; previous results are discarded. */
    public void encode(Batch batch) {
        int n = batch.size();
        raw.clear();
        events = 0;
        requests = 0;
        failed = 0;
        messages = n;
        mergeEvent = -1;
        if (failure.length < n) {
            failure = new String[Math.max(n, failure.length * 2)];
            failStatus = new int[failure.length];
            failCode = new int[failure.length];
        } else {
            Arrays.fill(failure, 0, n, null);
        }
        for (int i = 0; i < n; i++) {
            encodeMessage(batch.get(i), i);
        }
    }

    private void encodeMessage(Message m, int mi) {
        int start = raw.length();
        int eventsBefore = events;
        Metadata md = m.hasMetadata() ? m.metadata() : null;
        classify(md);
        if (format.raw) {
            int len = m.length();
            if (len > 0 && m.payload()[len - 1] == '\n') {
                len--;
            }
            raw.write(m.payload(), 0, len);
            raw.write('\n');
            addEvent(mi, mi);
        } else if (metricCount > 0) {
            if (format.multiMetric) {
                if (!tryMerge(m, md, mi)) {
                    writeMetricEvent(m, md, mi, -1);
                }
            } else {
                for (int i = 0; i < md.size(); i++) {
                    if (isMetric(md, i)) {
                        writeMetricEvent(m, md, mi, i);
                    }
                }
            }
        } else {
            mergeEvent = -1;
            writeLogEvent(m, md);
            addEvent(mi, mi);
        }
        // An event too large to be accepted anywhere: drop what this message wrote, report it.
        for (int e = eventsBefore; e < events; e++) {
            int len = evEnd[e] - (e == 0 ? 0 : evEnd[e - 1]);
            if (len > format.maxEventSize) {
                raw.setLength(start);
                events = eventsBefore;
                mergeEvent = -1;
                fail(mi, "event of " + len + " bytes exceeds MaxEventSize (" + format.maxEventSize + ")");
                return;
            }
        }
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
            int len = md.keyLength(i);
            switch (len) {
                case 4:
                    if (eq(a, off, K_HOST)) {
                        iHost = i;
                    }
                    break;
                case 5:
                    if (eq(a, off, K_INDEX)) {
                        iIndex = i;
                    }
                    break;
                case 6:
                    if (eq(a, off, K_SOURCE)) {
                        iSource = i;
                    }
                    break;
                case 10:
                    if (eq(a, off, K_SOURCETYPE)) {
                        iSourcetype = i;
                    }
                    break;
                default:
                    if (len > METRIC_PREFIX.length && eq(a, off, METRIC_PREFIX)) {
                        metricCount++;
                    }
            }
        }
    }

    private static boolean eq(byte[] a, int off, byte[] k) {
        return Arrays.equals(a, off, off + k.length, k, 0, k.length);
    }

    private static boolean isMetric(Metadata md, int i) {
        return md.keyLength(i) > METRIC_PREFIX.length && eq(md.arena(), md.keyOffset(i), METRIC_PREFIX);
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
            if (k.length == len && eq(md.arena(), off, k)) {
                return true;
            }
        }
        return false;
    }

    /** {@code {"time":T,"host":..,"source":..,"sourcetype":..,"index":..,} } */
    private void writeHeader(Message m, Metadata md) {
        ByteOut o = raw;
        o.write('{');
        long ts = m.timestamp();
        if (ts != 0) {
            o.write(TIME);
            o.writeEpochSeconds(ts);
            o.write(',');
        }
        writeMeta(md, iHost, K_HOST, format.host);
        writeMeta(md, iSource, K_SOURCE, format.source);
        writeMeta(md, iSourcetype, K_SOURCETYPE, format.sourcetype);
        writeMeta(md, iIndex, K_INDEX, format.index);
    }

    private void writeMeta(Metadata md, int i, byte[] key, byte[] dflt) {
        if (i >= 0) {
            raw.write('"');
            raw.write(key);
            raw.write('"');
            raw.write(':');
            raw.writeQuoted(md.arena(), md.valueOffset(i), md.valueLength(i));
            raw.write(',');
        } else if (dflt != null) {
            raw.write(dflt);
        }
    }

    private void writeField(Metadata md, int i, boolean comma) {
        ByteOut o = raw;
        if (comma) {
            o.write(',');
        }
        byte[] a = md.arena();
        o.writeQuoted(a, md.keyOffset(i), md.keyLength(i));
        o.write(':');
        if (md.kind(i) == Metadata.STRING) {
            o.writeQuoted(a, md.valueOffset(i), md.valueLength(i));
        } else if (md.valueLength(i) == 0) {
            o.write('"');
            o.write('"');
        } else {
            o.write(a, md.valueOffset(i), md.valueLength(i));
        }
    }

    private void writeLogEvent(Message m, Metadata md) {
        writeHeader(m, md);
        ByteOut o = raw;
        o.write(EVENT);
        byte[] p = m.payload();
        int len = m.length();
        switch (format.eventFormat) {
            case JSON:
                if (len == 0) {
                    o.write('"');
                    o.write('"');
                } else {
                    o.write(p, 0, len);
                }
                break;
            case STRING:
                o.writeQuoted(p, 0, len);
                break;
            default:
                if (len > 1 && (p[0] == '{' || p[0] == '[') && scanner.isJsonContainer(p, 0, len)) {
                    o.write(p, 0, len);
                } else {
                    o.writeQuoted(p, 0, len);
                }
        }
        boolean any = false;
        if (md != null) {
            for (int i = 0; i < md.size(); i++) {
                if (selected(md, i)) {
                    if (!any) {
                        o.write(FIELDS);
                        writeField(md, i, false);
                        any = true;
                    } else {
                        writeField(md, i, true);
                    }
                }
            }
        }
        if (any) {
            o.write('}');
        }
        o.write('}');
        o.write('\n');
    }

    /** Writes the part of a metric event before its measurements; returns whether {@code fields} has entries. */
    private boolean writeMetricPrefix(Message m, Metadata md) {
        writeHeader(m, md);
        raw.write(METRIC);
        raw.write(FIELDS);
        boolean any = false;
        for (int i = 0; i < md.size(); i++) {
            if (!isMetric(md, i) && selected(md, i)) {
                writeField(md, i, any);
                any = true;
            }
        }
        return any;
    }

    /** One metric event: all measurements of the message ({@code only < 0}) or just field {@code only}. */
    private void writeMetricEvent(Message m, Metadata md, int mi, int only) {
        int prefixStart = raw.length();
        boolean comma = writeMetricPrefix(m, md);
        int prefixLen = raw.length() - prefixStart;
        for (int i = 0; i < md.size(); i++) {
            if ((only < 0 && isMetric(md, i)) || i == only) {
                writeField(md, i, comma);
                comma = true;
            }
        }
        raw.write('}');
        raw.write('}');
        raw.write('\n');
        addEvent(mi, mi);
        if (only < 0) {
            mergeEvent = events - 1;
            mergePrefixStart = prefixStart;
            mergePrefixLen = prefixLen;
            mergeTime = m.timestamp();
        } else {
            mergeEvent = -1;
        }
    }

    /**
     * Multi-metric: a message with the same time and the same host/source/sourcetype/index/dimensions as the
     * previous metric event adds its measurements to that event, as the OTel exporter merges data points.
     * "The same" is decided on the encoded bytes: the new prefix is written, compared, and dropped.
     */
    private boolean tryMerge(Message m, Metadata md, int mi) {
        if (mergeEvent != events - 1 || mergeEvent < 0 || m.timestamp() != mergeTime) {
            return false;
        }
        int end = raw.length();
        writeMetricPrefix(m, md);
        int len = raw.length() - end;
        byte[] b = raw.array();
        boolean same = len == mergePrefixLen
                && Arrays.equals(b, end, end + len, b, mergePrefixStart, mergePrefixStart + len);
        raw.setLength(end);
        if (!same) {
            return false;
        }
        int eventStart = mergeEvent == 0 ? 0 : evEnd[mergeEvent - 1];
        raw.setLength(end - 3); // drop "}}\n" of the previous event, append, close again
        for (int i = 0; i < md.size(); i++) {
            if (isMetric(md, i)) {
                writeField(md, i, true);
            }
        }
        raw.write('}');
        raw.write('}');
        raw.write('\n');
        if (raw.length() - eventStart > format.maxEventSize) {
            raw.setLength(end - 3);
            raw.write('}');
            raw.write('}');
            raw.write('\n');
            return false;
        }
        evEnd[mergeEvent] = raw.length();
        evLastMsg[mergeEvent] = mi;
        return true;
    }

    private void addEvent(int firstMsg, int lastMsg) {
        if (events == evEnd.length) {
            int cap = events * 2;
            evEnd = Arrays.copyOf(evEnd, cap);
            evFirstMsg = Arrays.copyOf(evFirstMsg, cap);
            evLastMsg = Arrays.copyOf(evLastMsg, cap);
        }
        evEnd[events] = raw.length();
        evFirstMsg[events] = firstMsg;
        evLastMsg[events] = lastMsg;
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
        for (int mi = evFirstMsg[e]; mi <= evLastMsg[e]; mi++) {
            fail(mi, status, code, reason);
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

    /** Messages of the last batch that cannot be delivered. */
    public int failedMessages() {
        return failed;
    }

    /** Why message {@code i} of the last batch failed, or null when it did not. */
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
