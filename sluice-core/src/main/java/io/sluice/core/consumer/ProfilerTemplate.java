package io.sluice.core.consumer;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Expands Gollum's profiler format: every {@code %[width][.precision]verb} becomes random data whose size the
 * width gives ({@code %256s}: 256 random characters; {@code %2d}: a number below 100, padded to width 2).
 */
final class ProfilerTemplate {
    private final String format;
    private final String chars;

    ProfilerTemplate(String format, String chars) {
        this.format = format;
        this.chars = chars;
    }

    byte[] generate() {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        StringBuilder out = new StringBuilder();
        int i = 0;
        int n = format.length();
        while (i < n) {
            char c = format.charAt(i++);
            if (c != '%' || i >= n) {
                out.append(c);
                continue;
            }
            int width = 0;
            while (i < n && Character.isDigit(format.charAt(i))) {
                width = width * 10 + (format.charAt(i++) - '0');
            }
            int precision = -1;
            if (i < n && format.charAt(i) == '.') {
                i++;
                precision = 0;
                while (i < n && Character.isDigit(format.charAt(i))) {
                    precision = precision * 10 + (format.charAt(i++) - '0');
                }
            }
            char verb = i < n ? format.charAt(i++) : 's';
            appendValue(out, verb, width, precision, rnd);
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private void appendValue(StringBuilder out, char verb, int width, int precision, ThreadLocalRandom rnd) {
        int size = Math.max(1, width);
        if (verb == '%') {
            out.append('%');
            return;
        }
        String value = switch (verb) {
            case 'd', 'b', 'o', 'x', 'X' -> Long.toString(rnd.nextLong((long) Math.pow(10, Math.min(size, 18))));
            case 'e', 'E', 'f', 'F', 'g', 'G' ->
                    String.format(Locale.ROOT, "%." + (precision < 0 ? 6 : precision) + "f",
                            rnd.nextDouble() * Math.pow(10, size));
            default -> {
                StringBuilder s = new StringBuilder(size);
                for (int k = 0; k < size; k++) {
                    s.append(chars.charAt(rnd.nextInt(chars.length())));
                }
                yield s.toString();
            }
        };
        out.append(" ".repeat(Math.max(0, width - value.length()))).append(value);
    }
}
