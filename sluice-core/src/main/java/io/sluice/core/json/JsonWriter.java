package io.sluice.core.json;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes JSON into one reusable byte buffer: no String, no per-call allocation once the buffer has grown to
 * the working size. Commas are placed automatically; callers only open, name, write and close.
 * One instance per thread; {@link #reset()} between documents.
 *
 * <p>The project's one JSON writer: strings are escaped by {@link JsonStrings} everywhere (hot paths, the admin
 * API, JSON log lines, the tap). The String overloads ({@link #name(String)}, {@link #string(String)},
 * {@link #toString()}) are for those cold paths; they encode and decode UTF-8, so they allocate.
 */
public final class JsonWriter {
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private byte[] buf;
    private int len;
    private long needComma; // bit d: the container at depth d already holds a member
    private int depth;

    public JsonWriter() {
        this(256);
    }

    public JsonWriter(int initialCapacity) {
        buf = new byte[initialCapacity];
    }

    /** Empties the buffer for the next document. */
    public JsonWriter reset() {
        len = 0;
        depth = 0;
        needComma = 0;
        return this;
    }

    /** The buffer; the document is {@code [0, length())}. */
    public byte[] buffer() {
        return buf;
    }

    public int length() {
        return len;
    }

    public JsonWriter beginObject() {
        return open((byte) '{');
    }

    public JsonWriter endObject() {
        return close((byte) '}');
    }

    public JsonWriter beginArray() {
        return open((byte) '[');
    }

    public JsonWriter endArray() {
        return close((byte) ']');
    }

    /** Writes a member name (escaping it) and the colon; the value follows. */
    public JsonWriter name(byte[] key, int off, int klen) {
        return string(key, off, klen).colon();
    }

    /** Writes a member name that is already escaped JSON string contents. */
    public JsonWriter rawName(byte[] key, int off, int klen) {
        return rawString(key, off, klen).colon();
    }

    /** After a member name: the colon, and the value that follows takes no comma. */
    private JsonWriter colon() {
        put((byte) ':');
        needComma &= ~bit();
        return this;
    }

    /** Writes a string value from unescaped bytes. */
    public JsonWriter string(byte[] s, int off, int slen) {
        comma();
        quoted(s, off, slen);
        return this;
    }

    /** Writes a string value whose bytes are already escaped JSON string contents (copied as they are). */
    public JsonWriter rawString(byte[] s, int off, int slen) {
        comma();
        ensure(slen + 2);
        buf[len++] = '"';
        System.arraycopy(s, off, buf, len, slen);
        len += slen;
        buf[len++] = '"';
        return this;
    }

    /** Writes a value that is already JSON text (a number, literal, object or array), as it is. */
    public JsonWriter raw(byte[] json, int off, int jlen) {
        comma();
        ensure(jlen);
        System.arraycopy(json, off, buf, len, jlen);
        len += jlen;
        return this;
    }

    /** Writes a member name given as a String (allocates: for cold paths). */
    public JsonWriter name(String key) {
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        return name(b, 0, b.length);
    }

    /** Writes a string value given as a String, or {@code null} for null (allocates: for cold paths). */
    public JsonWriter string(String s) {
        if (s == null) {
            return raw(NULL, 0, NULL.length);
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return string(b, 0, b.length);
    }

    /** Writes a number. */
    public JsonWriter number(long v) {
        comma();
        ensure(20);
        if (v < 0) {
            buf[len++] = '-';
        } else {
            v = -v; // digits from the negative side, so that Long.MIN_VALUE needs no special case
        }
        int digits = 1;
        for (long t = v / 10; t != 0; t /= 10) {
            digits++;
        }
        len += digits;
        for (int i = len - 1; i >= len - digits; i--) {
            buf[i] = (byte) ('0' - v % 10);
            v /= 10;
        }
        return this;
    }

    /** Writes {@code true} or {@code false}. */
    public JsonWriter bool(boolean v) {
        byte[] b = v ? TRUE : FALSE;
        return raw(b, 0, b.length);
    }

    /** The document written so far, as text (allocates: for cold paths). */
    @Override
    public String toString() {
        return new String(buf, 0, len, StandardCharsets.UTF_8);
    }

    private JsonWriter open(byte c) {
        comma();
        put(c);
        depth++;
        needComma &= ~bit();
        return this;
    }

    private JsonWriter close(byte c) {
        depth--;
        put(c);
        return this;
    }

    private long bit() {
        return 1L << (depth & 63);
    }

    /** Puts a comma if the current container already has a member, and marks it as having one. */
    private void comma() {
        long b = bit();
        if ((needComma & b) != 0) {
            put((byte) ',');
        }
        needComma |= b;
    }

    private void quoted(byte[] s, int off, int slen) {
        if (JsonStrings.isPlain(s, off, slen)) {
            ensure(slen + 2);
            buf[len++] = '"';
            System.arraycopy(s, off, buf, len, slen);
            len += slen;
        } else {
            ensure(JsonStrings.maxEscapedLength(slen) + 2);
            buf[len++] = '"';
            len += JsonStrings.escape(s, off, slen, buf, len);
        }
        buf[len++] = '"';
    }

    private void put(byte c) {
        ensure(1);
        buf[len++] = c;
    }

    private void ensure(int more) {
        if (len + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(len + more, buf.length * 2));
        }
    }
}
