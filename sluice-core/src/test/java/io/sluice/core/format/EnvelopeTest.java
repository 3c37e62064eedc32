package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.format;
import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.Envelope: Gollum's doc example and tests, then Sluice's own cases. */
class EnvelopeTest {
    /**
     * Gollum's doc: format.Sequence then format.Envelope "adds a line number and a newline character"; Sluice has
     * no format.Sequence, so this is the Envelope half: the default Postfix is a newline.
     */
    @Test
    void gollumDocExample_defaultsToANewlinePostfix() {
        Message m = message("hello");
        assertThat(mod("format.Envelope", Map.of()).modulate(m)).isEqualTo(Modulator.Result.CONTINUE);
        assertThat(m.payloadString()).isEqualTo("hello\n");
    }

    /** Gollum's TestEnvelope and TestEnvelopeApplyTo. */
    @Test
    void gollumTests_prefixPostfixAndApplyTo() {
        assertThat(format("format.Envelope", Map.of("Prefix", "start ", "Postfix", " end"), "test"))
                .isEqualTo("start test end");
        Message m = message("test");
        m.metadata().setString("foo", "bar");
        mod("format.Envelope", Map.of("ApplyTo", "foo", "Prefix", "start ", "Postfix", " end")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("test");
        assertThat(m.metadata().getString("foo")).isEqualTo("start bar end");
    }

    @Test
    void expandsLiteralEscapesAndGrowsBuffers() {
        String big = "x".repeat(1000);
        assertThat(format("format.Envelope", Map.of("Prefix", "<\\t", "Postfix", "\\r\\n"), big))
                .isEqualTo("<\t" + big + "\r\n");
    }
}
