package io.sluice.core.pipeline;

/** JSON string escaping for the admin API and JSON logs (not a hot path). */
public final class JsonText {
    private JsonText() {
    }

    /** Appends {@code s} as a quoted, escaped JSON string. */
    public static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    b.append("\\\"");
                    break;
                case '\\':
                    b.append("\\\\");
                    break;
                case '\n':
                    b.append("\\n");
                    break;
                case '\r':
                    b.append("\\r");
                    break;
                case '\t':
                    b.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        b.append('"');
    }

    /** {@code s} as a quoted JSON string. */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2);
        string(b, s);
        return b.toString();
    }
}
