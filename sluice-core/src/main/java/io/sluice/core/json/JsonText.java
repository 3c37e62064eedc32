package io.sluice.core.json;

/**
 * The unescaped contents of string values, in a buffer reused from one to the next: the input itself when the
 * string has no escapes (the common case, no copy), else this buffer. One per string a caller needs at once (a
 * key and its value: two), one instance per thread.
 */
public final class JsonText {
    private byte[] buffer = new byte[64];
    private int offset;
    private int length;

    /**
     * The contents of the string value {@code scanner} recorded last (from {@code b}), unescaped: {@code b} itself
     * when it has no escapes, else this buffer, valid until the next call; from {@link #offset()}, {@link #length()}
     * bytes. A lone surrogate escape such as {@code \ud800} becomes U+FFFD, as Go's encoding/json decodes it, so
     * that the text is valid UTF-8 wherever the input is.
     */
    public byte[] of(JsonScanner scanner, byte[] b) {
        int start = scanner.valueStart();
        int len = scanner.valueEnd() - start;
        if (!scanner.valueEscaped()) {
            offset = start;
            length = len;
            return b;
        }
        if (buffer.length < len) {
            buffer = new byte[Math.max(len, buffer.length * 2)]; // unescaping never lengthens
        }
        offset = 0;
        length = JsonStrings.unescape(b, start, len, buffer, 0, true);
        return buffer;
    }

    /** Where the last {@link #of} starts in the array it returned. */
    public int offset() {
        return offset;
    }

    /** The length of the last {@link #of}. */
    public int length() {
        return length;
    }
}
