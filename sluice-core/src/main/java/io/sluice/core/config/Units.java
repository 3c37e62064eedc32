package io.sluice.core.config;

import java.time.Duration;
import java.util.Locale;

/**
 * Durations and byte sizes as people write them in configs: {@code 500ms}, {@code 30s}, {@code 1m30s},
 * {@code 64KiB}, {@code 2MiB}, {@code 10MB}. A bare number keeps the unit of the key it is given to, so the old
 * {@code …Ms} integer settings read exactly as before.
 */
public final class Units {
    private Units() {
    }

    /**
     * Parses a duration: one or more {@code <number><unit>} parts with units ns, us, ms, s, m, h, d
     * (Go's spelling, as Fluent Bit, Vector and the OTel Collector write them), or a bare whole number in
     * {@code bareUnitMillis}-millisecond units.
     *
     * @throws IllegalArgumentException with a message fit for a config error
     */
    public static Duration parseDuration(String text, long bareUnitMillis) {
        String s = text.trim().replace("_", "");
        if (s.isEmpty()) {
            throw new IllegalArgumentException("expected a duration such as 500ms or 30s, found nothing");
        }
        if (isWholeNumber(s)) {
            return Duration.ofMillis(Math.multiplyExact(Long.parseLong(s), bareUnitMillis));
        }
        Duration total = Duration.ZERO;
        int i = 0;
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                i++;
            }
            int unitStart = i;
            while (i < s.length() && Character.isLetter(s.charAt(i))) {
                i++;
            }
            if (start == unitStart || unitStart == i) {
                throw new IllegalArgumentException("expected a duration such as 500ms, 30s or 1m30s, found '" + text + "'");
            }
            double amount = Double.parseDouble(s.substring(start, unitStart));
            long nanosPerUnit = nanosPer(s.substring(unitStart, i), text);
            total = total.plusNanos(Math.round(amount * nanosPerUnit));
        }
        return total;
    }

    private static long nanosPer(String unit, String text) {
        return switch (unit.toLowerCase(Locale.ROOT)) {
            case "ns" -> 1L;
            case "us", "µs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            case "d" -> 86_400_000_000_000L;
            default -> throw new IllegalArgumentException("unknown duration unit '" + unit + "' in '" + text
                    + "' (ns, us, ms, s, m, h or d)");
        };
    }

    /**
     * Parses a byte size: a whole number of bytes, or a number with a unit. KiB, MiB, GiB, TiB and the short
     * K, M, G, T are powers of 1024; KB, MB, GB, TB are powers of 1000, as the IEC and SI define them.
     *
     * @throws IllegalArgumentException with a message fit for a config error
     */
    public static long parseSize(String text) {
        String s = text.trim().replace("_", "");
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException("expected a size such as 65536, 64KiB or 2MiB, found '" + text + "'");
        }
        String unit = s.substring(i).trim();
        long multiplier = bytesPer(unit, text);
        if (unit.isEmpty() && !isWholeNumber(s)) {
            throw new IllegalArgumentException("expected a whole number of bytes, found '" + text + "'");
        }
        double amount = Double.parseDouble(s.substring(0, i));
        double bytes = amount * multiplier;
        if (bytes > Long.MAX_VALUE) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
        return Math.round(bytes);
    }

    private static long bytesPer(String unit, String text) {
        return switch (unit) {
            case "", "B", "b" -> 1L;
            case "KiB", "K", "k", "Ki" -> 1L << 10;
            case "MiB", "M", "m", "Mi" -> 1L << 20;
            case "GiB", "G", "g", "Gi" -> 1L << 30;
            case "TiB", "T", "t", "Ti" -> 1L << 40;
            case "KB", "kB", "kb" -> 1_000L;
            case "MB", "mb" -> 1_000_000L;
            case "GB", "gb" -> 1_000_000_000L;
            case "TB", "tb" -> 1_000_000_000_000L;
            default -> throw new IllegalArgumentException("unknown size unit '" + unit + "' in '" + text
                    + "' (B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB)");
        };
    }

    /** A duration the shortest way it can be written back: {@code 30s}, {@code 500ms}, {@code 5m}. */
    public static String formatDuration(Duration d) {
        long nanos = d.toNanos();
        if (nanos == 0) {
            return "0s";
        }
        String[] names = {"d", "h", "m", "s", "ms", "us", "ns"};
        long[] sizes = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L, 1L};
        for (int k = 0; k < sizes.length; k++) {
            if (nanos % sizes[k] == 0) {
                return nanos / sizes[k] + names[k];
            }
        }
        return nanos + "ns";
    }

    /** A byte size the shortest exact way: {@code 64KiB}, {@code 1GiB}, {@code 1000}. */
    public static String formatSize(long bytes) {
        String[] names = {"TiB", "GiB", "MiB", "KiB"};
        int[] shifts = {40, 30, 20, 10};
        for (int k = 0; k < shifts.length; k++) {
            long unit = 1L << shifts[k];
            if (bytes != 0 && bytes % unit == 0) {
                return bytes / unit + names[k];
            }
        }
        return Long.toString(bytes);
    }

    private static boolean isWholeNumber(String s) {
        int start = s.startsWith("-") ? 1 : 0;
        if (start == s.length()) {
            return false;
        }
        for (int i = start; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
