package io.sluice.core.json;

/**
 * The JSON number grammar (RFC 8259: an optional minus, no leading zeros, an optional fraction and exponent) for
 * {@link JsonScanner}, apart from it to keep the scanner's states in one screenful. Static, allocation-free.
 */
final class JsonNumbers {
    private JsonNumbers() {
    }

    /**
     * Where the number starting at {@code b[p]} (a minus or a digit expected) ends, at the first byte that cannot
     * continue it; or, when it is malformed, {@code -1 - at} with {@code at} the offending position.
     */
    static int end(byte[] b, int p, int end) {
        if (p < end && b[p] == '-') {
            p++;
        }
        if (p >= end || !digit(b[p])) {
            return -1 - p;
        }
        p = b[p] == '0' ? p + 1 : digits(b, p, end);
        if (p < end && b[p] == '.') {
            if (++p >= end || !digit(b[p])) {
                return -1 - p;
            }
            p = digits(b, p, end);
        }
        if (p < end && (b[p] == 'e' || b[p] == 'E')) {
            if (++p < end && (b[p] == '+' || b[p] == '-')) {
                p++;
            }
            if (p >= end || !digit(b[p])) {
                return -1 - p;
            }
            p = digits(b, p, end);
        }
        return p;
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static int digits(byte[] b, int p, int end) {
        while (p < end && digit(b[p])) {
            p++;
        }
        return p;
    }
}
