package io.sluice.otlp.codec;

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
    private static final byte[][] OWN_KEYS = {Keys.b(OtlpFields.SEVERITY_NUMBER),
        Keys.b(OtlpFields.SEVERITY_TEXT), Keys.b(OtlpFields.TRACE_ID),
        Keys.b(OtlpFields.SPAN_ID), Keys.b(OtlpFields.FLAGS), Keys.b(OtlpFields.EVENT_NAME),
        Keys.b(OtlpFields.OBSERVED_TIME), Keys.b(OtlpFields.DROPPED_ATTRIBUTES),
        Keys.b(OtlpFields.BODY_TYPE)};
    private static final byte[] FLUENT_TAG = Keys.b("fluent.tag");
    private static final byte[] T_EMPTY = Keys.b("empty");
    private static final byte[] T_STRING = Keys.b("string");
    private static final byte[] T_INT = Keys.b("int");
    private static final byte[] T_DOUBLE = Keys.b("double");
    private static final byte[] T_BOOL = Keys.b("bool");
    private static final byte[] T_BYTES = Keys.b("bytes");

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
        long severity = MessageKeys.number(md, own[O_SEVERITY_NUMBER], 0);
        if (severity != 0) {
            out.varintField(SEVERITY_NUMBER, severity);
        }
        string(md, own[O_SEVERITY_TEXT], SEVERITY_TEXT);
        body(m, md, own[O_BODY_TYPE]);
        long dropped = MessageKeys.number(md, own[O_DROPPED], 0);
        if (dropped != 0) {
            out.varintField(DROPPED, dropped);
        }
        long flags = MessageKeys.number(md, own[O_FLAGS], 0);
        if (flags != 0) {
            out.fixed32Field(FLAGS, (int) flags);
        }
        hexBytes(md, own[O_TRACE_ID], TRACE_ID);
        hexBytes(md, own[O_SPAN_ID], SPAN_ID);
        string(md, own[O_EVENT_NAME], EVENT_NAME);
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
        byte[] a = md.arena();
        int off = t < 0 ? 0 : md.valueOffset(t);
        int tl = t < 0 ? 0 : md.valueLength(t);
        if (t < 0 || Values.equals(a, off, tl, T_STRING)) {
            Values.stringValue(out, BODY, p, 0, len);
            return;
        }
        if (Values.equals(a, off, tl, T_EMPTY)) {
            return;
        }
        if (Values.equals(a, off, tl, T_INT) || Values.equals(a, off, tl, T_DOUBLE)) {
            bodyNumber(p, len, Values.equals(a, off, tl, T_DOUBLE));
        } else if (Values.equals(a, off, tl, T_BOOL)) {
            Values.boolValue(out, BODY, len > 0 && p[0] == 't');
        } else if (Values.equals(a, off, tl, T_BYTES)) {
            int n = values.base64(p, 0, len);
            out.begin(BODY);
            if (n >= 0) {
                out.bytesField(ProtoValues.BYTES, values.scratch(), 0, n);
            } else {
                out.stringField(ProtoValues.STRING, p, 0, len); // not base64 after all: keep the text
            }
            out.end();
        } else {
            byte kind = len > 0 && p[0] == '[' ? io.sluice.core.json.JsonFields.ARRAY : io.sluice.core.json.JsonFields.OBJECT;
            values.jsonValue(out, BODY, p, 0, len, kind, false, 0); // array or kvlist
        }
    }

    private void bodyNumber(byte[] p, int len, boolean isDouble) {
        if (isDouble) {
            out.begin(BODY);
            out.doubleField(ProtoValues.DOUBLE, Text.parseDouble(p, 0, len));
            out.end();
        } else {
            Values.numberValue(out, BODY, p, 0, len);
        }
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

    private void string(Metadata md, int i, int field) {
        if (i >= 0 && md.valueLength(i) > 0) {
            out.stringField(field, md.arena(), md.valueOffset(i), md.valueLength(i));
        }
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
