package io.sluice.cli;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonStrings;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Reads the admin API's JSON into maps, lists, Strings, Longs, Doubles, Booleans and nulls, for {@code sluice top}.
 * Validation and escapes are the project's one JSON scanner's ({@link JsonScanner}); this only builds the tree.
 */
final class MiniJson {
    private final byte[] text;
    private final JsonScanner scanner = new JsonScanner();

    private MiniJson(byte[] text) {
        this.text = text;
    }

    /** The value {@code json} holds; an {@link IllegalArgumentException} says where it is not valid JSON. */
    static Object parse(String json) {
        MiniJson p = new MiniJson(json.getBytes(StandardCharsets.UTF_8));
        JsonScanner s = p.scanner;
        if (!s.scanValue(p.text, 0, p.text.length)) {
            throw new IllegalArgumentException("bad JSON at offset " + s.errorOffset() + ": " + s.errorReason());
        }
        return p.value(s.kind(), s.valueStart(), s.valueEnd() - s.valueStart(), s.valueEscaped());
    }

    private Object value(byte kind, int off, int len, boolean escaped) {
        switch (kind) {
            case JsonFields.OBJECT: {
                JsonFields f = members(off, len, true);
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = 0; i < f.size(); i++) {
                    m.put(string(f.keyOffset(i), f.keyLength(i), f.keyEscaped(i)), member(f, i));
                }
                return m;
            }
            case JsonFields.ARRAY: {
                JsonFields f = members(off, len, false);
                return IntStream.range(0, f.size()).mapToObj(i -> member(f, i)).toList();
            }
            case JsonFields.STRING:
                return string(off, len, escaped);
            case JsonFields.NUMBER: {
                String n = new String(text, off, len, StandardCharsets.US_ASCII);
                return n.contains(".") || n.contains("e") || n.contains("E") ? (Object) Double.parseDouble(n) : (Object) Long.parseLong(n);
            }
            case JsonFields.BOOLEAN:
                return text[off] == 't';
            default:
                return null;
        }
    }

    private JsonFields members(int off, int len, boolean object) {
        JsonFields f = new JsonFields();
        boolean ok = object ? scanner.scanObject(text, off, off + len, f) : scanner.scanArray(text, off, off + len, f);
        if (!ok) {
            throw new IllegalStateException("a nested value the scanner accepted did not scan again: " + scanner.errorReason());
        }
        return f;
    }

    private Object member(JsonFields f, int i) {
        return value(f.kind(i), f.valueOffset(i), f.valueLength(i), f.valueEscaped(i));
    }

    private String string(int off, int len, boolean escaped) {
        if (!escaped) {
            return new String(text, off, len, StandardCharsets.UTF_8);
        }
        byte[] out = new byte[len];
        return new String(out, 0, JsonStrings.unescape(text, off, len, out, 0), StandardCharsets.UTF_8);
    }
}
