package io.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Fuzz target for {@link ConfigLoader} on arbitrary YAML text, as {@code ./sluice -c FILE} reads a file (UTF-8,
 * the plugins on the class path, a small environment for {@code ${VAR}}). The contract: a config loads, or
 * loading throws {@link ConfigException}, which the command line prints with the file and line; anything else
 * (a YAML engine exception that escaped, a stack overflow on deep or self-referencing nodes, a hang on aliases)
 * is a finding.
 */
class ConfigLoaderFuzzTest {
    private static final Map<String, String> ENV = Map.of("HOME", "/home/sluice", "EMPTY", "", "PORT", "8088");

    @FuzzTest(maxDuration = "5m")
    void loadString(byte[] file) {
        String text = new String(file, StandardCharsets.UTF_8);
        ConfigLoader loader = new ConfigLoader(PluginRegistry.defaultRegistry(), ENV);
        try {
            List<PluginConfig> configs = loader.loadString(text, "fuzz.yaml");
            assertThat(configs).isNotNull();
        } catch (ConfigException e) {
            assertThat(e.getMessage()).isNotNull();
        }
    }
}
