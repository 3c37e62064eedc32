package io.sluice.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.testing.PipelineHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The example users copy loads, validates and builds; both plugins are found through ServiceLoader. */
class ExampleConfigTest {
    @Test
    void forwardToConsoleExampleIsValid() {
        Path example = null;
        for (Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.exists(d.resolve("examples/forward-to-console.yaml"))) {
                example = d.resolve("examples/forward-to-console.yaml");
                break;
            }
        }
        assertThat(example).as("examples/forward-to-console.yaml").isNotNull();
        PluginRegistry r = PluginRegistry.defaultRegistry();
        assertThat(r.find("consumer.Forward")).isNotNull();
        assertThat(r.find("producer.Forward")).isNotNull();
        List<PluginConfig> configs = new ConfigLoader(r, Map.of()).loadFile(example);
        assertThat(configs).extracting(PluginConfig::type).contains("consumer.Forward", "producer.Console");
        new Pipeline(configs, r, PipelineHarness.quietLog());
    }
}
