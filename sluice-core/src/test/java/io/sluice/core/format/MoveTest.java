package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.Move: Gollum's doc example and tests, then Sluice's own cases. */
class MoveTest {
    /** Gollum's doc: "moves the payload produced by consumer.Console to the metadata key data". */
    @Test
    void gollumDocExample_payloadToTheKeyData() {
        Message m = message("a console line");
        mod("format.Move", Map.of("Target", "data")).modulate(m);
        assertThat(m.payloadString()).isEmpty();
        assertThat(m.metadata().getString("data")).isEqualTo("a console line");
    }

    /** Gollum's TestMoveFormatterMetadata: a field moves to another; the source key is gone. */
    @Test
    void gollumTest_fieldToField() {
        Message m = message("payload");
        m.metadata().setString("foo", "test");
        mod("format.Move", Map.of("Source", "foo", "Target", "bar")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("payload");
        assertThat(m.metadata().getString("bar")).isEqualTo("test");
        assertThat(m.metadata().indexOf("foo")).isEqualTo(-1);
    }

    @Test
    void payloadToFieldAndBackKeepsKinds() {
        Message m = message("hello");
        mod("format.Move", Map.of("Target", "data")).modulate(m);
        assertThat(m.length()).isZero();
        assertThat(m.metadata().getString("data")).isEqualTo("hello");
        mod("format.Move", Map.of("Source", "data")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("hello");
        assertThat(m.metadata().indexOf("data")).isEqualTo(-1);
        mod("format.Move", Map.of("Source", "absent", "Target", "t")).modulate(m);
        assertThat(m.metadata().getString("t")).isEmpty();
        Message n = message("{\"num\":42}");
        mod("format.JSON", Map.of()).modulate(n);
        mod("format.Move", Map.of("Source", "num", "Target", "n2")).modulate(n);
        assertThat(n.metadata().kind(n.metadata().indexOf("n2"))).isEqualTo(Metadata.NUMBER);
    }
}
