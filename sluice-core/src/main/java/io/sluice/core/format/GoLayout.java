package io.sluice.core.format;

/**
 * Translates a Go time layout ("2006-01-02 15:04:05 MST") into a {@link java.time.format.DateTimeFormatter}
 * pattern, recognising the same chunks as Go's {@code time.Format}; everything else is literal text.
 *
 * @param javaPattern the DateTimeFormatter pattern
 * @param fractionDigits digits of sub-second precision the layout shows (0 if none)
 */
public record GoLayout(String javaPattern, int fractionDigits) {

    /** Parses a Go layout. */
    public static GoLayout parse(String layout) {
        StringBuilder out = new StringBuilder();
        StringBuilder literal = new StringBuilder();
        int fraction = 0;
        int i = 0;
        while (i < layout.length()) {
            String[] chunk = chunkAt(layout, i);
            if (chunk == null) {
                literal.append(layout.charAt(i++));
                continue;
            }
            flushLiteral(out, literal);
            out.append(chunk[1]);
            if (chunk[1].startsWith(".S") || chunk[1].startsWith(",S")) {
                fraction = chunk[1].length() - 1;
            }
            i += chunk[0].length();
        }
        flushLiteral(out, literal);
        return new GoLayout(out.toString(), fraction);
    }

    private static final String[][] CHUNKS = {
        {"January", "MMMM"}, {"Jan", "MMM"}, {"Monday", "EEEE"}, {"Mon", "EEE"}, {"MST", "z"},
        {"2006", "yyyy"}, {"_2", "ppd"}, {"01", "MM"}, {"02", "dd"}, {"06", "yy"}, {"15", "HH"}, {"03", "hh"},
        {"04", "mm"}, {"05", "ss"}, {"Z07:00", "XXX"}, {"Z0700", "XX"}, {"Z07", "X"}, {"-07:00", "xxx"},
        {"-0700", "xx"}, {"-07", "x"}, {"PM", "a"}, {"pm", "a"}, {"1", "M"}, {"2", "d"}, {"3", "h"},
        {"4", "m"}, {"5", "s"},
    };

    private static String[] chunkAt(String s, int i) {
        char c = s.charAt(i);
        if ((c == '.' || c == ',') && i + 1 < s.length() && (s.charAt(i + 1) == '0' || s.charAt(i + 1) == '9')) {
            char digit = s.charAt(i + 1);
            int j = i + 1;
            while (j < s.length() && s.charAt(j) == digit) {
                j++;
            }
            if (j == s.length() || !Character.isDigit(s.charAt(j))) {
                return new String[] {s.substring(i, j), c + "S".repeat(j - i - 1)};
            }
        }
        for (String[] chunk : CHUNKS) {
            if (s.startsWith(chunk[0], i)) {
                return chunk;
            }
        }
        return null;
    }

    private static void flushLiteral(StringBuilder out, StringBuilder literal) {
        if (literal.length() == 0) {
            return;
        }
        out.append('\'').append(literal.toString().replace("'", "''")).append('\'');
        literal.setLength(0);
    }
}
