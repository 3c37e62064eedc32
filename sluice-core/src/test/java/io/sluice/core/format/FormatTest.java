package io.sluice.core.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FormatTest {
    private static Message message(String payload) {
        Batch b = new BatchPool(4).acquire();
        Message m = b.add();
        m.setPayload(payload);
        return m;
    }

    @Test
    void envelopeDefaultsToNewlinePostfix() {
        Envelope e = new Envelope(PluginConfig.of("e", "format.Envelope", Map.of()));
        Message m = message("hello");
        assertThat(e.modulate(m)).isEqualTo(Modulator.Result.CONTINUE);
        assertThat(m.payloadString()).isEqualTo("hello\n");
    }

    @Test
    void envelopeExpandsLiteralEscapesAndGrowsBuffers() {
        Envelope e = new Envelope(PluginConfig.of("e", "format.Envelope", Map.of("Prefix", "<\\t", "Postfix", "\\r\\n")));
        String big = "x".repeat(1000);
        Message m = message(big);
        e.modulate(m);
        assertThat(m.payloadString()).isEqualTo("<\t" + big + "\r\n");
    }

    @Test
    void envelopeAppliesToMetadataField() {
        Envelope e = new Envelope(PluginConfig.of("e", "format.Envelope", Map.of("ApplyTo", "k", "Prefix", "[", "Postfix", "]")));
        Message m = message("payload");
        m.metadata().setString("k", "v");
        e.modulate(m);
        assertThat(m.payloadString()).isEqualTo("payload");
        assertThat(m.metadata().getString("k")).isEqualTo("[v]");
    }

    @Test
    void timestampPrefixesTheMessageTimeInGoLayout() {
        Timestamp t = new Timestamp(PluginConfig.of("t", "format.Timestamp", Map.of()));
        ZonedDateTime when = ZonedDateTime.of(2026, 11, 30, 13, 4, 5, 123_000_000, ZoneId.systemDefault());
        Message m = message("body");
        m.setTimestamp(when.toEpochSecond() * 1_000_000_000L + when.getNano());
        t.modulate(m);
        String expected = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss z").format(when) + " | body";
        assertThat(m.payloadString()).isEqualTo(expected);
        assertThat(m.payloadString()).startsWith("2026-11-30 13:04:05 ");
    }

    @Test
    void timestampCacheFollowsTheClock() {
        Timestamp t = new Timestamp(PluginConfig.of("t", "format.Timestamp", Map.of("Timestamp", "15:04:05.000 ")));
        ZonedDateTime when = ZonedDateTime.of(2026, 1, 2, 3, 4, 5, 0, ZoneId.systemDefault());
        long base = when.toEpochSecond() * 1_000_000_000L;
        Message a = message("a");
        a.setTimestamp(base + 1_000_000);
        Message b = message("b");
        b.setTimestamp(base + 2_000_000);
        Message c = message("c");
        c.setTimestamp(base + 1_000_000_000L);
        t.modulate(a);
        t.modulate(b);
        t.modulate(c);
        assertThat(a.payloadString()).isEqualTo("03:04:05.001 a");
        assertThat(b.payloadString()).isEqualTo("03:04:05.002 b");
        assertThat(c.payloadString()).isEqualTo("03:04:06.000 c");
    }

    @Test
    void goLayoutTranslatesGollumDefaultsAndQuotesLiterals() {
        assertThat(GoLayout.parse("2006-01-02 15:04:05 MST | ").javaPattern()).isEqualTo("yyyy'-'MM'-'dd' 'HH':'mm':'ss' 'z' | '");
        assertThat(GoLayout.parse("2006-01-02T15:04:05.000Z07:00").javaPattern()).isEqualTo("yyyy'-'MM'-'dd'T'HH':'mm':'ss.SSSXXX");
        assertThat(GoLayout.parse("Jan _2 03:04:05PM").javaPattern()).isEqualTo("MMM' 'ppd' 'hh':'mm':'ssa");
        assertThat(GoLayout.parse("it's 15h").javaPattern()).isEqualTo("'it''s 'HH'h'");
        assertThat(GoLayout.parse("05.000000").fractionDigits()).isEqualTo(6);
    }
}
