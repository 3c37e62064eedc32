package io.sluice.core.pipeline;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Numbers for log lines, as {@code String.format(Locale.ROOT, ...)} writes them with {@code %,d}, {@code %.Nf} and
 * {@code %,.0f}, without {@link java.util.Formatter}: the first {@code String.format} of a process loads and
 * initialises the locale data (30–50 ms in a fresh JVM on the project's machine), and the lines that a finite run
 * (consumer.Profiler, producer.Benchmark, the summary) writes as it ends would pay that between its last message
 * and its exit. Always {@code ,} between thousands and {@code .} before decimals, whatever the default locale.
 */
public final class Numbers {
    private Numbers() {
    }

    /** {@code %,d}: 1234567 as "1,234,567". */
    public static String grouped(long v) {
        return appendGrouped(new StringBuilder(27), v).toString();
    }

    /** Appends {@code v} as {@code %,d} writes it. */
    public static StringBuilder appendGrouped(StringBuilder b, long v) {
        String digits = Long.toString(v);
        int start = v < 0 ? 1 : 0;
        return group(b.append(digits, 0, start), digits.substring(start));
    }

    /** Appends the digits of a whole number with a comma between thousands. */
    private static StringBuilder group(StringBuilder b, String digits) {
        int n = digits.length();
        for (int i = 0; i < n; i++) {
            if (i > 0 && (n - i) % 3 == 0) {
                b.append(',');
            }
            b.append(digits.charAt(i));
        }
        return b;
    }

    /** {@code %,.0f}: a rate such as 2294207.4 as "2,294,207". */
    public static String groupedRound(double v) {
        if (!Double.isFinite(v)) {
            return Double.toString(v);
        }
        StringBuilder b = new StringBuilder(32);
        if (Double.doubleToRawLongBits(v) < 0) {
            b.append('-'); // as Formatter: -0.4 is "-0"
        }
        return group(b, rounded(Math.abs(v), 0)).toString();
    }

    /** {@code %.Nf}: {@code fixed(0.4361, 3)} is "0.436". */
    public static String fixed(double v, int decimals) {
        if (!Double.isFinite(v)) {
            return Double.toString(v);
        }
        String digits = rounded(Math.abs(v), decimals);
        return Double.doubleToRawLongBits(v) < 0 ? "-" + digits : digits; // as Formatter: -0.0001 is "-0.000"
    }

    /** As Formatter rounds: the shortest decimal form of {@code v} (Double.toString's), half up. */
    private static String rounded(double v, int decimals) {
        return new BigDecimal(Double.toString(v)).setScale(decimals, RoundingMode.HALF_UP).toPlainString();
    }

    /** {@code %-Ns}: {@code s} padded with spaces on the right to {@code width}. */
    public static StringBuilder appendPadded(StringBuilder b, String s, int width) {
        return b.append(s).append(" ".repeat(Math.max(0, width - s.length())));
    }

    /** {@code %0Nd} for a value of at least 0: {@code zeroPadded(42, 6)} is "000042". */
    public static String zeroPadded(long v, int width) {
        String s = Long.toString(v);
        return v < 0 || s.length() >= width ? s : "0".repeat(width - s.length()) + s;
    }
}
