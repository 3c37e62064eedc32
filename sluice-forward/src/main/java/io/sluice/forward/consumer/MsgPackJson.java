package io.sluice.forward.consumer;

import io.sluice.core.json.Decimal;
import io.sluice.core.json.JsonStrings;
import io.sluice.core.json.Utf8;
import io.sluice.forward.OverBudgetException;
import io.sluice.forward.codec.BufferAllowance;
import io.sluice.forward.codec.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes the msgpack value at the cursor as JSON text ({@link #out} up to {@link #pos}): the transcoding that
 * {@link RecordMapper} and {@link RecordSpans} share, apart from what they do with the text. The output is a plain
 * field, as the cursor is, so that the mapper's per-field loops read it directly.
 *
 * <p>Every string written is checked for UTF-8 in the pass that copies or escapes it: an invalid sequence
 * becomes U+FFFD (its maximal valid prefix is replaced) and {@link #invalidUtf8} counts it. EventTime becomes
 * seconds with a fraction; NaN, infinities and other extensions become null. The output grows only as far as
 * {@link #allowance} allows. Not thread-safe: one per connection.
 */
final class MsgPackJson extends MsgPackCursor {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    static final byte[] NULL = {'n', 'u', 'l', 'l'};
    static final int OUT_INITIAL = 512;
    static final int MAX_ARRAY = Integer.MAX_VALUE - 8;
    /** Slack {@link JsonStrings#copyPlain} needs past the bytes it copies. */
    private static final int WORD = 8;

    /** The JSON written. */
    byte[] out = new byte[OUT_INITIAL];
    /** The end of the JSON written in {@link #out}. */
    int pos;
    /** Asked before {@link #out} (and the mapper's other scratch buffers) grow. */
    BufferAllowance allowance = BufferAllowance.UNLIMITED;
    /** Invalid UTF-8 sequences replaced with U+FFFD so far. */
    long invalidUtf8;
    /** Non-string map keys being written around the current position (see {@link #writeKey}). */
    private int keyNesting;

    /** Lets go of an output buffer that grew past {@code keep} bytes for one large record. */
    void trim(int keep) {
        if (out.length > keep) {
            allowance.shrink(out.length - OUT_INITIAL);
            out = new byte[OUT_INITIAL];
        }
    }

    /** Writes the value at the cursor as JSON and moves the cursor past it. */
    void writeJson() {
        int b = buf[at] & 0xff;
        if (b <= 0x7f) {
            at++;
            writeLong(b);
        } else if (b >= 0xe0) {
            at++;
            writeLong((byte) b);
        } else if (b <= 0x8f) {
            at++;
            writeMap(b & 0x0f);
        } else if (b <= 0x9f) {
            at++;
            writeArray(b & 0x0f);
        } else if (b <= 0xbf || isStr(b) || isBin(b)) {
            writeStr(strLength(b));
        } else if (isExt(b)) {
            writeExt(b);
        } else {
            at++;
            switch (b) {
                case 0xc0 -> raw(NULL);
                case 0xc2 -> raw(FALSE);
                case 0xc3 -> raw(TRUE);
                case 0xca -> writeDouble(Float.intBitsToFloat(int32()));
                case 0xcb -> writeDouble(Double.longBitsToDouble(int64()));
                case 0xcc -> writeLong(u8());
                case 0xcd -> writeLong(u16());
                case 0xce -> writeLong(int32() & 0xffffffffL);
                case 0xcf -> {
                    long v = int64();
                    if (v >= 0) {
                        writeLong(v);
                    } else {
                        ascii(Long.toUnsignedString(v));
                    }
                }
                case 0xd0 -> writeLong((byte) u8());
                case 0xd1 -> writeLong((short) u16());
                case 0xd2 -> writeLong(int32());
                case 0xd3 -> writeLong(int64());
                case 0xdc -> writeArray(u16());
                case 0xdd -> writeArray(int32());
                case 0xde -> writeMap(u16());
                default -> writeMap(int32()); // 0xdf (0xc1 never gets here: the decoder refused it)
            }
        }
    }

    private void writeMap(int n) {
        put((byte) '{');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                put((byte) ',');
            }
            writeKey();
            put((byte) ':');
            writeJson();
        }
        put((byte) '}');
    }

    /** Writes a map key: a string as it is; any other value's JSON text as a string (JSON keys are strings). */
    void writeKey() {
        int b = buf[at] & 0xff;
        if (isStr(b) || isBin(b)) {
            writeStr(strLength(b));
            return;
        }
        int start = pos;
        keyNesting++;
        writeJson();
        keyNesting--;
        int len = pos - start;
        byte[] text = Arrays.copyOfRange(out, start, start + len);
        pos = start;
        put((byte) '"');
        if (keyNesting == 0) {
            escape(text, 0, len);
        } else {
            // Inside another non-string key, whose whole text is escaped once when it is written: escaping here
            // too would double every backslash at each level, JSON exponential in the nesting (a 100-byte record,
            // gigabytes of output and minutes of CPU).
            ensure(len);
            System.arraycopy(text, 0, out, pos, len);
            pos += len;
        }
        put((byte) '"');
    }

    private void writeArray(int n) {
        put((byte) '[');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                put((byte) ',');
            }
            writeJson();
        }
        put((byte) ']');
    }

    /** Writes the string whose bytes start at {@code at} (header already consumed by strLength). */
    private void writeStr(int len) {
        put((byte) '"');
        escape(buf, at, len);
        at += len;
        put((byte) '"');
    }

    /**
     * Writes {@code src[off, off+len)} as JSON string contents: quotes, backslashes and control characters escaped,
     * UTF-8 checked in the same pass (an ASCII byte costs the compares it always did).
     */
    void escape(byte[] src, int off, int len) {
        // Room for the rest of the input plus a word at every step: copyPlain stores whole words.
        ensure(len + WORD);
        int end = off + len;
        int i = off;
        while (i < end) {
            // Most text needs no escaping: copy the plain run eight bytes at a time.
            int plain = JsonStrings.copyPlain(src, i, end, out, pos);
            pos += plain - i;
            i = plain;
            if (i == end) {
                return;
            }
            byte c = src[i];
            if (c < 0) {
                i = copyUtf8(src, i, end);
            } else if (c == '"' || c == '\\') {
                ensure(2 + end - i + WORD);
                out[pos++] = '\\';
                out[pos++] = c;
                i++;
            } else {
                ensure(6 + end - i + WORD);
                switch (c) {
                    case '\n' -> {
                        out[pos++] = '\\';
                        out[pos++] = 'n';
                    }
                    case '\r' -> {
                        out[pos++] = '\\';
                        out[pos++] = 'r';
                    }
                    case '\t' -> {
                        out[pos++] = '\\';
                        out[pos++] = 't';
                    }
                    default -> {
                        out[pos++] = '\\';
                        out[pos++] = 'u';
                        out[pos++] = '0';
                        out[pos++] = '0';
                        out[pos++] = HEX[c >> 4];
                        out[pos++] = HEX[c & 0xf];
                    }
                }
                i++;
            }
        }
    }

    /** Writes {@code src[off, off+len)} with invalid UTF-8 replaced, nothing escaped (a metadata value). */
    void writeUtf8(byte[] src, int off, int len) {
        ensure(len);
        int end = off + len;
        int i = off;
        while (i < end) {
            if (src[i] >= 0) {
                out[pos++] = src[i++];
            } else {
                i = copyUtf8(src, i, end);
            }
        }
    }

    /** A copy of {@code src[off, off+len)} with invalid UTF-8 replaced (a key; only when it was invalid). */
    byte[] validCopy(byte[] src, int off, int len) {
        int save = pos;
        pos = 0;
        writeUtf8(src, off, len);
        byte[] copy = Arrays.copyOf(out, pos);
        pos = save;
        return copy;
    }

    /**
     * Copies the UTF-8 sequence that starts with the non-ASCII byte {@code src[i]}, or writes U+FFFD for it when
     * it is invalid; returns where the next character starts. Room for the bytes copied was ensured by the caller.
     */
    private int copyUtf8(byte[] src, int i, int end) {
        int n = Utf8.sequence(src, i, end);
        if (n > 0) {
            for (int k = 0; k < n; k++) {
                out[pos++] = src[i + k];
            }
            return i + n;
        }
        invalidUtf8++;
        ensure(Utf8.REPLACEMENT.length + end - i + WORD);
        out[pos++] = Utf8.REPLACEMENT[0];
        out[pos++] = Utf8.REPLACEMENT[1];
        out[pos++] = Utf8.REPLACEMENT[2];
        return i - n;
    }

    /** EventTime becomes seconds with a fraction; other extensions have no JSON form and become null. */
    private void writeExt(int b) {
        int len = (int) ValueType.payloadLength(buf, at, b);
        at += ValueType.headerSize(b) - 1; // on the type byte
        int type = buf[at++];
        if (type == 0 && len == 8) {
            long sec = int32() & 0xffffffffL;
            long ns = int32() & 0xffffffffL;
            writeLong(sec);
            put((byte) '.');
            String frac = Long.toString(1_000_000_000L + ns);
            ascii(frac.substring(1));
        } else {
            at += len;
            raw(NULL);
        }
    }

    private void writeLong(long v) {
        ensure(Decimal.MAX_LONG);
        pos = Decimal.putLong(out, pos, v);
    }

    private void writeDouble(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            raw(NULL);
            return;
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            writeLong((long) d);
            put((byte) '.');
            put((byte) '0');
            return;
        }
        ascii(Double.toString(d));
    }

    // ---- output ----

    private void ensure(int n) {
        if (pos + n > out.length) {
            grow(n);
        }
    }

    /** Grows the output buffer, asking the allowance first: a record whose JSON would not fit is refused. */
    private void grow(int n) {
        long need = (long) pos + n;
        if (need > MAX_ARRAY) {
            throw new OverBudgetException("a record whose JSON needs more than " + MAX_ARRAY + " bytes");
        }
        int cap = (int) Math.min(MAX_ARRAY, Math.max(need, out.length * 2L));
        allowance.grow(cap - out.length);
        out = Arrays.copyOf(out, cap);
    }

    void put(byte b) {
        ensure(1);
        out[pos++] = b;
    }

    private void raw(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, out, pos, b.length);
        pos += b.length;
    }

    private void ascii(String s) {
        ensure(s.length());
        for (int i = 0; i < s.length(); i++) {
            out[pos++] = (byte) s.charAt(i);
        }
    }
}
