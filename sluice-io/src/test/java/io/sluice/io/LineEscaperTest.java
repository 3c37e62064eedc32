package io.sluice.io;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.json.Utf8Reference;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LineEscaperTest {
    private final AtomicLong invalid = new AtomicLong();
    private final LineEscaper escaper = new LineEscaper(invalid);

    /** Writes one payload as the producers do: content, escaped or copied, then LF. */
    private byte[] line(byte[] p) {
        int len = LineEscaper.content(p, p.length);
        int n = escaper.measure(p, 0, len);
        byte[] out = new byte[(n < 0 ? len : n) + 1];
        int end;
        if (n < 0) {
            System.arraycopy(p, 0, out, 0, len);
            end = len;
        } else {
            end = escaper.write(p, 0, len, out, 0);
            assertThat(end).as("write writes what measure measured").isEqualTo(n);
        }
        out[end] = '\n';
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void plainTextKeepsOneRecordPerLineAndReadsBackExactly() {
        String[] cases = {"a\n{\"forged\":true}", "one\r\ntwo", "nul\0byte", "bell\u0007del\u007f", "tab\tstays",
            "C:\\new\\x41\\\\n", "trailing backslash\\", "backslash before newline\\\n!", "plain", "", "\\\\\\"};
        for (String c : cases) {
            byte[] out = line(bytes(c));
            assertThat(Lines.split(out)).as("lines of %s", c).hasSize(1);
            assertThat(new String(Lines.unescapeText(Lines.split(out).get(0)), StandardCharsets.UTF_8)).isEqualTo(c);
        }
        assertThat(new String(line(bytes("a\n{\"forged\":true}")), StandardCharsets.UTF_8)).isEqualTo("a\\n{\"forged\":true}\n");
        assertThat(new String(line(bytes("nul\0")), StandardCharsets.UTF_8)).isEqualTo("nul\\x00\n");
        // A backslash is doubled only where it would read as an escape.
        assertThat(new String(line(bytes("C:\\Users\\new")), StandardCharsets.UTF_8)).isEqualTo("C:\\Users\\\\new\n");
        // The record's own line end is not content.
        assertThat(line(bytes("ends\n"))).isEqualTo(bytes("ends\n"));
        assertThat(line(bytes("ends\r\n"))).isEqualTo(bytes("ends\n"));
    }

    @Test
    void randomPlainTextReadsBackExactly() {
        Random r = new Random(3);
        byte[] palette = {'a', 'n', 'r', 'x', '\\', '\n', '\r', '\t', 0, 0x1b, 0x7f, (byte) 0xc3, (byte) 0xa9, (byte) 0xff, '"'};
        for (int round = 0; round < 20_000; round++) {
            byte[] p = new byte[r.nextInt(30)];
            for (int i = 0; i < p.length; i++) {
                p[i] = palette[r.nextInt(palette.length)];
            }
            if (p.length > 0 && p[p.length - 1] == '\n') {
                p[p.length - 1] = 'z'; // a trailing LF is the line end, not content
            }
            byte[] out = line(p);
            assertThat(Lines.split(out)).hasSize(1);
            assertThat(Lines.unescapeText(Lines.split(out).get(0))).as("%s", java.util.Arrays.toString(p)).isEqualTo(p);
        }
    }

    @Test
    void jsonStringsGetJsonEscapesAndInvalidUtf8BecomesReplacementCharacters() throws Exception {
        Random r = new Random(5);
        byte[] palette = {'a', 'n', ' ', '\n', '\r', '\t', 0, 0x01, 0x1f, 0x7f, (byte) 0xc3, (byte) 0xa9, (byte) 0xe2, (byte) 0x82,
            (byte) 0xac, (byte) 0xf0, (byte) 0x9f, (byte) 0x98, (byte) 0x80, (byte) 0xed, (byte) 0xa0, (byte) 0x80, (byte) 0xff,
            (byte) 0xc0};
        long invalidBefore = 0;
        for (int round = 0; round < 20_000; round++) {
            byte[] text = new byte[r.nextInt(30)];
            for (int i = 0; i < text.length; i++) {
                text[i] = palette[r.nextInt(palette.length)];
            }
            ByteArrayOutputStream p = new ByteArrayOutputStream();
            p.writeBytes(bytes("{\"n\":" + round + ",\n  \"msg\":\""));
            p.writeBytes(text);
            p.writeBytes(bytes("\"}"));
            byte[] out = line(p.toByteArray());
            assertThat(Lines.split(out)).hasSize(1);
            assertThat(Lines.jsonField(Lines.split(out).get(0), "msg")).as("%s", java.util.Arrays.toString(text))
                    .isEqualTo(Utf8Reference.decode(text));
            String decoded = Utf8Reference.decode(text);
            long replaced = decoded.chars().filter(c -> c == 0xFFFD).count();
            assertThat(invalid.get() - invalidBefore).as("counted replacements").isEqualTo(replaced);
            invalidBefore = invalid.get();
        }
        assertThat(invalid.get()).isPositive();
    }

    @Test
    void theForgedHecEventStaysInsideItsLine() throws Exception {
        // {"event":"a\n{\"forged\":true}"} as a JSON payload with the string unescaped by a careless formatter.
        byte[] out = line(bytes("{\"event\":\"a\n{\"forged\":true}\"}"));
        assertThat(Lines.split(out)).hasSize(1);
        // The JSON payload that arrived escaped stays as it is: nothing to do, copied.
        byte[] clean = bytes("{\"event\":\"a\\n{\\\"forged\\\":true}\",\"é\":\"ü\"}");
        assertThat(escaper.measure(clean, 0, clean.length)).isEqualTo(-1);
        assertThat(Lines.jsonField(Lines.split(line(clean)).get(0), "event")).isEqualTo("a\n{\"forged\":true}");
    }

    @Test
    void prettyPrintedJsonBecomesOneLineThatReadsTheSame() throws Exception {
        byte[] out = line(bytes("{\n\t\"a\": \"x\\ty\",\r\n  \"b\": [1,\n2]\n}\n"));
        assertThat(new String(out, StandardCharsets.UTF_8)).isEqualTo("{  \"a\": \"x\\ty\",    \"b\": [1, 2] }\n");
        assertThat(Lines.jsonField(Lines.split(out).get(0), "a")).isEqualTo("x\ty");
    }

    @Test
    void utf8SequencesAgreeWithTheJdkDecoderExceptForEncodedSurrogates() {
        Random r = new Random(9);
        for (int round = 0; round < 50_000; round++) {
            byte[] b = new byte[1 + r.nextInt(5)];
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (r.nextBoolean() ? 0x80 + r.nextInt(0x40) : 0x80 + r.nextInt(0x80));
            }
            b[0] = (byte) (0xC0 + r.nextInt(0x40));
            int n = io.sluice.core.json.Utf8.sequence(b, 0, b.length);
            String jdk = new String(b, StandardCharsets.UTF_8);
            if (b[0] == (byte) 0xED && b.length > 1 && (b[1] & 0xFF) >= 0xA0) {
                // An encoded surrogate: the JDK replaces the three bytes at once, Unicode's practice (which the
                // project follows, as WHATWG does) replaces the lead byte alone, its maximal subpart.
                assertThat(n).as("%s", java.util.Arrays.toString(b)).isEqualTo(-1);
            } else if (n > 0) {
                assertThat(jdk.codePointAt(0)).as("%s", java.util.Arrays.toString(b)).isNotEqualTo(0xFFFD);
                assertThat(new String(b, 0, n, StandardCharsets.UTF_8).codePointCount(0, new String(b, 0, n, StandardCharsets.UTF_8).length())).isEqualTo(1);
            } else {
                // The JDK replaces exactly the maximal subpart with one U+FFFD and decodes on after it.
                assertThat(jdk.codePointAt(0)).isEqualTo(0xFFFD);
                assertThat(jdk.substring(1)).as("%s", java.util.Arrays.toString(b))
                        .isEqualTo(new String(b, -n, b.length + n, StandardCharsets.UTF_8));
            }
        }
    }
}
