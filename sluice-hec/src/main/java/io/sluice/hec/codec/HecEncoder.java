package io.sluice.hec.codec;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
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
 * <p>This class drives the encode: a message's keys are sorted by {@link ReservedKeys}, its event written by
 * {@link EventWriter} (OTLP: {@link OtlpLogEvents}, {@link OtlpMetricEvents}), multi-metric events merged by
 * {@link MultiMetricMerger}, the events and their messages' failures kept in {@link Events}, and the requests cut
 * by {@link RequestPlanner}.
 */
public final class HecEncoder {
    private final HecFormat format;
    private final ReservedKeys keys;
    private final EventWriter writer;
    private final Events ev = new Events();
    private final RequestPlanner planner;
    private ByteOut raw = new ByteOut(64 * 1024);
    /** UseMultiMetricFormat's merging; null without it. */
    private final MultiMetricMerger merger;
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
        OtlpKeys otlpKeys = new OtlpKeys(format);
        OtlpHeader otlpHeader = new OtlpHeader(format, otlpKeys);
        OtlpEntries otlpFields = new OtlpEntries();
        this.otlpLogs = new OtlpLogEvents(format, otlpKeys, otlpHeader, otlpFields);
        this.otlpMetrics = new OtlpMetricEvents(otlpKeys, otlpHeader, otlpFields);
        this.merger = format.multiMetric && !format.raw ? new MultiMetricMerger(format, ev, writer, otlpMetrics) : null;
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
        ev.reset(0);
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
        if (merger != null) {
            merger.clear(n);
        }
        for (int i = 0; i < n; i++) {
            encodeMessage(msgs[i], i);
        }
        if (merger != null) {
            raw = merger.splice(raw);
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
        if (merger != null && keys.metricCount > 0) {
            merger.encode(raw, msgs, m, md, mi);
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
                ev.failTooLarge(mi, len, format.maxEventSize);
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
            if (merger != null) {
                merger.encodeOtlp(raw, msgs, mi, k);
                continue;
            }
            int start = raw.length();
            otlpMetrics.writeEvent(k, raw);
            checkedEvent(mi, start);
        }
    }

    /** Records the event written from {@code start} on, or drops it and fails message {@code mi} when too large. */
    private void checkedEvent(int mi, int start) {
        if (ev.fits(raw, mi, start, format.maxEventSize)) {
            addEvent(mi);
        }
    }

    /** Records the event just written (ending at the buffer's end); its first message is {@code firstMsg}. */
    private void addEvent(int firstMsg) {
        if (merger != null) {
            merger.addEvent(raw, firstMsg);
        } else {
            ev.add(firstMsg, raw.length());
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
