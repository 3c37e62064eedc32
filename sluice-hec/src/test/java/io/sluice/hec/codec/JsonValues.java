package io.sluice.hec.codec;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A small JSON reader for tests: objects as sorted maps (a later duplicate key wins, as in Go), arrays as lists,
 * numbers as BigDecimal without trailing zeros (so that {@code 42}, {@code 42.0} and {@code 4.2e1} are equal),
 * strings unescaped, null as {@link #NULL}. Compares what a HEC receiver would parse, not the bytes.
 */
final class JsonValues {
    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private final String s;
    private int p;

    private JsonValues(String s) {
        this.s = s;
    }

    static Object parse(String text) {
        JsonValues r = new JsonValues(text);
        Object v = r.value();
        r.ws();
        if (r.p != text.length()) {
            throw new IllegalArgumentException("trailing data at " + r.p + " in " + text);
        }
        return v;
    }

    private void ws() {
        while (p < s.length() && " \t\r\n".indexOf(s.charAt(p)) >= 0) {
            p++;
        }
    }

    private Object value() {
        ws();
        char c = s.charAt(p);
        switch (c) {
            case '{': {
                p++;
                Map<String, Object> m = new TreeMap<>();
                ws();
                if (s.charAt(p) == '}') {
                    p++;
                    return m;
                }
                while (true) {
                    ws();
                    String k = string();
                    ws();
                    expect(':');
                    m.put(k, value());
                    ws();
                    if (s.charAt(p++) == '}') {
                        return m;
                    }
                }
            }
            case '[': {
                p++;
                List<Object> l = new ArrayList<>();
                ws();
                if (s.charAt(p) == ']') {
                    p++;
                    return l;
                }
                while (true) {
                    l.add(value());
                    ws();
                    if (s.charAt(p++) == ']') {
                        return l;
                    }
                }
            }
            case '"':
                return string();
            case 't':
                p += 4;
                return Boolean.TRUE;
            case 'f':
                p += 5;
                return Boolean.FALSE;
            case 'n':
                p += 4;
                return NULL;
            default:
                int start = p;
                while (p < s.length() && "+-0123456789.eE".indexOf(s.charAt(p)) >= 0) {
                    p++;
                }
                BigDecimal d = new BigDecimal(s.substring(start, p)).stripTrailingZeros();
                return d.signum() == 0 ? BigDecimal.ZERO : d;
        }
    }

    private void expect(char c) {
        if (s.charAt(p++) != c) {
            throw new IllegalArgumentException("expected " + c + " at " + (p - 1) + " in " + s);
        }
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            char c = s.charAt(p++);
            if (c == '"') {
                return b.toString();
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = s.charAt(p++);
            switch (e) {
                case 'n' -> b.append('\n');
                case 't' -> b.append('\t');
                case 'r' -> b.append('\r');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'u' -> {
                    b.append((char) Integer.parseInt(s.substring(p, p + 4), 16));
                    p += 4;
                }
                default -> b.append(e);
            }
        }
    }
}
