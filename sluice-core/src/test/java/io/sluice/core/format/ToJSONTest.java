package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.ToJSON: Gollum's doc example and tests, then Sluice's own cases. */
class ToJSONTest {
    private final Modulator json = mod("format.JSON", Map.of());

    private final Modulator toJson = mod("format.ToJSON", Map.of());

    private static final String GOLLUM_TREE = "{\"foo\":\"value1\",\"root\":{\"a\":\"a\",\"b\":5,\"c\":[1,2,3]}}";

    private static String toJson(Map<String, Object> settings, String parsed) {
        Message m = message(parsed);
        assertThat(mod("format.JSON", Map.of()).modulate(m)).isEqualTo(Result.CONTINUE);
        m.setPayload("");
        mod("format.ToJSON", settings).modulate(m);
        return m.payloadString();
    }

    /** Gollum's doc: "transforms all metadata below the foo key to JSON and stores the result as the new payload". */
    @Test
    void gollumDocExample_rootFoo() {
        assertThat(toJson(Map.of("Root", "foo"), "{\"foo\":{\"a\":1,\"b\":\"x\"},\"z\":0}")).isEqualTo("{\"a\":1,\"b\":\"x\"}");
    }

    /** Gollum's TestToJSON, TestToJSONWithIgnore and TestToJSONWithRoot. */
    @Test
    void gollumTests_allIgnoreAndRoot() {
        assertThat(toJson(Map.of(), GOLLUM_TREE)).isEqualTo(GOLLUM_TREE);
        assertThat(toJson(Map.of("Ignore", List.of("root")), GOLLUM_TREE)).isEqualTo("{\"foo\":\"value1\"}");
        assertThat(toJson(Map.of("Root", "root"), GOLLUM_TREE)).isEqualTo("{\"a\":\"a\",\"b\":5,\"c\":[1,2,3]}");
    }

    @Test
    void rootIgnoreAndTarget() {
        Message m = message("{\"tree\":{\"a\":1,\"b\":\"s\"},\"c\":2}");
        json.modulate(m);
        mod("format.ToJSON", Map.of("Root", "tree", "Ignore", List.of("a"))).modulate(m);
        assertThat(m.payloadString()).isEqualTo("{\"b\":\"s\"}");
        mod("format.ToJSON", Map.of("Ignore", List.of("tree"), "Target", "out")).modulate(m);
        assertThat(m.metadata().getString("out")).isEqualTo("{\"c\":2}");
        mod("format.ToJSON", Map.of("Root", "missing")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("null");
        Message empty = message("x");
        toJson.modulate(empty);
        assertThat(empty.payloadString()).isEqualTo("{}");
    }

    @Test
    void escapesValuesSetByOtherFormatters() {
        Message m = message("x");
        m.metadata().setString("msg", "say \"hi\"\n");
        toJson.modulate(m);
        assertThat(m.payloadString()).isEqualTo("{\"msg\":\"say \\\"hi\\\"\\n\"}");
    }

    /** Gollum's "json" profile chain (JSON, Move, Delete, SplitToFields, Copy), written back by ToJSON. */
    @Test
    void profileChainWrittenBack() {
        Message m = message("{\"test\":\"T\",\"foo\":\"a|b\",\"bar\":\"B\",\"thisisquitealongstring\":\"L\"}");
        mod("format.JSON", Map.of()).modulate(m);
        mod("format.Move", Map.of("Source", "test", "Target", "foobar")).modulate(m);
        mod("format.Delete", Map.of("Target", "bar")).modulate(m);
        mod("format.SplitToFields", Map.of("Source", "foo", "Delimiter", "|", "Fields", List.of("foo1", "foo2"))).modulate(m);
        mod("format.Copy", Map.of("Source", "thisisquitealongstring")).modulate(m);
        Metadata md = m.metadata();
        assertThat(m.payloadString()).isEqualTo("L");
        assertThat(md.toString()).isEqualTo("{foobar=T, foo=a|b, thisisquitealongstring=L, foo1=a, foo2=b}");
        mod("format.ToJSON", Map.of()).modulate(m);
        assertThat(m.payloadString()).isEqualTo(
                "{\"foobar\":\"T\",\"foo\":\"a|b\",\"thisisquitealongstring\":\"L\",\"foo1\":\"a\",\"foo2\":\"b\"}");
    }
}
