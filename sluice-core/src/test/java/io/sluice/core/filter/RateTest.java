package io.sluice.core.filter;

import static io.sluice.core.format.Fixtures.mod;
import static io.sluice.core.format.Fixtures.on;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** filter.Rate, on a clock the test moves: Gollum's doc example and tests. */
class RateTest {
    /** Gollum's doc: "accept ~10 messages in a second except the noLimit stream"; routines share the window. */
    @Test
    void gollumDocExample_tenASecondExceptNoLimit() {
        AtomicLong now = new AtomicLong(0);
        PluginConfig c = PluginConfig.of("r", "filter.Rate", Map.of("MessagesPerSec", 10, "Ignore", List.of("noLimit")));
        Rate a = new Rate(c, now::get);
        Rate b = new Rate(c, now::get); // a second routine of the same plugin shares the window
        int passed = 0;
        for (int i = 0; i < 30; i++) {
            passed += (i % 2 == 0 ? a : b).modulate(on("limited", "x")) == Result.CONTINUE ? 1 : 0;
        }
        assertThat(passed).isEqualTo(10);
        assertThat(a.modulate(on("other", "x"))).isEqualTo(Result.CONTINUE);
        for (int i = 0; i < 30; i++) {
            assertThat(a.modulate(on("noLimit", "x"))).isEqualTo(Result.CONTINUE);
        }
        now.set(1_500_000_000L);
        assertThat(a.modulate(on("limited", "x"))).isEqualTo(Result.CONTINUE);
        assertThat(mod("filter.Rate", Map.of()).modulate(on("dflt", "x"))).isEqualTo(Result.CONTINUE);
    }

    /** Gollum's TestFilterRate and TestFilterRateIgnore: 100 a second per stream, again after a second. */
    @Test
    void gollumTests_perStreamWindowAndIgnore() {
        AtomicLong now = new AtomicLong(0);
        Rate r = new Rate(PluginConfig.of("r", "filter.Rate", Map.of("MessagesPerSec", 100, "Ignore", List.of("_GOLLUM_"))), now::get);
        for (int second = 0; second < 2; second++) {
            now.set(second * 1_500_000_000L); // Gollum sleeps a second after the first 100 ms
            for (int i = 0; i < 110; i++) {
                Result expected = i < 100 ? Result.CONTINUE : Result.DROP;
                assertThat(r.modulate(on("one", ""))).as("message %d, second %d", i, second).isEqualTo(expected);
                assertThat(r.modulate(on("two", ""))).as("message %d, second %d", i, second).isEqualTo(expected);
                assertThat(r.modulate(on("_GOLLUM_", ""))).isEqualTo(Result.CONTINUE);
            }
        }
    }
}
