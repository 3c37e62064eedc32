package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.Flatten: Gollum's doc example and test, then Sluice's own cases. */
class FlattenTest {
    private static Message parsed(String json) {
        Message m = message(json);
        assertThat(mod("format.JSON", Map.of()).modulate(m)).isEqualTo(Result.CONTINUE);
        return m;
    }

    /** Gollum's doc: "A key /tree/a/b will become /tree.a.b". */
    @Test
    void gollumDocExample_treeABBecomesTreeDotADotB() {
        Message m = parsed("{\"tree\":{\"a\":{\"b\":\"x\"}}}");
        mod("format.Flatten", Map.of("Source", "tree")).modulate(m);
        assertThat(m.metadata().getString("tree.a.b")).isEqualTo("x");
    }

    /** Gollum's TestFlatten: strings, arrays and nested maps below root. */
    @Test
    void gollumTest_stringsArraysAndMaps() {
        Message m = parsed("{\"root\":{\"a\":\"test\",\"b\":[\"1\",\"2\",\"3\"],\"c\":{\"a\":\"test\"}}}");
        mod("format.Flatten", Map.of("Source", "root")).modulate(m);
        assertThat(m.payloadString()).startsWith("{\"root\"");
        assertThat(m.metadata().getString("root.a")).isEqualTo("test");
        assertThat(m.metadata().getString("root.b")).isEqualTo("[\"1\",\"2\",\"3\"]");
        assertThat(m.metadata().getString("root.c.a")).isEqualTo("test");
    }

    @Test
    void separatorTargetAndNonObjects() {
        Message m = parsed("{\"tree\":{\"a\":{\"b\":1,\"c\":\"s\\\"q\"},\"arr\":[1,2]},\"other\":0}");
        assertThat(mod("format.Flatten", Map.of("Source", "tree")).modulate(m)).isEqualTo(Result.CONTINUE);
        Metadata md = m.metadata();
        assertThat(md.getString("tree.a.b")).isEqualTo("1");
        assertThat(md.getString("tree.a.c")).isEqualTo("s\"q");
        assertThat(md.getString("tree.arr")).isEqualTo("[1,2]");
        assertThat(md.indexOf("tree")).isGreaterThanOrEqualTo(0);
        mod("format.Flatten", Map.of("Source", "tree", "Separator", "/", "Target", "flat")).modulate(m);
        assertThat(md.getString("flat")).isEqualTo("{\"tree/a/b\":1,\"tree/a/c\":\"s\\\"q\",\"tree/arr\":[1,2]}");
        assertThat(mod("format.Flatten", Map.of("Source", "other")).modulate(m)).isEqualTo(Result.DROP);
        assertThatThrownBy(() -> mod("format.Flatten", Map.of())).isInstanceOf(ConfigException.class);
    }
}
