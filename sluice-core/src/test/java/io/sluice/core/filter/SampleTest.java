package io.sluice.core.filter;

import static io.sluice.core.format.Fixtures.mod;
import static io.sluice.core.format.Fixtures.on;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** filter.Sample: Gollum's doc example and tests, then Sluice's own case. */
class SampleTest {
    /** Gollum's doc: "block 8 from 10 messages", except on the ignored streams. */
    @Test
    void gollumDocExample_passes2of10AndIgnoresStreams() {
        Modulator f = mod("filter.Sample", Map.of("SampleRatePerGroup", 2, "SampleGroupSize", 10, "SampleIgnore", List.of("foo")));
        StringBuilder pattern = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            pattern.append(f.modulate(on("s", "x")) == Result.CONTINUE ? 'P' : '-');
        }
        assertThat(pattern.toString()).isEqualTo("PP--------PP--------");
        assertThat(f.modulate(on("foo", "x"))).isEqualTo(Result.CONTINUE);
        Modulator dflt = mod("filter.Sample", Map.of("SampleRateIgnore", List.of("bar")));
        assertThat(List.of(dflt.modulate(on("s", "x")), dflt.modulate(on("s", "x")), dflt.modulate(on("bar", "x"))))
                .containsExactly(Result.CONTINUE, Result.DROP, Result.CONTINUE);
    }

    /** Gollum's TestFilterSample and TestFilterSampleIgnore. */
    @Test
    void gollumTests_ratesAndIgnore() {
        assertThat(accepted(mod("filter.Sample", Map.of("SampleRatePerGroup", 2, "SampleGroupSize", 5)), "s", 10)).isEqualTo(4);
        assertThat(accepted(mod("filter.Sample", Map.of("SampleGroupSize", 2)), "s", 10)).isEqualTo(5);
        Modulator ignoring = mod("filter.Sample", Map.of("SampleGroupSize", 2, "SampleIgnore", List.of("_GOLLUM_")));
        int internal = 0;
        int other = 0;
        for (int i = 0; i < 10; i++) {
            internal += ignoring.modulate(on("_GOLLUM_", "")) == Result.CONTINUE ? 1 : 0;
            other += ignoring.modulate(on("two", "")) == Result.CONTINUE ? 1 : 0;
        }
        assertThat(internal).isEqualTo(10);
        assertThat(other).isEqualTo(5);
    }

    private static int accepted(Modulator f, String stream, int messages) {
        int n = 0;
        for (int i = 0; i < messages; i++) {
            n += f.modulate(on(stream, "")) == Result.CONTINUE ? 1 : 0;
        }
        return n;
    }

    @Test
    void countIsSharedByTheRoutinesOfOnePlugin() {
        PluginConfig c = PluginConfig.of("s", "filter.Sample", Map.of());
        Modulator a = (Modulator) c.spec().create(c);
        Modulator b = (Modulator) c.spec().create(c);
        assertThat(List.of(a.modulate(on("s", "x")), b.modulate(on("s", "x")), a.modulate(on("s", "x"))))
                .containsExactly(Result.CONTINUE, Result.DROP, Result.CONTINUE);
    }
}
