package io.sluice.core.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonScannerTest {
    private final JsonScanner scanner = new JsonScanner();
    private final JsonFields fields = new JsonFields();

    private boolean scan(String json) {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return scanner.scanObject(b, 0, b.length, fields);
    }

    private static String text(byte[] b, int off, int len) {
        return new String(b, off, len, StandardCharsets.UTF_8);
    }

    @Test
    void membersAreByteRangesWithKinds() {
        String json = " {\"s\":\"x\", \"n\":-12.5e+3,\"t\":true,\"f\":false,\"z\":null,\"o\":{\"a\":[1,{\"b\":2}]},\"a\":[]} ";
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        assertThat(scanner.scanObject(b, 0, b.length, fields)).isTrue();
        assertThat(fields.size()).isEqualTo(7);
        String[] values = new String[7];
        byte[] kinds = new byte[7];
        for (int i = 0; i < 7; i++) {
            values[i] = text(b, fields.valueOffset(i), fields.valueLength(i));
            kinds[i] = fields.kind(i);
        }
        assertThat(values).containsExactly("x", "-12.5e+3", "true", "false", "null", "{\"a\":[1,{\"b\":2}]}", "[]");
        assertThat(kinds).containsExactly(JsonFields.STRING, JsonFields.NUMBER, JsonFields.BOOLEAN, JsonFields.BOOLEAN,
                JsonFields.NULL, JsonFields.OBJECT, JsonFields.ARRAY);
    }

    @Test
    void longPlainStringsAreScannedWordWise() {
        String s = "abcdefghijklmnopqrstuvwxyz .,!;:-_".repeat(8);
        assertThat(scan("{\"k\":\"" + s + "\",\"q\":\"a\\\"b\"}")).isTrue();
        assertThat(fields.valueLength(0)).isEqualTo(s.length());
        assertThat(fields.valueEscaped(0)).isFalse();
        assertThat(fields.valueEscaped(1)).isTrue();
    }

    @Test
    void deepNestingNeedsNoRecursion() {
        int depth = 50_000;
        String json = "{\"d\":" + "[".repeat(depth) + "]".repeat(depth) + "}";
        assertThat(scan(json)).isTrue();
        assertThat(fields.kind(0)).isEqualTo(JsonFields.ARRAY);
        assertThat(fields.valueLength(0)).isEqualTo(2 * depth);
    }

    @Test
    void nonUtf8BytesInsideStringsAreAccepted() {
        byte[] b = {'{', '"', 'k', '"', ':', '"', (byte) 0xFF, (byte) 0xC3, 'x', '"', '}'};
        assertThat(scanner.scanObject(b, 0, b.length, fields)).isTrue();
        assertThat(fields.valueLength(0)).isEqualTo(3);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "''|0|expected '{'",
        "[1]|0|expected '{'",
        "{|1|unexpected end of input",
        "{\"a\" 1}|5|expected ':' after key",
        "{\"a\":1,}|7|expected a string key",
        "{\"a\":01}|6|expected ',' or '}'",
        "{\"a\":1 \"b\":2}|7|expected ',' or '}'",
        "{\"a\":[1 2]}|8|expected ',' or ']'",
        "{\"a\":tru}|5|invalid literal",
        "{\"a\":-}|6|invalid number",
        "{\"a\":1.}|7|invalid number",
        "{\"a\":\"\\x\"}|6|invalid escape sequence",
        "{\"a\":\"\\u12G4\"}|6|invalid escape sequence",
        "{\"a\":1} x|8|unexpected data after the value",
        "{\"a\":\"unterminated}|19|unexpected end of input",
        "{\"a\":{\"b\":}}|10|expected a value",
    })
    void invalidDocumentsReportOffsetAndReason(String json, int offset, String reason) {
        assertThat(scan(json)).isFalse();
        assertThat(scanner.errorReason()).isEqualTo(reason);
        assertThat(scanner.errorOffset()).isEqualTo(offset);
    }

    @Test
    void controlCharactersMustBeEscaped() {
        assertThat(scan("{\"a\":\"x\ny\"}")).isFalse();
        assertThat(scanner.errorReason()).isEqualTo(JsonScanner.CONTROL_CHARACTER);
        assertThat(scanner.errorOffset()).isEqualTo(7);
    }

    @Test
    void unescapeHandlesEveryEscapeAndSurrogates() {
        byte[] raw = "a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20ac\\ud83d\\ude00\\ud800x".getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[raw.length];
        int n = JsonStrings.unescape(raw, 0, raw.length, out, 0);
        byte[] expected = concat("a\"\\/\b\f\n\r\té€\uD83D\uDE00".getBytes(StandardCharsets.UTF_8),
                new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80, 'x'});
        assertThat(java.util.Arrays.copyOf(out, n)).isEqualTo(expected);
        // and back: only what JSON requires is escaped; the lone surrogate comes back as its escape
        byte[] esc = new byte[JsonStrings.maxEscapedLength(n)];
        int m = JsonStrings.escape(out, 0, n, esc, 0);
        assertThat(text(esc, 0, m)).isEqualTo("a\\\"\\\\/\\b\\f\\n\\r\\té€\uD83D\uDE00\\ud800x");
    }

    @Test
    void unescapeWorksInPlace() {
        byte[] b = "x\\u0041\\u00e9y".getBytes(StandardCharsets.UTF_8);
        int n = JsonStrings.unescape(b, 0, b.length, b, 0);
        assertThat(text(b, 0, n)).isEqualTo("xAéy");
    }

    @Test
    void findMemberTakesTheLastDuplicate() {
        byte[] b = "{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8);
        byte[] key = {'a'};
        assertThat(scanner.findMember(b, 0, b.length, key, 0, 1, fields)).isTrue();
        assertThat(text(b, scanner.valueStart(), scanner.valueEnd() - scanner.valueStart())).isEqualTo("2");
    }

    @Test
    void writerPlacesCommasAndEscapes() {
        JsonWriter w = new JsonWriter(4);
        byte[] k = "k\"".getBytes(StandardCharsets.UTF_8);
        byte[] v = "tab\there".getBytes(StandardCharsets.UTF_8);
        w.beginObject().name(k, 0, k.length).string(v, 0, v.length).name(k, 0, 1).beginArray()
                .raw(new byte[] {'1'}, 0, 1).raw(new byte[] {'2'}, 0, 1).endArray().endObject();
        assertThat(text(w.buffer(), 0, w.length())).isEqualTo("{\"k\\\"\":\"tab\\there\",\"k\":[1,2]}");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
