package io.sluice.otlp.codec;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;

/**
 * One log record on its way into a message, filled by a decoder (protobuf or JSON) and written by {@link #emit},
 * so that both decoders write a record's fields in the same order and spelling. A decoder {@link #reset}s it,
 * adds the attributes to {@link #fields} as it reads them, sets what else it found (byte ranges stay in the
 * decoder's buffers until {@link #emit}), and emits.
 */
final class LogRecordFields {
    /** The record's fields: a decoder adds the attributes, {@link #emit} the rest. */
    final FieldBlock fields = new FieldBlock();

    long time;
    long observed;
    long severity;
    long dropped;
    long flags;
    byte[] severityText;
    int severityTextOff;
    int severityTextLen;
    byte[] eventName;
    int eventNameOff;
    int eventNameLen;
    /** Where the ids are: trace id and span id ranges in one buffer (length 0: not set). */
    byte[] ids;
    int traceOff;
    int traceLen;
    int spanOff;
    int spanLen;
    /** The body: its AnyValue type (ProtoValues' field numbers, 0 for none) and its payload bytes. */
    int bodyType;
    byte[] body;
    int bodyOff;
    int bodyLen;

    void reset() {
        fields.clear();
        time = 0;
        observed = 0;
        severity = 0;
        dropped = 0;
        flags = 0;
        severityTextLen = 0;
        eventNameLen = 0;
        traceLen = 0;
        spanLen = 0;
        bodyType = 0;
        bodyLen = 0;
    }

    /** Fills {@code m}: the record's time, {@code prefix} (signal, resource, scope), the record's fields, the body. */
    void emit(Message m, Metadata prefix) {
        FieldBlock f = fields;
        if (severity != 0) {
            f.key(Keys.SEVERITY_NUMBER, Keys.H_SEVERITY_NUMBER).signed(severity);
        }
        if (severityTextLen > 0) {
            f.key(Keys.SEVERITY_TEXT, Keys.H_SEVERITY_TEXT).string(severityText, severityTextOff, severityTextLen);
        }
        if (traceLen > 0 && !ValueText.allZero(ids, traceOff, traceLen)) {
            f.key(Keys.TRACE_ID, Keys.H_TRACE_ID).hex(ids, traceOff, traceLen);
        }
        if (spanLen > 0 && !ValueText.allZero(ids, spanOff, spanLen)) {
            f.key(Keys.SPAN_ID, Keys.H_SPAN_ID).hex(ids, spanOff, spanLen);
        }
        if (flags != 0) {
            f.key(Keys.FLAGS, Keys.H_FLAGS).unsigned(flags);
        }
        if (eventNameLen > 0) {
            f.key(Keys.EVENT_NAME, Keys.H_EVENT_NAME).string(eventName, eventNameOff, eventNameLen);
        }
        if (observed != 0) {
            f.key(Keys.OBSERVED_TIME, Keys.H_OBSERVED_TIME).unsigned(observed);
        }
        if (dropped != 0) {
            f.key(Keys.DROPPED_ATTRIBUTES, Keys.H_DROPPED_ATTRIBUTES).unsigned(dropped);
        }
        if (bodyType != ProtoValues.STRING) {
            byte[] type = Keys.BODY_TYPES[bodyType];
            f.key(Keys.BODY_TYPE, Keys.H_BODY_TYPE).string(type, 0, type.length);
        }
        m.setTimestamp(time);
        Metadata md = m.metadata();
        md.copyFrom(prefix);
        f.copyTo(md);
        if (bodyLen > 0) {
            m.setPayload(body, bodyOff, bodyLen);
        } else {
            m.setLength(0);
        }
    }
}
