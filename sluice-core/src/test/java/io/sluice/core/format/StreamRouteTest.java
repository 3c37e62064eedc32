package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.mod;
import static io.sluice.core.format.Fixtures.on;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Modulator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.StreamRoute: Gollum's doc example and tests, then Sluice's own cases. */
class StreamRouteTest {
    /** Gollum's doc example: the stream name is what stands in angle brackets before the first ":". */
    private static Modulator angleBracketRoute() {
        return mod("format.StreamRoute", Map.of("Delimiter", ":",
                "StreamModulator", List.of(Map.of("format.Trim", Map.of("LeftSeparator", "<", "RightSeparator", ">")))));
    }

    /** Gollum's doc: "<error>:a message string" goes to stream error with "a message string" as payload. */
    @Test
    void gollumDocExample_prefixInAngleBracketsNamesTheStream() {
        Modulator route = angleBracketRoute();
        Message m = on("in", "<error>:a message string");
        route.modulate(m);
        assertThat(m.payloadString()).isEqualTo("a message string");
        assertThat(Streams.name(m.stream())).isEqualTo("error");
    }

    /** Gollum's TestStreamRoute, ...NoStreamName, ...Format (a StreamModulator) and TestStreamApplyTo. */
    @Test
    void gollumTests_defaultDelimiterEmptyNameModulatedNameAndApplyTo() {
        Message m = on("in", "_GOLLUM_:test");
        mod("format.StreamRoute", Map.of()).modulate(m);
        assertThat(m.payloadString()).isEqualTo("test");
        assertThat(Streams.name(m.stream())).isEqualTo("_GOLLUM_");

        Message noName = on("in", ":test");
        mod("format.StreamRoute", Map.of()).modulate(noName);
        assertThat(noName.payloadString()).isEqualTo("test");
        assertThat(Streams.name(noName.stream())).isEqualTo("in");

        Message named = on("in", "GOLLUM:test");
        mod("format.StreamRoute", Map.of("StreamModulator",
                List.of(Map.of("format.Envelope", Map.of("Prefix", "_", "Postfix", "_"))))).modulate(named);
        assertThat(named.payloadString()).isEqualTo("test");
        assertThat(Streams.name(named.stream())).isEqualTo("_GOLLUM_");

        Message field = on("in", "payload");
        field.metadata().setString("foo", "_GOLLUM_:test");
        mod("format.StreamRoute", Map.of("ApplyTo", "foo")).modulate(field);
        assertThat(field.payloadString()).isEqualTo("payload");
        assertThat(field.metadata().getString("foo")).isEqualTo("test");
        assertThat(Streams.name(field.stream())).isEqualTo("_GOLLUM_");
    }

    @Test
    void withoutDelimiterOrWithAFilteredNameTheStreamStays() {
        Modulator route = angleBracketRoute();
        Message noDelimiter = on("in", "plain");
        route.modulate(noDelimiter);
        assertThat(noDelimiter.payloadString()).isEqualTo("plain");
        assertThat(Streams.name(noDelimiter.stream())).isEqualTo("in");
        Message emptyName = on("in", ":rest");
        route.modulate(emptyName);
        assertThat(emptyName.payloadString()).isEqualTo("rest");
        assertThat(Streams.name(emptyName.stream())).isEqualTo("in");
        Modulator filtered = mod("format.StreamRoute", Map.of("StreamModulator", List.of("filter.None")));
        Message f = on("in", "s:x");
        filtered.modulate(f);
        assertThat(f.payloadString()).isEqualTo("x");
        assertThat(Streams.name(f.stream())).isEqualTo("in");
    }
}
