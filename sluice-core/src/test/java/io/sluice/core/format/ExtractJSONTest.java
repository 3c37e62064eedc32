package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.ExtractJSON: Gollum's doc example and tests, then Sluice's own cases. */
class ExtractJSONTest {
    /** Gollum's doc: Field host, ApplyTo host: the field's JSON is replaced by its host value. */
    @Test
    void gollumDocExample_hostOfTheHostField() {
        Message m = message("payload");
        m.metadata().setString("host", "{\"host\":\"web-1\"}");
        mod("format.ExtractJSON", Map.of("Field", "host", "ApplyTo", "host")).modulate(m);
        assertThat(m.metadata().getString("host")).isEqualTo("web-1");
        assertThat(m.payloadString()).isEqualTo("payload");
    }

    /** Gollum's TestExtractJSON, TestExtractJSONPrecision and TestExtractJSONApplyTo. */
    @Test
    void gollumTests_fieldPrecisionAndApplyTo() {
        assertThat(extract("{\"foo\":\"bar\",\"test\":\"valid\"}", Map.of("Field", "test"))).isEqualTo("valid");
        assertThat(extract("{\"foo\":\"bar\",\"test\":999999999}", Map.of("Field", "test", "Precision", 0)))
                .isEqualTo("999999999");
        Message m = message("{\"foo\":\"bar\"}");
        m.metadata().setString("foo", "{\"foo\":\"bar\",\"test\":\"valid\"}");
        mod("format.ExtractJSON", Map.of("ApplyTo", "foo", "Field", "test")).modulate(m);
        assertThat(m.metadata().getString("foo")).isEqualTo("valid");
        assertThat(m.payloadString()).isEqualTo("{\"foo\":\"bar\"}");
    }

    @Test
    void valuesAsGollumPrintsThem() {
        String doc = "{\"s\":\"  a\\tb \",\"i\":12345678901234567890,\"f\":1.50,\"e\":2.5e3,\"b\":true,\"z\":null,"
                + "\"o\":{\"p\":{\"q\":\"deep\"},\"arr\":[\"x\",\"y\"]}}";
        assertThat(extract(doc, Map.of("Field", "s"))).isEqualTo("a\tb");
        assertThat(extract(doc, Map.of("Field", "s", "TrimValues", false))).isEqualTo("  a\tb ");
        assertThat(extract(doc, Map.of("Field", "i"))).isEqualTo("12345678901234567890");
        assertThat(extract(doc, Map.of("Field", "f"))).isEqualTo("1.5");
        assertThat(extract(doc, Map.of("Field", "e"))).isEqualTo("2500");
        assertThat(extract(doc, Map.of("Field", "f", "Precision", 3))).isEqualTo("1.500");
        assertThat(extract(doc, Map.of("Field", "b"))).isEqualTo("true");
        assertThat(extract(doc, Map.of("Field", "z"))).isEqualTo("<nil>");
        assertThat(extract(doc, Map.of("Field", "o/p/q"))).isEqualTo("deep");
        assertThat(extract(doc, Map.of("Field", "o/arr/1"))).isEqualTo("y");
        assertThat(extract(doc, Map.of("Field", "nope"))).isEqualTo("");
    }

    /**
     * ExtractJSON after ProcessJSON takes its field from ProcessJSON's pending fields; the result must be what
     * it extracts from the object once written (forced here by reading the length in between): strings raw,
     * escaped, split, trimmed or changed by a directive (which the writer must escape), numbers at both
     * precisions, literals, nested values, missing fields, paths, and keys that need escaping.
     */
    @Test
    void fromPendingFieldsEqualsFromTheWrittenObject() {
        String[] docs = {
            ProcessJSONTest.PROFILE,
            "{\"a\":\" x \",\"s\":\"p|q\\\"r\",\"gone\":1,\"n\":-1.50e3,\"i\":12345678901234567890,\"t\":true,"
                    + "\"z\":null,\"o\":{\"p\":[1,\"}\"]},\"arr\":[],\"r\":\" axb \",\"e\":\"\\u00e9\\t \\n\"}",
            "{\"esc\\u0041key\":\"q\\\"b\",\"u\":\"\\ud83d\\ude00 \",\"ünï\":\"中文\",\"k\\\"q\":1,\"dup\":1,\"dup\":\"last\"}",
        };
        String[] fields = {"thisisquitealongstring", "foobar", "foo1", "a", "renamed", "s1", "s2", "s", "gone", "n",
            "i", "t", "z", "o", "o/p/1", "arr", "r", "e", "escAkey", "u", "ünï", "k\"q", "dup", "missing", ""};
        List<String> directives = List.of("test:rename:foobar", "bar:remove", "foo:split:|:foo1:foo2",
                "a:rename:renamed", "s:split:|:s1:s2", "gone:remove", "r:replace:x:\\n");
        for (int both = 0; both < 4; both++) {
            boolean processTrim = (both & 1) != 0;
            boolean trim = (both & 2) != 0;
            Modulator p1 = mod("format.ProcessJSON", Map.of("Directives", directives, "TrimValues", processTrim));
            Modulator p2 = mod("format.ProcessJSON", Map.of("Directives", directives, "TrimValues", processTrim));
            for (String field : fields) {
                for (int precision : new int[] {-1, 2}) {
                    Map<String, Object> settings = Map.of("Field", field, "TrimValues", trim, "Precision", precision);
                    Modulator e1 = mod("format.ExtractJSON", settings);
                    Modulator e2 = mod("format.ExtractJSON", settings);
                    for (String doc : docs) {
                        Message pending = message(doc);
                        Message written = message(doc);
                        p1.modulate(pending);
                        p2.modulate(written);
                        assertThat(pending.pending()).isNotNull();
                        assertThat(written.length()).isPositive();
                        assertThat(e1.modulate(pending)).isEqualTo(e2.modulate(written));
                        assertThat(pending.payloadString()).as("%s from %s (trim %s, %s)", field, doc, processTrim, trim)
                                .isEqualTo(written.payloadString());
                    }
                }
            }
        }
    }

    private static String extract(String doc, Map<String, Object> settings) {
        Message m = message(doc);
        assertThat(mod("format.ExtractJSON", settings).modulate(m)).isEqualTo(Result.CONTINUE);
        return m.payloadString();
    }
}
