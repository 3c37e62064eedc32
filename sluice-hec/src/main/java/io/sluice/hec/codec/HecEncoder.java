package io.sluice.hec.codec;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
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
 *
 * <p>This class drives the encode and merges multi-metric events ({@link MetricGroups} keeps the books); a
 * message's keys are sorted by {@link ReservedKeys}, its event written by {@link EventWriter}, the events and their
 * messages' failures kept in {@link Events}, and the requests cut by {@link RequestPlanner}.
 */
public final class HecEncoder {
    private static final byte[] END = "}}\n".getBytes(StandardCharsets.US_ASCII);

    private final HecFormat format;
    private final ReservedKeys keys;
    private final EventWriter writer;
    private final Events ev = new Events();
    private final RequestPlanner planner;
    private ByteOut raw = new ByteOut(64 * 1024);
    /** The other buffer of {@link #splice}, made on first use. */
    private ByteOut spare;
    private final MetricGroups groups;
    // The OTLP mapping (messages with otlp.signal), as the OTel exporter's.
    private final OtlpLogEvents otlpLogs;
    private final OtlpMetricEvents otlpMetrics;
    /** Messages the OTel exporter would not send (a log without a body, an exponential histogram). */
    private int skipped;

    // The messages of the batches added, numbered in order.
    private Message[] msgs = new Message[512];
    private int messages;

    public HecEncoder(HecFormat format) {
        this.format = format;
        this.keys = new ReservedKeys(format.fieldKeys);
        this.writer = new EventWriter(format, keys);
        this.planner = new RequestPlanner(format, ev);
        this.groups = format.multiMetric && !format.raw ? new MetricGroups() : null;
        OtlpKeys otlpKeys = new OtlpKeys(format);
        OtlpHeader otlpHeader = new OtlpHeader(format, otlpKeys);
        OtlpEntries otlpFields = new OtlpEntries();
        this.otlpLogs = new OtlpLogEvents(format, otlpKeys, otlpHeader, otlpFields);
        this.otlpMetrics = new OtlpMetricEvents(otlpKeys, otlpHeader, otlpFields);
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
        ev.clear();
        planner.clear();
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
        ev.reset(n);
        planner.clear();
        skipped = 0;
        writer.forgetHeader();
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
        int eventsBefore = ev.count;
        Metadata md = m.hasMetadata() ? m.metadata() : null;
        if (md != null && !format.raw) {
            int signal = OtlpEvents.signal(md);
            if (signal != OtlpEvents.NONE) {
                encodeOtlp(m, md, mi, signal);
                return;
            }
        }
        keys.classify(md);
        if (groups != null && keys.metricCount > 0) {
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
        } else if (keys.metricCount > 0) {
            for (int i = 0; i < md.size(); i++) {
                if (ReservedKeys.isMetric(md, i)) {
                    writer.writeMetricEvent(raw, m, md, i);
                    addEvent(mi);
                }
            }
        } else {
            writer.writeLogEvent(raw, m, md);
            addEvent(mi);
        }
        // An event too large to be accepted anywhere: drop what this message wrote, report it.
        for (int e = eventsBefore; e < ev.count; e++) {
            int len = ev.end[e] - ev.start(e);
            if (len > format.maxEventSize) {
                raw.setLength(start);
                ev.count = eventsBefore;
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
            if (!otlpLogs.writeLog(raw, m, md)) {
                skipped++;
                return;
            }
            checkedEvent(mi, start);
            return;
        }
        int n = otlpMetrics.beginMetric(m, md);
        if (n < 0) {
            skipped++;
            return;
        }
        for (int k = 0; k < n; k++) {
            int start = raw.length();
            if (groups == null) {
                otlpMetrics.writeEvent(k, raw);
                checkedEvent(mi, start);
                continue;
            }
            boolean dims = otlpMetrics.writePrefix(k, raw);
            int len = raw.length() - start;
            int h = Metadata.hash(raw.array(), start, len);
            int g = groups.find(h, raw.array(), start, len);
            if (g >= 0 && joinOtlp(g, mi, start, k)) {
                continue;
            }
            otlpMetrics.writeMeasurement(k, raw, dims);
            raw.write(END);
            if (!checkedEvent(mi, start)) {
                continue;
            }
            groups.addName(ev.count - 1, otlpMetrics.measurementHash(k));
            if (g < 0) {
                groups.add(h, start, len, dims, ev.count - 1);
            } else {
                groups.setEvent(g, ev.count - 1);
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
        int name = otlpMetrics.measurementHash(k);
        if (otlpMetrics.hasMeasurement(k) && groups.holdsName(e, name)) {
            return false; // the exporter would overwrite the value; a second event keeps both
        }
        int piece = groups.extra.length();
        otlpMetrics.writeMeasurement(k, groups.extra, true);
        if (!attach(e, mi, start, piece)) {
            return false;
        }
        groups.addName(e, name);
        return true;
    }

    private void failTooLarge(int mi, int len) {
        ev.fail(mi, "event of " + len + " bytes exceeds MaxEventSize (" + format.maxEventSize + ")");
    }

    /**
     * Multi-metric: the message's measurements join the event collecting its prefix (time, host/source/sourcetype/
     * index and dimensions) anywhere in the batches, if there is one and it can take them; else they start a new
     * event with that prefix. "The same prefix" is decided on the encoded bytes: the prefix is written where a new
     * event would start, looked up, and dropped when an event has it already.
     */
    private void encodeMultiMetric(Message m, Metadata md, int mi) {
        int start = raw.length();
        boolean dims = writer.writeMetricPrefix(raw, m, md);
        int len = raw.length() - start;
        int h = Metadata.hash(raw.array(), start, len);
        int g = groups.find(h, raw.array(), start, len);
        if (g >= 0 && join(g, md, mi, start)) {
            return;
        }
        writer.writeMeasurements(raw, md, dims);
        raw.write(END);
        int size = raw.length() - start;
        if (size > format.maxEventSize) {
            raw.setLength(start);
            failTooLarge(mi, size);
            return;
        }
        addEvent(mi);
        if (g < 0) {
            groups.add(h, start, len, dims, ev.count - 1);
        } else {
            groups.setEvent(g, ev.count - 1); // the earlier event is full or has these names: collect here now
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
        writer.writeMeasurements(extra, md, true);
        if (!attach(e, mi, start, piece)) {
            return false;
        }
        groups.addNames(e, md);
        return true;
    }

    /** Indexes the measurement names of event {@code e} if not done yet: those of its only message so far. */
    private void indexNames(int e) {
        if (!groups.namesIndexed(e)) {
            groups.addNames(e, msgs[ev.nodeMsg[ev.first[e]]].metadata());
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
        int size = ev.end[e] - ev.start(e) + groups.extraBytes(e) + pieceLen;
        if (size > format.maxEventSize) {
            extra.setLength(piece);
            return false;
        }
        if (e == ev.count - 1 && ev.end[e] == start) {
            raw.setLength(start - END.length); // reopen the event: drop the prefix and its closing "}}\n"
            raw.write(extra.array(), piece, pieceLen);
            raw.write(END);
            ev.end[e] = raw.length();
            extra.setLength(piece);
        } else {
            raw.setLength(start);
            groups.addPiece(e, piece, pieceLen);
        }
        int node = ev.newNode(mi);
        ev.nodeNext[groups.lastMsg(e)] = node;
        groups.setLastMsg(e, node);
        return true;
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
        for (int e = 0; e < ev.count; e++) {
            int end = ev.end[e];
            if (groups.extraBytes(e) == 0) {
                out.write(src, from, end - from);
            } else {
                out.write(src, from, end - from - END.length);
                groups.writePieces(e, out);
                out.write(END);
            }
            from = end;
            ev.end[e] = out.length();
        }
        spare = raw;
        raw = out;
    }

    /** Records the event just written (ending at the buffer's end); its first message is {@code firstMsg}. */
    private void addEvent(int firstMsg) {
        int node = ev.add(firstMsg, raw.length());
        if (groups != null) {
            groups.newEvent(ev.count - 1, node);
        }
    }

    // ------------------------------------------------------------------------------------------ requests

    /** Cuts the encoded events into requests that each fit {@code MaxContentLength} as sent. */
    public void plan() {
        planner.plan(raw);
    }

    /**
     * For a 413 answer: replaces nothing, appends two requests holding each half of request {@code r}'s events,
     * and returns the index of the first (the second follows it); -1 when the request holds a single event.
     */
    public int split(int r) {
        return planner.split(r);
    }

    /**
     * Marks every message of request {@code r} failed (a permanent error, or retries exhausted), with the HTTP
     * status and HEC {@code code} (0 and -1 when there was no answer) and HEC's {@code text}.
     */
    public void failRequest(int r, int status, int code, String text) {
        planner.failRequest(r, status, code, text);
    }

    // ------------------------------------------------------------------------------------------ accessors

    /** Number of events encoded. */
    public int events() {
        return ev.count;
    }

    /** Number of requests planned (including halves appended by {@link #split}). */
    public int requests() {
        return planner.requests();
    }

    /** The array holding request {@code r}'s body. */
    public byte[] requestArray(int r) {
        return planner.compressed() ? planner.zippedArray() : raw.array();
    }

    public int requestOffset(int r) {
        return planner.offset(r);
    }

    public int requestLength(int r) {
        return planner.length(r);
    }

    /** Number of events in request {@code r}. */
    public int requestEvents(int r) {
        return planner.events(r);
    }

    /** Whether request bodies are gzip. */
    public boolean compressed() {
        return planner.compressed();
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
        return ev.failed();
    }

    /** Why message {@code i} (numbered across the batches added) failed, or null when it did not. */
    public String failure(int i) {
        return i < messages ? ev.failure(i) : null;
    }

    /** HTTP status of message {@code i}'s failure, 0 when it failed before sending. */
    public int failureStatus(int i) {
        return ev.failureStatus(i);
    }

    /** HEC {@code code} of message {@code i}'s failure, -1 when there was none. */
    public int failureCode(int i) {
        return ev.failureCode(i);
    }

    /** The uncompressed events (tests, debugging). */
    public String eventsText() {
        return raw.toString();
    }

    /** Frees the native deflater. */
    public void close() {
        planner.close();
    }
}
