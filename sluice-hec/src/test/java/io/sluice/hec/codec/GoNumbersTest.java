package io.sluice.hec.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Doubles as Go prints them: encoding/json (ES6), strconv 'g' and 'f' with the shortest digits. */
class GoNumbersTest {
    private static String fmt(String json, int style) {
        GoNumbers n = new GoNumbers();
        byte[] b = json.getBytes(StandardCharsets.US_ASCII);
        assertThat(n.parse(b, 0, b.length)).as(json).isTrue();
        ByteOut o = new ByteOut(16);
        n.write(o, style);
        return o.toString();
    }

    @Test
    void jsonStyle() { // values from Go: json.Marshal(float64(...))
        assertThat(fmt("42.0", GoNumbers.JSON)).isEqualTo("42");
        assertThat(fmt("1234.5678", GoNumbers.JSON)).isEqualTo("1234.5678");
        assertThat(fmt("0.000001", GoNumbers.JSON)).isEqualTo("0.000001");
        assertThat(fmt("1.0E-7", GoNumbers.JSON)).isEqualTo("1e-7");
        assertThat(fmt("1.5e-10", GoNumbers.JSON)).isEqualTo("1.5e-10");
        assertThat(fmt("1.0E20", GoNumbers.JSON)).isEqualTo("100000000000000000000");
        assertThat(fmt("1.0E21", GoNumbers.JSON)).isEqualTo("1e+21");
        assertThat(fmt("-0.5", GoNumbers.JSON)).isEqualTo("-0.5");
        assertThat(fmt("0.0", GoNumbers.JSON)).isEqualTo("0");
        assertThat(fmt("1.7976931348623157E308", GoNumbers.JSON)).isEqualTo("1.7976931348623157e+308");
    }

    @Test
    void gStyle() { // strconv.FormatFloat(f, 'g', -1, 64): an exponent below 1e-4 and from 1e+06 on
        assertThat(fmt("1.0", GoNumbers.G)).isEqualTo("1");
        assertThat(fmt("0.0001", GoNumbers.G)).isEqualTo("0.0001");
        assertThat(fmt("0.00001", GoNumbers.G)).isEqualTo("1e-05");
        assertThat(fmt("100000.0", GoNumbers.G)).isEqualTo("100000");
        assertThat(fmt("1000000.0", GoNumbers.G)).isEqualTo("1e+06");
        assertThat(fmt("123456789.0", GoNumbers.G)).isEqualTo("1.23456789e+08");
        assertThat(fmt("0.99", GoNumbers.G)).isEqualTo("0.99");
    }

    @Test
    void fStyle() { // strconv.FormatFloat(f, 'f', -1, 64): never an exponent
        assertThat(fmt("0.5", GoNumbers.F)).isEqualTo("0.5");
        assertThat(fmt("1.0", GoNumbers.F)).isEqualTo("1");
        assertThat(fmt("1.0E-7", GoNumbers.F)).isEqualTo("0.0000001");
        assertThat(fmt("2.5E7", GoNumbers.F)).isEqualTo("25000000");
    }

    @Test
    void millisecondsAsGoSeconds() {
        byte[] b = new byte[32];
        int end = OtlpEvents.putMillisAsSeconds(b, 0, 1_433_188_255_500L);
        assertThat(new String(b, 0, end, StandardCharsets.US_ASCII)).isEqualTo("1433188255.5");
        assertThat(OtlpEvents.roundToMillis(1_001_499_999L)).isEqualTo(1001);
        assertThat(OtlpEvents.roundToMillis(1_001_500_000L)).isEqualTo(1002);
        assertThat(OtlpEvents.roundToMillis(-1_001_500_000L)).isEqualTo(-1002);
    }
}
