package io.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TypedParamsTest {
    enum Mode {
        BLOCK, DROP_NEWEST;

        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static final Param<String> COLOUR = Param.choice("Colour", "red", "Paint.", "red", "green", "blue");
    static final Param<Mode> MODE = Param.choice("Mode", Mode.BLOCK, "When full.");
    static final Param<Integer> FLUSH = Param.millis("Flush", 1000, "Flush period.").between(10, 3_600_000);
    static final Param<Integer> WAIT_MS = Param.millis("WaitMs", 250, "Wait.");
    static final Param<Integer> POLL_SEC = Param.seconds("PollSec", 3, "Poll.");
    static final Param<Long> MAX = Param.size("Max", 1L << 20, "Cap.");
    static final Param<Integer> CHUNK = Param.sizeInt("Chunk", 64 << 10, "Chunk.").atLeast(1024);
    static final Param<Integer> WORKERS = Param.integer("Workers", 2, "Threads.").between(1, 64);
    static final Param<Integer> OLD_WAIT_MS = Param.millis("OldWaitMs", 250, "Wait.").deprecatedFor(WAIT_MS);
    /** A plugin's own key with its own default, deprecated for a shared group's (as HEC's RetryInitialMs). */
    static final Param<Integer> OWN_WAIT_MS = Param.millis("OwnWaitMs", 900, "Wait.").deprecatedFor(WAIT_MS);

    static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Typed", "A test plugin.")
            .params(COLOUR, MODE, FLUSH, WAIT_MS, POLL_SEC, MAX, CHUNK, WORKERS, OLD_WAIT_MS, OWN_WAIT_MS)
            .factory(c -> null);

    static PluginConfig config(Map<String, Object> settings) {
        return PluginConfig.of("t", SPEC, settings);
    }

    @Test
    void choicesMatchCaseInsensitivelyAndReadBackInTheDeclaredSpelling() {
        PluginConfig c = config(Map.of("Colour", "GREEN", "Mode", "Drop_Newest"));
        assertThat(c.get(COLOUR)).isEqualTo("green");
        assertThat(c.get(MODE)).isSameAs(Mode.DROP_NEWEST);
        assertThat(config(Map.of()).get(MODE)).isSameAs(Mode.BLOCK);
    }

    @Test
    void aWrongChoiceListsTheChoicesAndSuggestsTheNearest() {
        assertThatThrownBy(() -> config(Map.of("Colour", "gren")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("key 'Colour'")
                .hasMessageContaining("expected one of red, green, blue, found 'gren'")
                .hasMessageContaining("did you mean 'green'");
    }

    @Test
    void listShowsChoicesUnitsAndRanges() {
        assertThat(COLOUR.doc()).isEqualTo("Paint. One of: red, green, blue.");
        assertThat(MODE.doc()).endsWith("One of: block, drop_newest.");
        assertThat(FLUSH.doc()).contains("Takes 500ms").contains("Range: from 10ms to 1h.");
        assertThat(FLUSH.defaultText()).isEqualTo("1000");
        assertThat(MAX.defaultText()).isEqualTo("1MiB");
        assertThat(WORKERS.doc()).endsWith("Range: from 1 to 64.");
    }

    @Test
    void durationsTakeUnitsAndBareNumbersKeepTheKeysUnit() {
        PluginConfig c = config(Map.of("Flush", "1m30s", "WaitMs", "2.5s", "PollSec", "90"));
        assertThat(c.get(FLUSH)).isEqualTo(90_000);
        assertThat(c.get(WAIT_MS)).isEqualTo(2500);
        assertThat(c.get(POLL_SEC)).isEqualTo(90);
        assertThat(config(Map.of("WaitMs", 1200)).get(WAIT_MS)).isEqualTo(1200);
        assertThat(config(Map.of("Flush", 500)).get(FLUSH)).isEqualTo(500);
        assertThat(config(Map.of("PollSec", "2m")).get(POLL_SEC)).isEqualTo(120);
    }

    @Test
    void sizesTakeIecAndSiUnits() {
        assertThat(config(Map.of("Max", "2MiB")).get(MAX)).isEqualTo(2L << 20);
        assertThat(config(Map.of("Max", "10MB")).get(MAX)).isEqualTo(10_000_000L);
        assertThat(config(Map.of("Max", "1g")).get(MAX)).isEqualTo(1L << 30);
        assertThat(config(Map.of("Max", 4096)).get(MAX)).isEqualTo(4096L);
        assertThat(config(Map.of("Chunk", "8KiB")).get(CHUNK)).isEqualTo(8192);
    }

    @Test
    void valuesOutOfRangeOrMalformedAreConfigErrors() {
        assertThatThrownBy(() -> config(Map.of("Flush", "5ms"))).hasMessageContaining("out of range: from 10ms to 1h");
        assertThatThrownBy(() -> config(Map.of("Workers", 0))).hasMessageContaining("out of range: from 1 to 64");
        assertThatThrownBy(() -> config(Map.of("Chunk", "1000"))).hasMessageContaining("at least 1KiB");
        assertThatThrownBy(() -> config(Map.of("WaitMs", "soon"))).hasMessageContaining("expected a duration");
        assertThatThrownBy(() -> config(Map.of("WaitMs", "3 fortnights"))).hasMessageContaining("expected a duration");
        assertThatThrownBy(() -> config(Map.of("WaitMs", "3w"))).hasMessageContaining("unknown duration unit 'w'");
        assertThatThrownBy(() -> config(Map.of("Max", "12 parsecs"))).hasMessageContaining("unknown size unit");
        assertThatThrownBy(() -> config(Map.of("Chunk", "4GiB"))).hasMessageContaining("out of range for an integer");
    }

    @Test
    void aDeprecatedKeyIsReadThroughItsReplacementAndWarned() {
        PluginConfig old = config(Map.of("OldWaitMs", "700"));
        assertThat(old.get(WAIT_MS)).isEqualTo(700);
        assertThat(old.deprecations()).containsExactly(
                "t: OldWaitMs is deprecated and goes in the next release; use WaitMs");
        PluginConfig both = config(Map.of("OldWaitMs", "700", "WaitMs", "800"));
        assertThat(both.get(WAIT_MS)).isEqualTo(800);
    }

    @Test
    void aGroupKeyReplacingAPluginsOwnKeepsTheOwnDefaultUntilOneIsSet() {
        assertThat(config(Map.of()).groupOrOwn(WAIT_MS, OWN_WAIT_MS)).isEqualTo(900);
        assertThat(config(Map.of("WaitMs", "2s")).groupOrOwn(WAIT_MS, OWN_WAIT_MS)).isEqualTo(2000);
        assertThat(config(Map.of("OwnWaitMs", "50")).groupOrOwn(WAIT_MS, OWN_WAIT_MS)).isEqualTo(50);
        assertThat(config(Map.of("OwnWaitMs", "50", "WaitMs", "2s")).groupOrOwn(WAIT_MS, OWN_WAIT_MS)).isEqualTo(2000);
    }

    @Test
    void aDefaultOutsideTheChoicesIsAProgrammingError() {
        assertThatThrownBy(() -> Param.choice("X", "purple", "doc", "red", "green"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
