package io.sluice.hec.codec;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;

import static io.sluice.hec.codec.OtlpEvents.ascii;
import static io.sluice.hec.codec.OtlpEvents.is;
import static io.sluice.hec.codec.OtlpEvents.parseLong;
import static io.sluice.hec.codec.OtlpEvents.roundToMillis;
import static io.sluice.hec.codec.OtlpKeys.BODY_TYPE;
import static io.sluice.hec.codec.OtlpKeys.OBSERVED;

/**
 * An OTLP log record as the exporter's {@code mapLogRecordToSplunkEvent} maps it: header, {@code event} (the body
 * as Go marshals it) and {@code fields} (span and trace ids, severity, then the resource's and the record's
 * attributes, in key order: {@link OtlpLogFields}). A record without a body is skipped, as the exporter skips it.
 */
final class OtlpLogEvents {
    private static final byte[] EMPTY = ascii("empty");
    private static final byte[] H_EVENT = ascii(",\"event\":");

    private final OtlpKeys keys;
    private final OtlpHeader header;
    private final OtlpEntries entries;
    private final OtlpLogFields fields;

    OtlpLogEvents(HecFormat format, OtlpKeys keys, OtlpHeader header, OtlpEntries entries) {
        this.keys = keys;
        this.header = header;
        this.entries = entries;
        this.fields = new OtlpLogFields(format, keys, entries);
    }

    /**
     * Writes the event of the OTLP log record in {@code m} to {@code o}, as {@code mapLogRecordToSplunkEvent};
     * false (and nothing written) when the exporter would skip it: a record without a body.
     */
    boolean writeLog(ByteOut o, Message m, Metadata md) {
        boolean sameKeys = keys.classify(md, false);
        if (!sameKeys) {
            fields.forgetPlan(); // made for other keys
        }
        int bt = keys.at[BODY_TYPE];
        if (bt >= 0 ? is(md, bt, EMPTY) : m.length() == 0) {
            return false; // "events with no body are rejected by Splunk"
        }
        keys.pickMeta(true);
        long ts = m.timestamp();
        if (ts == 0 && keys.at[OBSERVED] >= 0) {
            ts = parseLong(md.arena(), md.valueOffset(keys.at[OBSERVED]), md.valueLength(keys.at[OBSERVED]));
        }

        int byPlan = sameKeys ? fields.planRoom(md) : -1;
        if (byPlan >= 0) {
            // The last record's keys, and no map or array among the fields: its fields plan holds.
            int at = putHeaderAndEvent(o, m, md, bt, byPlan, ts);
            o.setLength(fields.putPlan(o.array(), at, md));
            return true;
        }

        fields.collect(md);

        int at = putHeaderAndEvent(o, m, md, bt, fields.refsRoom(md), ts);
        o.setLength(fields.putRefs(o.array(), at, md));
        return true;
    }

    /**
     * Writes the header and {@code event} into {@code o} and returns where the fields go, with {@code fieldsRoom}
     * bytes reserved there in {@code o.array()}. One reservation for the whole event, written at a local position
     * (see ByteOut); a body other than a string goes through the JSON writer, and the fields' room is then
     * reserved after it.
     */
    private int putHeaderAndEvent(ByteOut o, Message m, Metadata md, int bt, int fieldsRoom, long ts) {
        byte[] p = m.payload();
        int len = m.length();
        int room = header.headerRoom(md) + H_EVENT.length + fieldsRoom;
        if (bt < 0) {
            room += ByteOut.quotedRoom(p, 0, len);
        }
        byte[] b = o.ensure(room);
        int at = header.putHeader(b, o.length(), roundToMillis(ts), md.arena());
        System.arraycopy(H_EVENT, 0, b, at, H_EVENT.length);
        at += H_EVENT.length;
        if (bt < 0) {
            return ByteOut.putQuoted(b, at, p, 0, len); // a string body is sent as a string, whatever it holds
        }
        o.setLength(at);
        putBody(o, m, md, bt);
        o.ensure(fieldsRoom);
        return o.length();
    }

    /** {@code event}: the body's {@code AsRaw()} as Go marshals it, for a body other than a string. */
    private void putBody(ByteOut o, Message m, Metadata md, int bt) {
        byte[] p = m.payload();
        int len = m.length();
        byte c = md.arena()[md.valueOffset(bt)];
        if (c == 'b' && md.valueLength(bt) == 5) { // bytes: the payload is Go's base64 of a []byte
            o.writeQuoted(p, 0, len);
        } else if (c == 'b' || c == 'i') { // bool, int
            o.write(p, 0, len);
        } else { // double, array, kvlist
            entries.json.write(p, 0, len, o, 0);
        }
    }
}
