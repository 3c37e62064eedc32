package io.sluice.core.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzz target for the scanner as consumer.HEC's EventParser uses it on every event of an /event body: UTF-8
 * checked, 512 levels (MaxDepth's default), one value at a time ({@link JsonScanner#skipValue}), strings unescaped
 * by {@link JsonText}. The contract: skipValue returns a position inside the input or -1 with an error, never
 * throws, and decides as {@link JsonScanner#scanValue} does on the same bytes (same error, same offset); what the
 * lenient scanner accepts it accepts too when it is valid UTF-8, unless nested deeper than its limit; and a
 * string's text is never longer than the string and is valid UTF-8 (a lone surrogate escape becomes U+FFFD).
 * Until issue 20 this compared sluice-hec's own scanner with core's; its seed inputs replay here.
 */
class JsonScannerSkipFuzzTest {
    private static final int MAX_DEPTH = 512;

    private final JsonScanner skip = new JsonScanner(MAX_DEPTH, true);
    private final JsonScanner whole = new JsonScanner(MAX_DEPTH, true);
    private final JsonScanner lenient = new JsonScanner();
    private final JsonText text = new JsonText();

    @FuzzTest(maxDuration = "5m")
    void skipValue(byte[] input) {
        int start = JsonScanner.ws(input, 0, input.length);
        int end = skip.skipValue(input, start, input.length);
        if (end < 0) {
            assertThat(skip.error()).isNotNull();
            assertThat(skip.errorOffset()).isBetween(0, input.length);
        } else {
            assertThat(end).isBetween(start + 1, input.length);
        }
        boolean ok = end >= 0 && JsonScanner.ws(input, end, input.length) == input.length;
        assertThat(whole.scanValue(input, 0, input.length)).isEqualTo(ok);
        if (end < 0) {
            assertThat(whole.error()).isEqualTo(skip.error());
            assertThat(whole.errorOffset()).isEqualTo(skip.errorOffset());
        }
        boolean lenientOk = lenient.scanValue(input, 0, input.length);
        if (ok) {
            assertThat(lenientOk).as("the lenient scanner rejects what the strict one accepts: %s",
                    lenient.errorReason()).isTrue();
        } else if (lenientOk && Utf8.isValid(input, 0, input.length)) {
            assertThat(skip.error()).as("valid JSON rejected").isEqualTo(JsonError.TOO_DEEP);
        }
        if (ok && skip.kind() == JsonFields.STRING) {
            byte[] t = text.of(skip, input);
            assertThat(text.length()).isBetween(0, skip.valueEnd() - skip.valueStart());
            assertThat(Utf8.isValid(t, text.offset(), text.length())).as("text is valid UTF-8").isTrue();
        }
    }
}
