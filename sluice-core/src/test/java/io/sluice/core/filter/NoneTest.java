package io.sluice.core.filter;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** filter.None: Gollum's doc example and test, and the FilteredStream every filter has. */
class NoneTest {
    /** Gollum's doc ("blocks all incoming messages") and TestFilterNone. */
    @Test
    void gollumDocExample_dropsEverything() {
        assertThat(mod("filter.None", Map.of()).modulate(message("x"))).isEqualTo(Result.DROP);
    }

    @Test
    void filteredStreamTakesTheDroppedMessage() {
        Message m = message("x");
        assertThat(mod("filter.None", Map.of("FilteredStream", "quarantine")).modulate(m)).isEqualTo(Result.DROP);
        assertThat(io.sluice.core.message.Streams.name(m.stream())).isEqualTo("quarantine");
    }
}
