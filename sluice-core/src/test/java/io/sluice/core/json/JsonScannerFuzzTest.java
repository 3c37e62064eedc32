package io.sluice.core.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Fuzz targets for the core JSON scanner and its string helpers: every JSON body a consumer takes (HEC events,
 * OTLP JSON, processJSON on network payloads) goes through {@link JsonScanner}. The contract is that a scan
 * returns true or false with a reason and an offset inside the input, never throws; a valid document's strings
 * unescape and escape back to a string that scans and unescapes to the same bytes.
 */
class JsonScannerFuzzTest {

    @FuzzTest(maxDuration = "5m")
    void scanValue(byte[] input) {
        JsonScanner scanner = new JsonScanner();
        boolean ok = scanner.scanValue(input, 0, input.length);
        checkVerdict(scanner, ok, input.length);
        // The same bytes in the middle of a bigger array give the same answer: offsets are not from 0.
        byte[] framed = new byte[input.length + 2];
        framed[0] = ' ';
        System.arraycopy(input, 0, framed, 1, input.length);
        framed[framed.length - 1] = '\n';
        assertThat(new JsonScanner().scanValue(framed, 1, framed.length - 1)).isEqualTo(ok);
    }

    @FuzzTest(maxDuration = "5m")
    void scanObject(byte[] input) {
        JsonScanner scanner = new JsonScanner();
        JsonFields fields = new JsonFields();
        boolean ok = scanner.scanObject(input, 0, input.length, fields);
        checkVerdict(scanner, ok, input.length);
        if (!ok) {
            return;
        }
        for (int i = 0; i < fields.size(); i++) {
            int vo = fields.valueOffset(i);
            int vl = fields.valueLength(i);
            assertThat(vo).isBetween(0, input.length);
            assertThat(vo + vl).isBetween(vo, input.length);
            assertThat(new JsonScanner().scanValue(input, fields.kind(i) == JsonFields.STRING ? vo - 1 : vo,
                    fields.kind(i) == JsonFields.STRING ? vo + vl + 1 : vo + vl)).isTrue();
            if (fields.kind(i) == JsonFields.STRING) {
                roundTrip(input, vo, vl);
            }
            roundTrip(input, fields.keyOffset(i), fields.keyLength(i));
        }
    }

    /** Unescaped string contents escape back to a JSON string that unescapes to the same bytes. */
    private static void roundTrip(byte[] b, int off, int len) {
        byte[] plain = new byte[len];
        int n = JsonStrings.unescape(b, off, len, plain, 0);
        plain = Arrays.copyOf(plain, n);
        byte[] escaped = new byte[JsonStrings.maxEscapedLength(n) + 2];
        int m = JsonStrings.escape(plain, 0, n, escaped, 1);
        escaped[0] = '"';
        escaped[m + 1] = '"';
        JsonScanner again = new JsonScanner();
        assertThat(again.scanValue(escaped, 0, m + 2)).as("escaped %s", new String(escaped, 0, m + 2,
                StandardCharsets.ISO_8859_1)).isTrue();
        byte[] back = new byte[m];
        int k = JsonStrings.unescape(escaped, 1, m, back, 0);
        assertThat(Arrays.copyOf(back, k)).isEqualTo(plain);
    }

    @FuzzTest(maxDuration = "5m")
    void utf8(byte[] input) {
        boolean strict = strictUtf8(input);
        assertThat(Utf8.isValid(input, 0, input.length)).isEqualTo(strict);
        for (int i = 0; i < input.length; i++) {
            if (input[i] < 0) {
                int n = Utf8.sequence(input, i, input.length);
                assertThat(n).isNotZero().isBetween(-3, 4);
            }
        }
    }

    private static boolean strictUtf8(byte[] input) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(input));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static void checkVerdict(JsonScanner scanner, boolean ok, int length) {
        if (ok) {
            assertThat(scanner.errorReason()).isNull();
        } else {
            assertThat(scanner.errorReason()).isNotNull();
            assertThat(scanner.errorOffset()).isBetween(0, length);
        }
    }
}
