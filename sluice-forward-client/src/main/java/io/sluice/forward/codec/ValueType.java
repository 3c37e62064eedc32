package io.sluice.forward.codec;

/**
 * The kinds of msgpack value, and the header arithmetic shared by the reader and the
 * {@link FrameScanner}: how long a header is, how many payload bytes and child values follow it.
 */
public enum ValueType {
    /** nil */
    NIL,
    /** true or false */
    BOOLEAN,
    /** any integer format */
    INTEGER,
    /** float 32 or float 64 */
    FLOAT,
    /** str */
    STRING,
    /** bin */
    BINARY,
    /** array */
    ARRAY,
    /** map */
    MAP,
    /** ext, including fixext */
    EXTENSION,
    /** 0xc1, never used */
    INVALID;

    /**
     * @param b a format byte
     * @return its kind
     */
    public static ValueType of(int b) {
        if (b <= 0x7f || b >= 0xe0) {
            return INTEGER;
        }
        if (b <= 0x8f) {
            return MAP;
        }
        if (b <= 0x9f) {
            return ARRAY;
        }
        if (b <= 0xbf) {
            return STRING;
        }
        return switch (b) {
            case 0xc0 -> NIL;
            case 0xc2, 0xc3 -> BOOLEAN;
            case 0xc4, 0xc5, 0xc6 -> BINARY;
            case 0xc7, 0xc8, 0xc9, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8 -> EXTENSION;
            case 0xca, 0xcb -> FLOAT;
            case 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3 -> INTEGER;
            case 0xd9, 0xda, 0xdb -> STRING;
            case 0xdc, 0xdd -> ARRAY;
            case 0xde, 0xdf -> MAP;
            default -> INVALID;
        };
    }

    /**
     * @param b a format byte
     * @return a short description for error messages, e.g. {@code "map (0x83)"}
     */
    static String describe(int b) {
        return of(b).name().toLowerCase(java.util.Locale.ROOT) + " (0x" + Integer.toHexString(b) + ")";
    }

    /**
     * @param b a format byte
     * @return bytes of header, format byte included, before any payload; -1 for 0xc1
     */
    public static int headerSize(int b) {
        if (b <= 0xbf || b >= 0xe0) {
            return 1;
        }
        return switch (b) {
            case 0xc4, 0xd9 -> 2;
            case 0xc5, 0xda, 0xdc, 0xde -> 3;
            case 0xc6, 0xdb, 0xdd, 0xdf -> 5;
            case 0xc7 -> 3;
            case 0xc8 -> 4;
            case 0xc9 -> 6;
            case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8 -> 2;
            case 0xc1 -> -1;
            default -> 1;
        };
    }

    /**
     * @param buf array holding the whole header (see {@link #headerSize})
     * @param at  offset of the format byte
     * @param b   the format byte
     * @return payload bytes after the header (0 for containers, whose content is child values)
     */
    public static long payloadLength(byte[] buf, int at, int b) {
        if (b >= 0xa0 && b <= 0xbf) {
            return b & 0x1f;
        }
        return switch (b) {
            case 0xc4, 0xc7, 0xd9 -> buf[at + 1] & 0xff;
            case 0xc5, 0xc8, 0xda -> u16(buf, at + 1);
            case 0xc6, 0xc9, 0xdb -> u32(buf, at + 1);
            case 0xca, 0xce, 0xd2 -> 4;
            case 0xcb, 0xcf, 0xd3 -> 8;
            case 0xcc, 0xd0, 0xd4 -> 1;
            case 0xcd, 0xd1, 0xd5 -> 2;
            case 0xd6 -> 4;
            case 0xd7 -> 8;
            case 0xd8 -> 16;
            default -> 0;
        };
    }

    /**
     * @param buf array holding the whole header
     * @param at  offset of the format byte
     * @param b   the format byte
     * @return child values that follow: array elements, or two per map entry
     */
    public static long childCount(byte[] buf, int at, int b) {
        if (b >= 0x80 && b <= 0x8f) {
            return 2L * (b & 0x0f);
        }
        if (b >= 0x90 && b <= 0x9f) {
            return b & 0x0f;
        }
        return switch (b) {
            case 0xdc -> u16(buf, at + 1);
            case 0xdd -> u32(buf, at + 1);
            case 0xde -> 2L * u16(buf, at + 1);
            case 0xdf -> 2L * u32(buf, at + 1);
            default -> 0;
        };
    }

    private static long u16(byte[] buf, int at) {
        return ((buf[at] & 0xff) << 8) | (buf[at + 1] & 0xff);
    }

    private static long u32(byte[] buf, int at) {
        return ((long) (buf[at] & 0xff) << 24) | ((buf[at + 1] & 0xff) << 16)
                | ((buf[at + 2] & 0xff) << 8) | (buf[at + 3] & 0xff);
    }
}
