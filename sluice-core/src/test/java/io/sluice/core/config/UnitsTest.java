package io.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnitsTest {
    @Test
    void durationsRoundTripThroughTheirShortestSpelling() {
        for (String s : new String[] {"0s", "250ms", "30s", "5m", "2h", "1d", "1500us", "7ns"}) {
            assertThat(Units.formatDuration(Units.parseDuration(s, 1))).isEqualTo(s);
        }
        assertThat(Units.parseDuration("1h30m", 1)).isEqualTo(Duration.ofMinutes(90));
        assertThat(Units.parseDuration("0.5s", 1)).isEqualTo(Duration.ofMillis(500));
        assertThat(Units.parseDuration("-1", 1)).isEqualTo(Duration.ofMillis(-1));
        assertThat(Units.parseDuration("1_000", 1000)).isEqualTo(Duration.ofSeconds(1000));
    }

    @Test
    void sizesRoundTripThroughTheirShortestSpelling() {
        for (String s : new String[] {"64KiB", "2MiB", "1GiB", "3TiB", "1000", "0"}) {
            assertThat(Units.formatSize(Units.parseSize(s))).isEqualTo(s);
        }
        assertThat(Units.parseSize("1.5KiB")).isEqualTo(1536);
        assertThat(Units.parseSize("64 KiB")).isEqualTo(65536);
        assertThatThrownBy(() -> Units.parseSize("1.5")).hasMessageContaining("whole number");
        assertThatThrownBy(() -> Units.parseSize("")).hasMessageContaining("expected a size");
        assertThatThrownBy(() -> Units.parseSize("99999999999TiB")).hasMessageContaining("too large");
        assertThatThrownBy(() -> Units.parseDuration("", 1)).hasMessageContaining("found nothing");
        assertThatThrownBy(() -> Units.parseDuration("ms", 1)).hasMessageContaining("expected a duration");
    }
}
