package io.sluice.otlp.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.OtlpFields;

/**
 * Rebuilds an OTLP {@code ExportLogsServiceRequest} from log messages, the inverse of consumer.OTLP's mapping
 * ({@link OtlpFields}): records with equal resource and equal scope share one {@code ResourceLogs} and one
 * {@code ScopeLogs}, wherever they are in the batch, in the order they first appear.
 *
 * <p>A message without {@code otlp.signal} (from Forward, HEC, files) becomes a record of the empty resource and
 * scope: its payload the string body, every metadata field an attribute typed by its kind, its Forward tag the
 * attribute {@code fluent.tag}, its timestamp both the time and the observed time.
 *
 * <p>One encoder per thread; it reuses its buffers, so encoding allocates nothing per message once they have grown.
 */
public final class LogsEncoder extends ExportEncoder {
    // ScopeLogs and LogRecord fields.
    private static final int LOG_RECORDS = 2;
    private static final int TIME = 1;
    private static final int SEVERITY_NUMBER = 2;
    private static final int SEVERITY_TEXT = 3;
    private static final int BODY = 5;
    private static final int ATTRIBUTES = 6;
    private static final int DROPPED = 7;
    private static final int FLAGS = 8;
    private static final int TRACE_ID = 9;
    private static final int SPAN_ID = 10;
    private static final int OBSERVED_TIME = 11;
    private static final int EVENT_NAME = 12;

    // The record's own fields, found in one pass over the metadata (one lookup each would scan it nine times).
    private static final int O_SEVERITY_NUMBER = 0;
    private static final int O_SEVERITY_TEXT = 1;
    private static final int O_TRACE_ID = 2;
    private static final int O_SPAN_ID = 3;
    private static final int O_FLAGS = 4;
    private static final int O_EVENT_NAME = 5;
    private static final int O_OBSERVED = 6;
    private static final int O_DROPPED = 7;
    private static final int O_BODY_TYPE = 8;
    private static final byte[][] OWN_KEYS = {Keys.SEVERITY_NUMBER, Keys.SEVERITY_TEXT, Keys.TRACE_ID, Keys.SPAN_ID,
        Keys.FLAGS, Keys.EVENT_NAME, Keys.OBSERVED_TIME, Keys.DROPPED_ATTRIBUTES, Keys.BODY_TYPE};
    private static final byte[] FLUENT_TAG = Keys.b("fluent.tag");

    private byte[] tagBytes = new byte[64];
    private final int[] own = new int[OWN_KEYS.length];

    /** An encoder with empty buffers. */
    public LogsEncoder() {
        super(2);
    }

    @Override
    void add(int i, Message m, int signal) {
        if (signal == MessageKeys.OTLP_LOG || signal == MessageKeys.OTHER_LOG) {
            cats.add(i, m);
            groups.add(i, -1);
        }
    }

    @Override
    void items(int s) {
        for (int e = groups.firstChild(s); e >= 0; e = groups.nextEntry(e)) {
            out.begin(LOG_RECORDS);
            if (signal(e) == MessageKeys.OTLP_LOG) {
                otlpRecord(message(e), base(e));
            } else {
                otherRecord(message(e));
            }
            out.end();
        }
    }

    private void otlpRecord(Message m, int base) {
        Metadata md = m.metadata();
        java.util.Arrays.fill(own, -1);
        for (int i = 0; i < md.size(); i++) {
            int c = cats.at(base + i);
            if (c == MessageKeys.ATTRIBUTE) {
                values.keyValue(out, ATTRIBUTES, md.arena(), md.keyOffset(i), md.keyLength(i), md, i);
            } else if (c == MessageKeys.OWN) {
                ownField(md, i);
            }
        }
        if (m.timestamp() != 0) {
            out.fixed64Field(TIME, m.timestamp());
        }
        long observed = MessageKeys.number(md, own[O_OBSERVED], 0);
        if (observed != 0) {
            out.fixed64Field(OBSERVED_TIME, observed);
        }
        Scopes.varint(out, SEVERITY_NUMBER, md, own[O_SEVERITY_NUMBER]);
        Scopes.string(out, SEVERITY_TEXT, md, own[O_SEVERITY_TEXT]);
        body(m, md, own[O_BODY_TYPE]);
        Scopes.varint(out, DROPPED, md, own[O_DROPPED]);
        long flags = MessageKeys.number(md, own[O_FLAGS], 0);
        if (flags != 0) {
            out.fixed32Field(FLAGS, (int) flags);
        }
        hexBytes(md, own[O_TRACE_ID], TRACE_ID);
        hexBytes(md, own[O_SPAN_ID], SPAN_ID);
        Scopes.string(out, EVENT_NAME, md, own[O_EVENT_NAME]);
    }

    /** Notes which of the record's own fields field {@code i} is, if any. */
    private void ownField(Metadata md, int i) {
        byte[] a = md.arena();
        int off = md.keyOffset(i);
        int len = md.keyLength(i);
        for (int k = 0; k < OWN_KEYS.length; k++) {
            if (OWN_KEYS[k].length == len && MessageKeys.startsWith(a, off, len, OWN_KEYS[k])) {
                own[k] = i;
                return;
            }
        }
    }

    /** The body from the payload, typed by {@code otlp.body_type} (a string body when absent). */
    private void body(Message m, Metadata md, int t) {
        byte[] p = m.payload();
        int len = m.length();
        switch (t < 0 ? ProtoValues.STRING : bodyType(md, t)) {
            case 0 -> { }
            case ProtoValues.STRING -> Values.stringValue(out, BODY, p, 0, len);
            case ProtoValues.INT -> Values.numberValue(out, BODY, p, 0, len);
            case ProtoValues.DOUBLE -> {
                out.begin(BODY);
                out.doubleField(ProtoValues.DOUBLE, Text.parseDouble(p, 0, len));
                out.end();
            }
            case ProtoValues.BOOL -> Values.boolValue(out, BODY, len > 0 && p[0] == 't');
            case ProtoValues.BYTES -> {
                int n = values.base64(p, 0, len);
                out.begin(BODY);
                if (n >= 0) {
                    out.bytesField(ProtoValues.BYTES, values.scratch(), 0, n);
                } else {
                    out.stringField(ProtoValues.STRING, p, 0, len); // not base64 after all: keep the text
                }
                out.end();
            }
            default -> { // array, kvlist or a type this encoder does not know: the payload is JSON
                byte kind = len > 0 && p[0] == '[' ? JsonFields.ARRAY : JsonFields.OBJECT;
                values.jsonValue(out, BODY, p, 0, len, kind, false, 0);
            }
        }
    }

    /** The AnyValue field {@code otlp.body_type} (field {@code t}) names ({@link Keys#BODY_TYPES}), -1 if none. */
    private static int bodyType(Metadata md, int t) {
        int off = md.valueOffset(t);
        for (int k = 0; k < Keys.BODY_TYPES.length; k++) {
            if (Values.equals(md.arena(), off, md.valueLength(t), Keys.BODY_TYPES[k])) {
                return k;
            }
        }
        return -1;
    }

    /** A record of another input: string body, every field an attribute, tag, time. */
    private void otherRecord(Message m) {
        if (m.timestamp() != 0) {
            out.fixed64Field(TIME, m.timestamp());
            out.fixed64Field(OBSERVED_TIME, m.timestamp());
        }
        Values.stringValue(out, BODY, m.payload(), 0, m.length());
        if (m.hasMetadata()) {
            Metadata md = m.metadata();
            for (int i = 0; i < md.size(); i++) {
                values.keyValue(out, ATTRIBUTES, md.arena(), md.keyOffset(i), md.keyLength(i), md, i);
            }
        }
        if (m.tag() != null) {
            tagAttribute(m.tag());
        }
    }

    /** The Forward tag as the attribute {@code fluent.tag}; encoded without a String's byte array. */
    private void tagAttribute(String tag) {
        int n = 0;
        if (tagBytes.length < tag.length() * 4) {
            tagBytes = new byte[tag.length() * 4];
        }
        for (int i = 0; i < tag.length(); ) {
            int c = tag.codePointAt(i);
            i += Character.charCount(c);
            if (c < 0x80) {
                tagBytes[n++] = (byte) c;
            } else if (c < 0x800) {
                tagBytes[n++] = (byte) (0xC0 | c >> 6);
                tagBytes[n++] = (byte) (0x80 | c & 0x3F);
            } else if (c < 0x10000) {
                tagBytes[n++] = (byte) (0xE0 | c >> 12);
                tagBytes[n++] = (byte) (0x80 | c >> 6 & 0x3F);
                tagBytes[n++] = (byte) (0x80 | c & 0x3F);
            } else {
                tagBytes[n++] = (byte) (0xF0 | c >> 18);
                tagBytes[n++] = (byte) (0x80 | c >> 12 & 0x3F);
                tagBytes[n++] = (byte) (0x80 | c >> 6 & 0x3F);
                tagBytes[n++] = (byte) (0x80 | c & 0x3F);
            }
        }
        out.begin(ATTRIBUTES);
        out.bytesField(1, FLUENT_TAG, 0, FLUENT_TAG.length);
        Values.stringValue(out, 2, tagBytes, 0, n);
        out.end();
    }

    private void hexBytes(Metadata md, int i, int field) {
        if (i < 0) {
            return;
        }
        int n = values.hex(md.arena(), md.valueOffset(i), md.valueLength(i));
        if (n > 0) {
            out.bytesField(field, values.scratch(), 0, n);
        }
    }
}
