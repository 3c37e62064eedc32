package io.sluice.otlp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The number readers against the JDK's: every double read back bit for bit, integer bounds, bad text. */
class TextTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static double d(String s) {
        return Text.parseDouble(b(s), 0, s.length());
    }

    @Test
    void doublesReadExactlyAsTheJdkReadsThem() {
        SplittableRandom r = new SplittableRandom(42);
        for (int i = 0; i < 50_000; i++) {
            double v = i % 2 == 0 ? Double.longBitsToDouble(r.nextLong()) : r.nextDouble() * Math.pow(10, r.nextInt(-30, 30));
            if (!Double.isFinite(v)) {
                continue;
            }
            String s = Double.toString(v);
            assertThat(Double.doubleToRawLongBits(d(s))).as(s).isEqualTo(Double.doubleToRawLongBits(v));
            String plain = new java.math.BigDecimal(v).round(new java.math.MathContext(r.nextInt(1, 18))).toString();
            assertThat(d(plain)).as(plain).isEqualTo(Double.parseDouble(plain));
        }
        for (String s : new String[] {"0.0", "-0.0", "1e22", "1e23", "123456789012345e-22", "0.1", "1.7976931348623157E308",
            "4.9E-324", "-2.5e-3", "100"}) {
            assertThat(Double.doubleToRawLongBits(d(s))).as(s).isEqualTo(Double.doubleToRawLongBits(Double.parseDouble(s)));
        }
        assertThat(d("NaN")).isNaN();
        assertThat(d("Infinity")).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(d("-Infinity")).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(d("garbage")).isNaN();
    }

    @Test
    void integerBounds() {
        assertThat(Text.isInteger(b("9223372036854775807"), 0, 19, false)).isTrue();
        assertThat(Text.isInteger(b("9223372036854775808"), 0, 19, false)).isFalse();
        assertThat(Text.isInteger(b("-9223372036854775808"), 0, 20, false)).isTrue();
        assertThat(Text.parseLong(b("-9223372036854775808"), 0, 20)).isEqualTo(Long.MIN_VALUE);
        assertThat(Text.isInteger(b("-9223372036854775809"), 0, 20, false)).isFalse();
        assertThat(Text.isInteger(b("18446744073709551615"), 0, 20, true)).isTrue();
        assertThat(Text.parseLong(b("18446744073709551615"), 0, 20)).isEqualTo(-1L);
        assertThat(Text.isInteger(b("18446744073709551616"), 0, 20, true)).isFalse();
        assertThat(Text.isInteger(b("12a"), 0, 3, false)).isFalse();
        assertThat(Text.isInteger(b("-"), 0, 1, false)).isFalse();
    }

    @Test
    void numberGrammar() {
        for (String ok : new String[] {"0", "-0", "1.5", "1e5", "1E+5", "-1.25e-7", "NaN", "Infinity", "-Infinity"}) {
            assertThat(Text.isNumber(b(ok), 0, ok.length())).as(ok).isTrue();
        }
        for (String bad : new String[] {"", "-", "01", "1.", ".5", "1e", "abc", "1x", "+1", "nan"}) {
            assertThat(Text.isNumber(b(bad), 0, bad.length())).as(bad).isFalse();
        }
    }

    @Test
    void hexAndBase64() {
        byte[] out = new byte[16];
        assertThat(Text.hex(b("00ff10"), 0, 6, out, 0)).isEqualTo(3);
        assertThat(out[1]).isEqualTo((byte) 0xff);
        assertThat(Text.hex(b("0g"), 0, 2, out, 0)).isEqualTo(-1);
        assertThat(Text.base64(b("AAEC/w=="), 0, 8, out)).isEqualTo(4);
        assertThat(out[3]).isEqualTo((byte) 0xff);
        assertThat(Text.base64(b("AAEC_w"), 0, 6, out)).isEqualTo(4); // URL alphabet, no padding
        assertThat(Text.base64(b("AA*C"), 0, 4, out)).isEqualTo(-1);
    }
}
