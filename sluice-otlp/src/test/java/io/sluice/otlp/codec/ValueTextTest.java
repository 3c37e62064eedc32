package io.sluice.otlp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ValueTextTest {
    private static String dbl(double d) {
        byte[] b = new byte[ValueText.MAX_DOUBLE];
        return new String(b, 0, ValueText.putDouble(b, 0, d), StandardCharsets.US_ASCII);
    }

    private static String unsigned(long v) {
        byte[] b = new byte[24];
        return new String(b, 0, ValueText.putUnsigned(b, 0, v), StandardCharsets.US_ASCII);
    }

    @Test
    void doublesAlwaysHaveAFractionOrExponentAndReadBackExactly() {
        assertThat(dbl(1.0)).isEqualTo("1.0");
        assertThat(dbl(-0.0)).isEqualTo("-0.0");
        assertThat(dbl(0.0)).isEqualTo("0.0");
        assertThat(dbl(0.1)).isEqualTo("0.1");
        assertThat(dbl(0.001)).isEqualTo("0.001");
        assertThat(dbl(-273.15)).isEqualTo("-273.15");
        assertThat(dbl(1234567.5)).isEqualTo("1234567.5");
        assertThat(dbl(1e7)).isEqualTo("1.0E7");
        assertThat(dbl(0.1 + 0.2)).isEqualTo("0.30000000000000004");
        assertThat(dbl(Double.MAX_VALUE)).isEqualTo("1.7976931348623157E308");
        assertThat(dbl(Double.MIN_VALUE)).isEqualTo("4.9E-324");
        SplittableRandom r = new SplittableRandom(42);
        for (int i = 0; i < 200_000; i++) {
            double d = switch (i % 4) {
                case 0 -> Double.longBitsToDouble(r.nextLong());
                case 1 -> r.nextInt(1_000_000) / 1000.0;
                case 2 -> (r.nextInt(20_000) - 10_000) * 0.125;
                default -> r.nextDouble() * Math.pow(10, r.nextInt(-5, 9));
            };
            if (!Double.isFinite(d)) {
                continue;
            }
            String s = dbl(d);
            assertThat(Double.doubleToRawLongBits(Double.parseDouble(s))).as(s).isEqualTo(Double.doubleToRawLongBits(d));
            assertThat(s).as("%s has a fraction or an exponent", s).containsAnyOf(".", "E");
            // No more digits than Double.toString (which on Java 17 is sometimes one longer than the shortest).
            assertThat(s.length()).as(s).isLessThanOrEqualTo(Double.toString(d).length());
        }
    }

    @Test
    void wholeNumbersOf1024thsAsDoubleToStringWritesThem() {
        SplittableRandom r = new SplittableRandom(11);
        for (int i = 0; i < 300_000; i++) {
            long m = i < 100_000 ? i : r.nextLong(8192L * 1024 + 5000);
            for (double d : new double[] {m / 1024.0, -m / 1024.0, m / 512.0 + 1 / 1024.0}) {
                if (Math.abs(d) >= 1e-3 && Math.abs(d) < 1e7) {
                    assertThat(dbl(d)).isEqualTo(Double.toString(d));
                }
            }
        }
    }

    @Test
    void unsignedDecimalsOfEveryLength() {
        assertThat(unsigned(0)).isEqualTo("0");
        assertThat(unsigned(-1)).isEqualTo("18446744073709551615");
        assertThat(unsigned(Long.MIN_VALUE)).isEqualTo("9223372036854775808");
        assertThat(unsigned(Long.MAX_VALUE)).isEqualTo("9223372036854775807");
        assertThat(unsigned(100_000_000L)).isEqualTo("100000000");
        assertThat(unsigned(1_700_000_000_000_000_001L)).isEqualTo("1700000000000000001");
        long p = 1;
        for (int k = 0; k <= 19; k++, p *= 10) { // every power of ten and the number below it (10^19 as unsigned)
            assertThat(unsigned(p)).isEqualTo(Long.toUnsignedString(p));
            assertThat(unsigned(p - 1)).isEqualTo(Long.toUnsignedString(p - 1));
            assertThat(unsigned(p + 12_345_678)).isEqualTo(Long.toUnsignedString(p + 12_345_678));
        }
        long v = 1;
        for (int i = 0; i < 64; i++, v = v * 3 + 7) {
            assertThat(unsigned(v)).isEqualTo(Long.toUnsignedString(v));
            assertThat(unsigned(v - 1)).isEqualTo(Long.toUnsignedString(v - 1));
        }
    }

    @Test
    void hexOfEveryByteAndAllZero() {
        byte[] src = new byte[256];
        for (int i = 0; i < 256; i++) {
            src[i] = (byte) i;
        }
        byte[] hex = new byte[512];
        assertThat(ValueText.putHex(hex, 0, src, 0, 256)).isEqualTo(512);
        assertThat(new String(hex, StandardCharsets.US_ASCII)).isEqualTo(HexFormat.of().formatHex(src));
        for (int len = 0; len <= 17; len++) {
            byte[] z = new byte[len + 2];
            assertThat(ValueText.allZero(z, 1, len)).isTrue();
            for (int i = 0; i < len; i++) {
                z[1 + i] = (byte) 0x80;
                assertThat(ValueText.allZero(z, 1, len)).isFalse();
                z[1 + i] = 0;
            }
            z[0] = 1;
            z[len + 1] = 1;
            assertThat(ValueText.allZero(z, 1, len)).isTrue();
        }
    }

    @Test
    void base64AndHexAsTheJdkWritesThem() {
        SplittableRandom r = new SplittableRandom(7);
        for (int len = 0; len < 40; len++) {
            byte[] src = new byte[len];
            for (int i = 0; i < len; i++) {
                src[i] = (byte) r.nextInt();
            }
            byte[] out = new byte[ValueText.base64Length(len) + 4];
            int end = ValueText.putBase64(out, 2, src, 0, len);
            assertThat(new String(out, 2, end - 2, StandardCharsets.US_ASCII))
                    .isEqualTo(Base64.getEncoder().encodeToString(src));
            byte[] hex = new byte[2 * len];
            ValueText.putHex(hex, 0, src, 0, len);
            assertThat(new String(hex, StandardCharsets.US_ASCII)).isEqualTo(HexFormat.of().formatHex(src));
        }
    }
}
