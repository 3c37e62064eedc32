package io.sluice.forward.consumer;

import io.sluice.core.message.Metadata;

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
        at++;
        if (b >= 0xa0 && b <= 0xbf) {
            return b & 0x1f;
        }
        return switch (b) {
            case 0xd9, 0xc4 -> u8();
            case 0xda, 0xc5 -> u16();
            default -> int32();
        };
    }

    int mapHeader() {
        int b = buf[at++] & 0xff;
        if ((b & 0xf0) == 0x80) {
            return b & 0x0f;
        }
        return b == 0xde ? u16() : int32();
    }

    /**
     * Skips one value (trusting lengths: the decoder validated the record). Lengths are read into a local before
     * {@code at} moves: {@code at += u8()} would add to the value of {@code at} from before u8 advanced it.
     */
    void skip() {
        int pending = 1;
        while (pending-- > 0) {
            int b = buf[at] & 0xff;
            if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) {
                at++;
            } else if (b <= 0x8f) {
                at++;
                pending += 2 * (b & 0x0f);
            } else if (b <= 0x9f) {
                at++;
                pending += b & 0x0f;
            } else if (isStr(b) || isBin(b)) {
                int len = strLength(b);
                at += len;
            } else {
                at++;
                int n;
                switch (b) {
                    case 0xca -> at += 4;
                    case 0xcb -> at += 8;
                    case 0xcc, 0xd0 -> at += 1;
                    case 0xcd, 0xd1 -> at += 2;
                    case 0xce, 0xd2 -> at += 4;
                    case 0xcf, 0xd3 -> at += 8;
                    case 0xd4 -> at += 2;
                    case 0xd5 -> at += 3;
                    case 0xd6 -> at += 5;
                    case 0xd7 -> at += 9;
                    case 0xd8 -> at += 17;
                    case 0xc7 -> {
                        n = u8();
                        at += n + 1;
                    }
                    case 0xc8 -> {
                        n = u16();
                        at += n + 1;
                    }
                    case 0xc9 -> {
                        n = int32();
                        at += n + 1;
                    }
                    case 0xdc -> pending += u16();
                    case 0xdd -> pending += int32();
                    case 0xde -> pending += 2 * u16();
                    case 0xdf -> pending += 2 * int32();
                    default -> {
                        // 0xc1 never gets here: the decoder refused it.
                    }
                }
            }
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
