package io.sluice.forward.consumer;

import io.sluice.core.message.Metadata;
import io.sluice.forward.codec.ValueType;

/**
 * A cursor over msgpack bytes: {@link #buf} at {@link #at}, and the reads of one value's header, number or length.
 * The decoder has already checked that the record is one well-formed map inside its frame, so the cursor trusts
 * lengths. The fields are plain so that the per-field loops of {@link RecordMapper} read them directly.
 */
class MsgPackCursor {
    /** The msgpack being read. */
    byte[] buf;
    /** Where the next msgpack value starts in {@link #buf}. */
    int at;

    /** The metadata kind of a value that is not a string, from its first byte. */
    static byte kindOf(int b) {
        if (b == 0xc0) {
            return Metadata.NULL;
        }
        if (b == 0xc2 || b == 0xc3) {
            return Metadata.BOOLEAN;
        }
        return isInt(b) || b == 0xca || b == 0xcb || isExt(b) ? Metadata.NUMBER : Metadata.JSON;
    }

    static boolean isStr(int b) {
        return (b >= 0xa0 && b <= 0xbf) || b == 0xd9 || b == 0xda || b == 0xdb;
    }

    static boolean isBin(int b) {
        return b == 0xc4 || b == 0xc5 || b == 0xc6;
    }

    static boolean isInt(int b) {
        return b <= 0x7f || b >= 0xe0 || (b >= 0xcc && b <= 0xd3);
    }

    static boolean isExt(int b) {
        return b == 0xc7 || b == 0xc8 || b == 0xc9 || (b >= 0xd4 && b <= 0xd8);
    }

    /** Consumes a str/bin header and returns the byte length; {@code at} is then on the first byte. */
    int strLength(int b) {
        int len = (int) ValueType.payloadLength(buf, at, b);
        at += ValueType.headerSize(b);
        return len;
    }

    int mapHeader() {
        int b = buf[at++] & 0xff;
        if ((b & 0xf0) == 0x80) {
            return b & 0x0f;
        }
        return b == 0xde ? u16() : int32();
    }

    /** Skips one value (trusting lengths: the decoder validated the record). */
    void skip() {
        long pending = 1;
        while (pending-- > 0) {
            int b = buf[at] & 0xff;
            pending += ValueType.childCount(buf, at, b);
            at += ValueType.headerSize(b) + (int) ValueType.payloadLength(buf, at, b);
        }
    }

    int u8() {
        return buf[at++] & 0xff;
    }

    int u16() {
        int v = ((buf[at] & 0xff) << 8) | (buf[at + 1] & 0xff);
        at += 2;
        return v;
    }

    int int32() {
        int v = ((buf[at] & 0xff) << 24) | ((buf[at + 1] & 0xff) << 16) | ((buf[at + 2] & 0xff) << 8) | (buf[at + 3] & 0xff);
        at += 4;
        return v;
    }

    long int64() {
        long hi = int32() & 0xffffffffL;
        long lo = int32() & 0xffffffffL;
        return (hi << 32) | lo;
    }
}
