package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.Override (class OverrideValue): Gollum's doc example, then Sluice's own case. */
class OverrideValueTest {
    /** Gollum's doc: "sets the value foo on the key bar". */
    @Test
    void gollumDocExample_setsFooOnBar() {
        Message m = message("x");
        mod("format.Override", Map.of("Target", "bar", "Value", "foo")).modulate(m);
        assertThat(m.metadata().getString("bar")).isEqualTo("foo");
        assertThat(m.payloadString()).isEqualTo("x");
    }

    @Test
    void withoutTargetSetsThePayload() {
        Message m = message("x");
        mod("format.Override", Map.of("Value", "new")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("new");
    }
}
