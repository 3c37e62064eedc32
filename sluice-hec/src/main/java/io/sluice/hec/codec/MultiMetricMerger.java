package io.sluice.hec.codec;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;

/**
 * {@code UseMultiMetricFormat}: the measurements of metric messages join the event collecting their prefix (time,
 * host/source/sourcetype/index and dimensions) anywhere in the batches, if there is one and it can take them,
 * as the OTel exporter's {@code mergeEventsToMultiMetricFormat} merges data points; else they start a new event
 * with that prefix. "The same prefix" is decided on the encoded bytes: the prefix is written where a new event
 * would start, looked up, and dropped when an event has it already. {@link MetricGroups} keeps the books; the
 * measurements that join an earlier event are spliced in with one copy at the end ({@link #splice}).
 */
final class MultiMetricMerger {
    private static final byte[] END = "}}\n".getBytes(StandardCharsets.US_ASCII);

    private final HecFormat format;
    private final Events ev;
    private final EventWriter writer;
    private final OtlpMetricEvents otlp;
    private final MetricGroups groups = new MetricGroups();
    /** The other buffer of {@link #splice}, made on first use. */
    private ByteOut spare;

    MultiMetricMerger(HecFormat format, Events ev, EventWriter writer, OtlpMetricEvents otlp) {
        this.format = format;
        this.ev = ev;
        this.writer = writer;
        this.otlp = otlp;
    }

    /** Forgets everything; room for {@code messages} messages' groups. */
    void clear(int messages) {
        groups.clear(messages);
    }

    /** Records the event just written (ending at the end of {@code raw}); its first message is {@code mi}. */
    void addEvent(ByteOut raw, int mi) {
        int node = ev.add(mi, raw.length());
        groups.newEvent(ev.count - 1, node);
    }

    /**
     * Message {@code mi}'s measurements ({@code metric_name:<name>} keys, sorted by {@link ReservedKeys} just
     * before): joined to the event with their prefix, or a new event. {@code msgs} are the messages numbered.
     */
    void encode(ByteOut raw, Message[] msgs, Message m, Metadata md, int mi) {
        int start = raw.length();
        boolean dims = writer.writeMetricPrefix(raw, m, md);
        int len = raw.length() - start;
        int h = Metadata.hash(raw.array(), start, len);
        int g = groups.find(h, raw.array(), start, len);
        if (g >= 0 && join(raw, msgs, g, md, mi, start)) {
            return;
        }
        writer.writeMeasurements(raw, md, dims);
        raw.write(END);
        newEvent(raw, mi, start, g, h, len);
    }

    /** OTLP metric event {@code k} of message {@code mi} (one measurement), as {@link #encode} a message's. */
    void encodeOtlp(ByteOut raw, Message[] msgs, int mi, int k) {
        int start = raw.length();
        boolean dims = otlp.writePrefix(k, raw);
        int len = raw.length() - start;
        int h = Metadata.hash(raw.array(), start, len);
        int g = groups.find(h, raw.array(), start, len);
        if (g >= 0 && joinOtlp(raw, msgs, g, mi, start, k)) {
            return;
        }
        otlp.writeMeasurement(k, raw, dims);
        raw.write(END);
        if (newEvent(raw, mi, start, g, h, len)) {
            groups.addName(ev.count - 1, otlp.measurementHash(k));
        }
    }

    /**
     * Records the event written from {@code start} on, whose prefix (hash {@code h}, {@code len} bytes) is group
     * {@code g}'s (-1: a new group), as the event its group collects into; false when it was dropped as too large.
     */
    private boolean newEvent(ByteOut raw, int mi, int start, int g, int h, int len) {
        if (!ev.fits(raw, mi, start, format.maxEventSize)) {
            return false;
        }
        addEvent(raw, mi);
        if (g < 0) {
            groups.add(h, start, len, ev.count - 1);
        } else {
            groups.setEvent(g, ev.count - 1); // the earlier event is full or has these names: collect here now
        }
        return true;
    }

    /**
     * Adds the measurements of message {@code mi} (whose prefix was written at {@code start}) to group {@code g}'s
     * current event, unless that would exceed MaxEventSize or repeat a measurement name. The last event written
     * takes them in place; an earlier one gets them as a piece spliced in at the end.
     */
    private boolean join(ByteOut raw, Message[] msgs, int g, Metadata md, int mi, int start) {
        int e = groups.event(g);
        indexNames(msgs, e);
        if (groups.holdsName(e, md)) {
            return false;
        }
        ByteOut extra = groups.extra;
        int piece = extra.length();
        writer.writeMeasurements(extra, md, true);
        if (!attach(raw, e, mi, start, piece)) {
            return false;
        }
        groups.addNames(e, md);
        return true;
    }

    /** Like {@link #join} for OTLP metric event {@code k}'s one measurement. */
    private boolean joinOtlp(ByteOut raw, Message[] msgs, int g, int mi, int start, int k) {
        int e = groups.event(g);
        indexNames(msgs, e);
        int name = otlp.measurementHash(k);
        if (otlp.hasMeasurement(k) && groups.holdsName(e, name)) {
            return false; // the exporter would overwrite the value; a second event keeps both
        }
        int piece = groups.extra.length();
        otlp.writeMeasurement(k, groups.extra, true);
        if (!attach(raw, e, mi, start, piece)) {
            return false;
        }
        groups.addName(e, name);
        return true;
    }

    /** Indexes the measurement names of event {@code e} if not done yet: those of its only message so far. */
    private void indexNames(Message[] msgs, int e) {
        if (!groups.namesIndexed(e)) {
            groups.addNames(e, msgs[ev.nodeMsg[ev.first[e]]].metadata());
        }
    }

    /**
     * Adds the measurements just written to {@code groups.extra} from {@code piece} on (for message {@code mi},
     * whose prefix was written at {@code start}) to event {@code e}, unless that would exceed MaxEventSize. The
     * last event written takes them in place; an earlier one gets them as a piece spliced in at the end.
     */
    private boolean attach(ByteOut raw, int e, int mi, int start, int piece) {
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
     * Returns the buffer holding the events once merged: {@code raw} when no measurement joined an earlier event;
     * else the events rewritten into the spare buffer with those measurements placed before the events' closing
     * {@code }}\n} (one copy), {@code raw} becoming the spare.
     */
    ByteOut splice(ByteOut raw) {
        if (!groups.hasPieces()) {
            return raw;
        }
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
        return out;
    }
}
