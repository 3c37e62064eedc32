package io.sluice.core.filter;

import static io.sluice.core.format.Fixtures.mod;
import static io.sluice.core.format.Fixtures.on;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** filter.Stream: Gollum's doc examples and test. */
class StreamTest {
    /** Gollum's doc: Block foo accepts all but foo; Only foo accepts only foo; Block is checked first. */
    @Test
    void gollumDocExamples_blockThenOnly() {
        Modulator block = mod("filter.Stream", Map.of("Block", List.of("foo")));
        assertThat(block.modulate(on("foo", "x"))).isEqualTo(Result.DROP);
        assertThat(block.modulate(on("other", "x"))).isEqualTo(Result.CONTINUE);
        Modulator only = mod("filter.Stream", Map.of("Only", List.of("foo")));
        assertThat(only.modulate(on("foo", "x"))).isEqualTo(Result.CONTINUE);
        assertThat(only.modulate(on("other", "x"))).isEqualTo(Result.DROP);
        Modulator both = mod("filter.Stream", Map.of("Block", List.of("foo"), "Only", List.of("foo", "bar")));
        assertThat(both.modulate(on("foo", "x"))).isEqualTo(Result.DROP);
        assertThat(both.modulate(on("bar", "x"))).isEqualTo(Result.CONTINUE);
    }

    /** Gollum's TestFilterStream: a stream both blocked and allowed is blocked; Only blocks the rest. */
    @Test
    void gollumTest_blockWinsOverOnly() {
        Modulator both = mod("filter.Stream", Map.of("Block", List.of("one"), "Only", List.of("one")));
        assertThat(both.modulate(on("one", ""))).isEqualTo(Result.DROP);
        assertThat(both.modulate(on("two", ""))).isEqualTo(Result.DROP);
        Modulator only = mod("filter.Stream", Map.of("Only", List.of("one")));
        assertThat(only.modulate(on("one", ""))).isEqualTo(Result.CONTINUE);
        assertThat(only.modulate(on("two", ""))).isEqualTo(Result.DROP);
    }
}
