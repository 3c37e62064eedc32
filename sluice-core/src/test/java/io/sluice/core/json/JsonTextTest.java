package io.sluice.core.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class JsonTextTest {
    private final JsonScanner scanner = new JsonScanner(512, true);
    private final JsonText text = new JsonText();

    private byte[] textOf(String json) {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        assertThat(scanner.skipString(b, 0, b.length)).isEqualTo(b.length);
        byte[] t = text.of(scanner, b);
        return Arrays.copyOfRange(t, text.offset(), text.offset() + text.length());
    }

    @Test
    void plainTextIsTheInputItself() {
        byte[] b = "\"héllo\"".getBytes(StandardCharsets.UTF_8);
        scanner.skipString(b, 0, b.length);
        assertThat(text.of(scanner, b)).isSameAs(b);
        assertThat(text.offset()).isEqualTo(1);
        assertThat(text.length()).isEqualTo(b.length - 2);
    }

    @Test
    void escapesAndSurrogatePairsAreDecoded() {
        assertThat(textOf("\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20ac\\ud83d\\ude00\""))
                .isEqualTo("a\"\\/\b\f\n\r\té€\uD83D\uDE00".getBytes(StandardCharsets.UTF_8));
    }

    /** As Go's encoding/json (and so Gollum) decodes them; the generalised-UTF-8 form would be invalid UTF-8. */
    @Test
    void loneSurrogateEscapesBecomeTheReplacementCharacter() {
        byte[] fffd = {(byte) 0xEF, (byte) 0xBF, (byte) 0xBD};
        assertThat(textOf("\"\\uD800\"")).isEqualTo(fffd);
        assertThat(textOf("\"\\udc00\"")).isEqualTo(fffd);
        // a high surrogate not followed by a low one: replaced, and what follows decoded on its own
        assertThat(textOf("\"\\ud800\\u0041x\"")).isEqualTo(new byte[] {(byte) 0xEF, (byte) 0xBF, (byte) 0xBD, 'A', 'x'});
        assertThat(textOf("\"\\ud800\\ud800\"")).isEqualTo(new byte[] {(byte) 0xEF, (byte) 0xBF, (byte) 0xBD,
            (byte) 0xEF, (byte) 0xBF, (byte) 0xBD});
    }

    @Test
    void eachInstanceKeepsItsOwnText() {
        JsonText key = new JsonText();
        byte[] b = "\"k\\u00e9\" \"v\\n\"".getBytes(StandardCharsets.UTF_8);
        int p = scanner.skipString(b, 0, b.length);
        byte[] kb = key.of(scanner, b);
        scanner.skipString(b, p + 1, b.length);
        byte[] vb = text.of(scanner, b);
        assertThat(new String(kb, key.offset(), key.length(), StandardCharsets.UTF_8)).isEqualTo("ké");
        assertThat(new String(vb, text.offset(), text.length(), StandardCharsets.UTF_8)).isEqualTo("v\n");
    }
}
