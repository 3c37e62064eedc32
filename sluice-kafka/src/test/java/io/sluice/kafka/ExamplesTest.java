package io.sluice.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.testing.PipelineHarness;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Kafka example configs validate and build with the plugins that exist (no broker is contacted). */
class ExamplesTest {
    @Test
    void agentAndAggregatorExamplesBuild() {
        for (String name : List.of("kafka-agent.yaml", "kafka-aggregator.yaml")) {
            Path file = Path.of("..", "examples", name);
            List<PluginConfig> configs = new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of()).loadFile(file);
            assertThat(configs).as(name).isNotEmpty();
            // Building creates every plugin (client properties included) without starting anything.
            new Pipeline(configs, PluginRegistry.defaultRegistry(), PipelineHarness.quietLog());
        }
    }
}
