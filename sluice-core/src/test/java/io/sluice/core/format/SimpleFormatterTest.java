package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The settings every formatter shares (Gollum's core.SimpleFormatter): Source, Target, ApplyTo, SkipIfEmpty. */
class SimpleFormatterTest {
    @Test
    void skipIfEmptyLeavesEmptyOrMissingSourcesAlone() {
        Message m = message("");
        mod("format.Override", Map.of("Value", "v", "SkipIfEmpty", true)).modulate(m);
        assertThat(m.length()).isZero();
        mod("format.Copy", Map.of("Source", "missing", "Target", "t", "SkipIfEmpty", true)).modulate(m);
        assertThat(m.metadata().indexOf("t")).isEqualTo(-1);
    }

    @Test
    void applyToSetsSourceAndTargetUnlessOneIsSet() {
        Message m = message("p");
        m.metadata().setString("f", "abc");
        mod("format.Replace", Map.of("ApplyTo", "f", "Search", "b", "ReplaceWith", "B")).modulate(m);
        assertThat(m.metadata().getString("f")).isEqualTo("aBc");
        assertThat(m.payloadString()).isEqualTo("p");
        mod("format.Replace", Map.of("ApplyTo", "f", "Target", "g", "Search", "p", "ReplaceWith", "P")).modulate(m);
        assertThat(m.metadata().getString("g")).isEqualTo("P");
    }
}
