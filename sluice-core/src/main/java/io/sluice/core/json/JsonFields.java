package io.sluice.core.json;

import java.util.Arrays;

/**
 * The members of one scanned JSON object (or the elements of an array) as byte ranges into the scanned
 * buffer: no String and no object per member. Reused from message to message; it grows once to the widest
 * object seen.
 *
 * <p>String keys and values are given as their raw contents between the quotes; {@link #keyEscaped} and
 * {@link #valueEscaped} say whether those contain escapes (see {@link JsonStrings#unescape}). Objects and
 * arrays are given as their whole raw text.
 */
public final class JsonFields {
    /** A string value. */
    public static final byte STRING = 0;
    /** A number, as its JSON text. */
    public static final byte NUMBER = 1;
    /** true or false. */
    public static final byte BOOLEAN = 2;
    /** null. */
    public static final byte NULL = 3;
    /** An object, as raw text. */
    public static final byte OBJECT = 4;
    /** An array, as raw text. */
    public static final byte ARRAY = 5;

    /** Ints per member in {@link #members}. */
    private static final int STRIDE = 5;
    private static final int KEY_ESCAPED = 0x100;
    private static final int VALUE_ESCAPED = 0x200;

    private int size;
    /**
     * Per member, side by side: key offset, key length, value offset, value length, and kind | flags. One
     * array rather than one per column: a message keeps its payload's index (see {@code Message.jsonIndex}),
     * and a member's five ints then share a cache line instead of touching seven arrays.
     */
    private int[] members = new int[16 * STRIDE];

    /** Number of members. */
    public int size() {
        return size;
    }

    /** Removes every member (for code that records members itself, as a JSON writer does). */
    public void clear() {
        size = 0;
    }

    /**
     * Records a member: key and value ranges, whether each holds escapes, and the value's kind. Ranges are as
     * {@link #keyOffset} and {@link #valueOffset} describe them.
     */
    public void add(int ko, int kl, boolean ke, int vo, int vl, byte kind, boolean ve) {
        int o = size * STRIDE;
        if (o + STRIDE > members.length) {
            members = Arrays.copyOf(members, members.length * 2);
        }
        int[] a = members;
        a[o] = ko;
        a[o + 1] = kl;
        a[o + 2] = vo;
        a[o + 3] = vl;
        a[o + 4] = kind | (ke ? KEY_ESCAPED : 0) | (ve ? VALUE_ESCAPED : 0);
        size++;
    }

    /** Offset of member {@code i}'s key (raw contents between the quotes). */
    public int keyOffset(int i) {
        return members[i * STRIDE];
    }

    /** Length of member {@code i}'s raw key. */
    public int keyLength(int i) {
        return members[i * STRIDE + 1];
    }

    /** Whether member {@code i}'s key contains escapes. */
    public boolean keyEscaped(int i) {
        return (members[i * STRIDE + 4] & KEY_ESCAPED) != 0;
    }

    /** Offset of member {@code i}'s value: string contents, or the whole raw text of other kinds. */
    public int valueOffset(int i) {
        return members[i * STRIDE + 2];
    }

    /** Length of member {@code i}'s value. */
    public int valueLength(int i) {
        return members[i * STRIDE + 3];
    }

    /** Whether member {@code i}'s string value contains escapes. */
    public boolean valueEscaped(int i) {
        return (members[i * STRIDE + 4] & VALUE_ESCAPED) != 0;
    }

    /** One of {@link #STRING}, {@link #NUMBER}, {@link #BOOLEAN}, {@link #NULL}, {@link #OBJECT}, {@link #ARRAY}. */
    public byte kind(int i) {
        return (byte) members[i * STRIDE + 4];
    }

    /** Index of the last member whose raw key equals {@code key[off, off+len)} (last wins, as Go), or -1. */
    public int lastIndexOf(byte[] buf, byte[] key, int off, int len) {
        for (int i = size - 1; i >= 0; i--) {
            int o = i * STRIDE;
            int ko = members[o];
            if (members[o + 1] == len && (members[o + 4] & KEY_ESCAPED) == 0
                    && Arrays.equals(buf, ko, ko + len, key, off, off + len)) {
                return i;
            }
        }
        return -1;
    }
}
