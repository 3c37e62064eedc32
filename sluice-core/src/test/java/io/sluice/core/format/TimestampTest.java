package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** format.Timestamp: Gollum's doc example and tests, then Sluice's own cases. */
class TimestampTest {
    private static final ZonedDateTime WHEN = ZonedDateTime.of(2026, 11, 30, 13, 4, 5, 123_000_000, ZoneId.systemDefault());

    private static Message at(ZonedDateTime when, String payload) {
        Message m = message(payload);
        m.setTimestamp(when.toEpochSecond() * 1_000_000_000L + when.getNano());
        return m;
    }

    /** Gollum's doc: "set a time string to the meta data field time" (Gollum writes time + source there). */
    @Test
    @Disabled("Sluice's format.Timestamp takes ApplyTo only (no Source/Target): the example's Target: time is an "
            + "unknown key there")
    void gollumDocExample_timeStringIntoTheFieldTime() {
        Message m = at(WHEN, "body");
        mod("format.Timestamp", Map.of("Timestamp", "2006-01-02T15:04:05.000 MST", "Target", "time")).modulate(m);
        assertThat(m.metadata().getString("time"))
                .startsWith(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS z").format(WHEN));
        assertThat(m.payloadString()).isEqualTo("body");
    }

    /** Gollum's TestTimestamp and TestTimestampTarget (ApplyTo: the field gets the timestamp). */
    @Test
    void gollumTests_prefixesPayloadOrSetsAField() {
        String prefix = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss z").format(WHEN) + " | ";
        Message m = at(WHEN, "test");
        mod("format.Timestamp", Map.of()).modulate(m);
        assertThat(m.payloadString()).isEqualTo(prefix + "test").startsWith("2026-11-30 13:04:05 ");
        Message f = at(WHEN, "test");
        mod("format.Timestamp", Map.of("ApplyTo", "foo")).modulate(f);
        assertThat(f.payloadString()).isEqualTo("test");
        assertThat(f.metadata().getString("foo")).isEqualTo(prefix);
    }

    @Test
    void cacheFollowsTheClock() {
        var t = mod("format.Timestamp", Map.of("Timestamp", "15:04:05.000 "));
        ZonedDateTime when = ZonedDateTime.of(2026, 1, 2, 3, 4, 5, 0, ZoneId.systemDefault());
        Message a = at(when.plusNanos(1_000_000), "a");
        Message b = at(when.plusNanos(2_000_000), "b");
        Message c = at(when.plusSeconds(1), "c");
        t.modulate(a);
        t.modulate(b);
        t.modulate(c);
        assertThat(a.payloadString()).isEqualTo("03:04:05.001 a");
        assertThat(b.payloadString()).isEqualTo("03:04:05.002 b");
        assertThat(c.payloadString()).isEqualTo("03:04:06.000 c");
    }
}
