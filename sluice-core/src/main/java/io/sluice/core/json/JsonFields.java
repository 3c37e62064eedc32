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

    private int size;
    private int[] keyOff = new int[16];
    private int[] keyLen = new int[16];
    private int[] valOff = new int[16];
    private int[] valLen = new int[16];
    private byte[] kinds = new byte[16];
    private boolean[] keyEsc = new boolean[16];
    private boolean[] valEsc = new boolean[16];

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
        if (size == keyOff.length) {
            grow();
        }
        keyOff[size] = ko;
        keyLen[size] = kl;
        keyEsc[size] = ke;
        valOff[size] = vo;
        valLen[size] = vl;
        kinds[size] = kind;
        valEsc[size] = ve;
        size++;
    }

    private void grow() {
        int cap = keyOff.length * 2;
        keyOff = Arrays.copyOf(keyOff, cap);
        keyLen = Arrays.copyOf(keyLen, cap);
        valOff = Arrays.copyOf(valOff, cap);
        valLen = Arrays.copyOf(valLen, cap);
        kinds = Arrays.copyOf(kinds, cap);
        keyEsc = Arrays.copyOf(keyEsc, cap);
        valEsc = Arrays.copyOf(valEsc, cap);
    }

    /** Offset of member {@code i}'s key (raw contents between the quotes). */
    public int keyOffset(int i) {
        return keyOff[i];
    }

    /** Length of member {@code i}'s raw key. */
    public int keyLength(int i) {
        return keyLen[i];
    }

    /** Whether member {@code i}'s key contains escapes. */
    public boolean keyEscaped(int i) {
        return keyEsc[i];
    }

    /** Offset of member {@code i}'s value: string contents, or the whole raw text of other kinds. */
    public int valueOffset(int i) {
        return valOff[i];
    }

    /** Length of member {@code i}'s value. */
    public int valueLength(int i) {
        return valLen[i];
    }

    /** Whether member {@code i}'s string value contains escapes. */
    public boolean valueEscaped(int i) {
        return valEsc[i];
    }

    /** One of {@link #STRING}, {@link #NUMBER}, {@link #BOOLEAN}, {@link #NULL}, {@link #OBJECT}, {@link #ARRAY}. */
    public byte kind(int i) {
        return kinds[i];
    }

    /** Index of the last member whose raw key equals {@code key[off, off+len)} (last wins, as Go), or -1. */
    public int lastIndexOf(byte[] buf, byte[] key, int off, int len) {
        for (int i = size - 1; i >= 0; i--) {
            if (!keyEsc[i] && keyLen[i] == len && Arrays.equals(buf, keyOff[i], keyOff[i] + len, key, off, off + len)) {
                return i;
            }
        }
        return -1;
    }
}
