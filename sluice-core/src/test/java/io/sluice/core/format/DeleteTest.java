package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.Delete: Gollum's doc example and test (which were also Sluice's own cases). */
class DeleteTest {
    /** Gollum's doc: "removes the pipe key from the metadata produced by consumer.Console". */
    @Test
    void gollumDocExample_removesThePipeKey() {
        Message m = message("line");
        m.metadata().setString("pipe", "stdin");
        mod("format.Delete", Map.of("Target", "pipe")).modulate(m);
        assertThat(m.metadata().indexOf("pipe")).isEqualTo(-1);
        assertThat(m.payloadString()).isEqualTo("line");
    }

    /** Gollum's TestDeleteFormatter: without a target the payload is erased. */
    @Test
    void gollumTest_erasesThePayload() {
        Message m = message("test");
        mod("format.Delete", Map.of()).modulate(m);
        assertThat(m.payloadString()).isEmpty();
    }
}
