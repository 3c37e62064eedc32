package io.sluice.forward.producer;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.forward.codec.MsgPackWriter;
import io.sluice.forward.codec.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Turns a message into a Forward record (a msgpack map) in a reused writer. Metadata fields keep their kinds:
 * strings become str, numbers int or float, booleans and null themselves, and nested JSON (as {@code consumer.Forward}
 * stores maps and arrays) is converted back to msgpack maps and arrays, so a record relayed through Sluice arrives
 * as it left. Not thread-safe: one per producer worker.
 */
final class RecordEncoder {
    /** Where the record comes from. */
    enum Source {
        /** Metadata fields when the message has any, else the payload as a string under the payload key. */
        AUTO,
        /** Metadata fields only. */
        METADATA,
        /** The payload as a string under the payload key. */
        PAYLOAD,
        /** The payload is already a msgpack map (consumer.Forward with Payload: msgpack): sent as it is. */
        MSGPACK
    }

    private final Source source;
    private final byte[] payloadKey;
    private final MsgPackWriter out = new MsgPackWriter(1024);
    private byte[] json;
    private int at;
    private int end;
    private byte[] text = new byte[256];

    RecordEncoder(Source source, String payloadKey) {
        this.source = source;
        this.payloadKey = payloadKey.getBytes(StandardCharsets.UTF_8);
    }

    /** The record's bytes are {@code writer().array()[0, writer().size())} after {@link #encode}. */
    MsgPackWriter writer() {
        return out;
    }

    /**
     * Encodes the record of {@code m} into {@link #writer()}; returns false when the message cannot be a record
     * (Source MSGPACK with a payload that is not a msgpack map).
     */
    boolean encode(Message m) {
        out.clear();
        switch (source) {
            case MSGPACK -> {
                int len = m.length();
                if (len == 0 || ValueType.of(m.payload()[0] & 0xff) != ValueType.MAP) {
                    return false;
                }
                out.writeRaw(m.payload(), 0, len);
            }
            case PAYLOAD -> payloadOnly(m);
            case METADATA -> metadata(m);
            case AUTO -> {
                if (m.hasMetadata()) {
                    metadata(m);
                } else {
                    payloadOnly(m);
                }
            }
        }
        return true;
    }

    private void payloadOnly(Message m) {
        out.writeMapHeader(1);
        out.writeStringHeader(payloadKey.length);
        out.writeRaw(payloadKey, 0, payloadKey.length);
        int len = m.length();
        // A trailing newline is a line terminator of the input, not part of the event.
        if (len > 0 && m.payload()[len - 1] == '\n') {
            len--;
        }
        out.writeStringHeader(len);
        out.writeRaw(m.payload(), 0, len);
    }

    private void metadata(Message m) {
        Metadata md = m.metadata();
        int n = md.size();
        out.writeMapHeader(n);
        for (int i = 0; i < n; i++) {
            byte[] arena = md.arena();
            out.writeStringHeader(md.keyLength(i));
            out.writeRaw(arena, md.keyOffset(i), md.keyLength(i));
            int vo = md.valueOffset(i); // unescapes in place first if needed
            int vl = md.valueLength(i);
            arena = md.arena();
            switch (md.kind(i)) {
                case Metadata.STRING -> {
                    out.writeStringHeader(vl);
                    out.writeRaw(arena, vo, vl);
                }
                case Metadata.NUMBER -> number(arena, vo, vl);
                case Metadata.BOOLEAN -> out.writeBoolean(vl == 4 && arena[vo] == 't');
                case Metadata.NULL -> out.writeNil();
                default -> json(arena, vo, vl);
            }
        }
    }

    /** A JSON number: an integer when it is one and fits, else a double; unparseable text stays a string. */
    private void number(byte[] b, int off, int len) {
        long v = 0;
        int i = off;
        int e = off + len;
        boolean neg = i < e && b[i] == '-';
        if (neg) {
            i++;
        }
        boolean integral = i < e && e - i <= 18;
        for (int k = i; k < e && integral; k++) {
            int c = b[k] - '0';
            if (c < 0 || c > 9) {
                integral = false;
            } else {
                v = v * 10 + c;
            }
        }
        if (integral) {
            out.writeLong(neg ? -v : v);
            return;
        }
        String s = new String(b, off, len, StandardCharsets.US_ASCII);
        try {
            out.writeDouble(Double.parseDouble(s));
        } catch (NumberFormatException ex) {
            out.writeStringHeader(len);
            out.writeRaw(b, off, len);
        }
    }

    // ---- JSON text to msgpack (nested values) ----

    private void json(byte[] b, int off, int len) {
        json = b;
        at = off;
        end = off + len;
        int mark = out.size();
        try {
            value();
        } catch (RuntimeException ex) {
            // Not valid JSON after all: keep the text as a string rather than lose it.
            out.truncate(mark);
            out.writeStringHeader(len);
            out.writeRaw(b, off, len);
        }
    }

    private void value() {
        ws();
        byte c = json[at];
        switch (c) {
            case '{' -> container(true);
            case '[' -> container(false);
            case '"' -> string();
            case 't' -> {
                literal("true");
                out.writeBoolean(true);
            }
            case 'f' -> {
                literal("false");
                out.writeBoolean(false);
            }
            case 'n' -> {
                literal("null");
                out.writeNil();
            }
            default -> {
                int s = at;
                while (at < end && "+-0123456789.eE".indexOf(json[at]) >= 0) {
                    at++;
                }
                if (s == at) {
                    throw new IllegalArgumentException("unexpected '" + (char) c + "'");
                }
                number(json, s, at - s);
            }
        }
    }

    /**
     * An object (map 32, as many entries as members) or an array (array 32). Containers are written with a 32-bit
     * header, patched once the element count is known.
     */
    private void container(boolean object) {
        byte close = object ? (byte) '}' : (byte) ']';
        at++;
        int header = out.skip(5);
        int n = 0;
        ws();
        if (json[at] == close) {
            at++;
        } else {
            while (true) {
                if (object) {
                    ws();
                    string();
                    ws();
                    expect(':');
                }
                value();
                n++;
                ws();
                if (json[at] == ',') {
                    at++;
                } else {
                    expect((char) close);
                    break;
                }
            }
        }
        patch(header, object ? 0xdf : 0xdd, n);
    }

    private void patch(int header, int format, int n) {
        out.putByte(header, format);
        out.putByte(header + 1, n >>> 24);
        out.putByte(header + 2, n >>> 16);
        out.putByte(header + 3, n >>> 8);
        out.putByte(header + 4, n);
    }

    private void string() {
        expect('"');
        int n = 0;
        while (json[at] != '"') {
            byte c = json[at++];
            if (n + 4 > text.length) {
                text = Arrays.copyOf(text, text.length * 2);
            }
            if (c != '\\') {
                text[n++] = c;
                continue;
            }
            byte e = json[at++];
            switch (e) {
                case 'n' -> text[n++] = '\n';
                case 't' -> text[n++] = '\t';
                case 'r' -> text[n++] = '\r';
                case 'b' -> text[n++] = '\b';
                case 'f' -> text[n++] = '\f';
                case 'u' -> {
                    int cp = Integer.parseInt(new String(json, at, 4, StandardCharsets.US_ASCII), 16);
                    at += 4;
                    if (Character.isHighSurrogate((char) cp) && json[at] == '\\' && json[at + 1] == 'u') {
                        int lo = Integer.parseInt(new String(json, at + 2, 4, StandardCharsets.US_ASCII), 16);
                        at += 6;
                        cp = Character.toCodePoint((char) cp, (char) lo);
                    }
                    byte[] utf8 = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
                    System.arraycopy(utf8, 0, text, n, utf8.length);
                    n += utf8.length;
                }
                default -> text[n++] = e; // \" \\ \/
            }
        }
        at++;
        out.writeStringHeader(n);
        out.writeRaw(text, 0, n);
    }

    private void literal(String word) {
        for (int i = 0; i < word.length(); i++) {
            if (json[at++] != word.charAt(i)) {
                throw new IllegalArgumentException("expected " + word);
            }
        }
    }

    private void expect(char c) {
        if (json[at] != c) {
            throw new IllegalArgumentException("expected '" + c + "'");
        }
        at++;
    }

    private void ws() {
        while (at < end && (json[at] == ' ' || json[at] == '\n' || json[at] == '\r' || json[at] == '\t')) {
            at++;
        }
        if (at >= end) {
            throw new IllegalArgumentException("unexpected end of JSON");
        }
    }
}
