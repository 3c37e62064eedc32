package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.format;
import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.Trim (Gollum 0.5's, with separators and offsets): Gollum's doc example and tests, then Sluice's. */
class TrimTest {
    /** Gollum's doc: "reduce data like foo[bar[foo]bar]foo to bar[foo]bar". */
    @Test
    void gollumDocExample_betweenTheOuterBrackets() {
        assertThat(format("format.Trim", Map.of("LeftSeparator", "[", "RightSeparator", "]"), "foo[bar[foo]bar]foo"))
                .isEqualTo("bar[foo]bar");
    }

    /** Gollum's TestFormatterTrim, TestFormatterTrimWithSpaces and TestFormatterTrimApplyTo. */
    @Test
    void gollumTests_pipesSpacesAndApplyTo() {
        assertThat(format("format.Trim", Map.of("LeftSeparator", "|", "RightSeparator", "|"), "|foo bar foobar|"))
                .isEqualTo("foo bar foobar");
        assertThat(format("format.Trim", Map.of("LeftSeparator", " ", "RightSeparator", "  "), " foo bar foobar  "))
                .isEqualTo("foo bar foobar");
        Message m = message("|foo bar foobar|");
        m.metadata().setString("foo", "|foo bar foobar|second foo bar|");
        mod("format.Trim", Map.of("LeftSeparator", "|", "RightSeparator", "|", "ApplyTo", "foo")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("|foo bar foobar|");
        assertThat(m.metadata().getString("foo")).isEqualTo("foo bar foobar|second foo bar");
    }

    @Test
    void longerSeparatorsAndOffsets() {
        assertThat(format("format.Trim", Map.of("LeftSeparator", "<<", "RightSeparator", ">>"), "<<x>>")).isEqualTo("x");
        assertThat(format("format.Trim", Map.of("LeftOffset", 1, "RightOffset", 2), "abcdef")).isEqualTo("bcd");
        assertThat(format("format.Trim", Map.of("LeftOffset", 5, "RightOffset", 5), "ab")).isEqualTo("");
        assertThat(format("format.Trim", Map.of("LeftSeparator", "{", "RightSeparator", "}"), "{\"a\":1}"))
                .isEqualTo("\"a\":1");
    }
}
