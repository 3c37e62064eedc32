package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.Base64Encode: Gollum's doc example and tests, then Sluice's own cases (round trips through Decode). */
class Base64EncodeTest {
    /** Gollum's doc: "uses RFC 4648 URL encoding" through a Dictionary of - and _ for + and /. */
    @Test
    void gollumDocExample_urlDictionary() {
        Message m = message(new byte[] {(byte) 0xFB, (byte) 0xFF, (byte) 0xBF});
        mod("format.Base64Encode", Map.of("Dictionary",
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("-_-_");
    }

    /** Gollum's TestBase64 (encode half) and TestBase64EncodeApplyHandling. */
    @Test
    void gollumTests_payloadAndField() {
        Message m = message("test");
        mod("format.Base64Encode", Map.of()).modulate(m);
        assertThat(m.payloadString()).isEqualTo("dGVzdA==");
        Message f = message("");
        f.metadata().setString("foo", "test");
        mod("format.Base64Encode", Map.of("ApplyTo", "foo")).modulate(f);
        assertThat(f.metadata().getString("foo")).isEqualTo("dGVzdA==");
    }

    @Test
    void roundTripAndCustomDictionary() {
        for (String s : new String[] {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
            Message m = message(s);
            mod("format.Base64Encode", Map.of()).modulate(m);
            assertThat(m.payloadString()).isEqualTo(java.util.Base64.getEncoder().encodeToString(s.getBytes()));
            assertThat(mod("format.Base64Decode", Map.of()).modulate(m)).isEqualTo(Result.CONTINUE);
            assertThat(m.payloadString()).isEqualTo(s);
        }
        String dict = "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba9876543210+/";
        Message m = message("hello");
        mod("format.Base64Encode", Map.of("Base64Dictionary", dict)).modulate(m);
        assertThat(m.payloadString()).isNotEqualTo("aGVsbG8=");
        mod("format.Base64Decode", Map.of("Dictionary", dict)).modulate(m);
        assertThat(m.payloadString()).isEqualTo("hello");
        assertThatThrownBy(() -> mod("format.Base64Encode", Map.of("Dictionary", "abc"))).isInstanceOf(ConfigException.class);
    }
}
