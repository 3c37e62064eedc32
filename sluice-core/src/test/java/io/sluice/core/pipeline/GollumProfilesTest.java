package io.sluice.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.consumer.Profiler;
import io.sluice.core.producer.Benchmark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Gollum's performance profiles, unchanged, run to completion and deliver every generated message. */
class GollumProfilesTest {
    @ParameterizedTest
    @ValueSource(strings = {"raw", "format", "multi", "json", "json_v05"})
    void profileRunsToCompletionAndDeliversEverything(String name) throws Exception {
        List<PluginConfig> configs = new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of())
                .loadFile(Path.of("../examples/gollum/profile_" + name + ".conf"));
        long expected = 0;
        for (PluginConfig c : configs) {
            if (c.type().equals("consumer.Profiler")) {
                expected += (long) c.get(Profiler.RUNS) * c.get(Profiler.BATCHES);
            }
        }
        Pipeline p = new Pipeline(configs, PluginRegistry.defaultRegistry(), PipelineHarness.quietLog());
        p.start();
        assertThat(p.awaitTermination(120, TimeUnit.SECONDS)).as("profile " + name + " ended by itself").isTrue();
        Benchmark bench = PipelineHarness.producer(p, "Benchmark");
        assertThat(bench.delivered()).isEqualTo(expected);
        assertThat(p.unroutedDiscarded()).isZero();
    }
}
