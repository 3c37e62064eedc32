package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The plugin reference in docs/plugins is exactly what the declarations render, and every example validates. */
class PluginDocsTest {
    private static final Path DOCS = Path.of("..", "docs", "plugins");
    private static final String UPDATE = "run `java -jar sluice-cli/target/sluice.jar docs` (or ./sluice docs) to write them anew";

    @Test
    void thePagesInTheRepositoryAreNotStale() throws Exception {
        Map<String, String> pages = PluginDocs.render(PluginRegistry.defaultRegistry());
        List<String> stale = new ArrayList<>();
        for (Map.Entry<String, String> e : pages.entrySet()) {
            Path file = DOCS.resolve(e.getKey());
            if (!Files.exists(file) || !Files.readString(file, StandardCharsets.UTF_8).equals(e.getValue())) {
                stale.add(e.getKey());
            }
        }
        try (Stream<Path> files = Files.list(DOCS)) {
            files.map(f -> f.getFileName().toString()).filter(n -> !pages.containsKey(n)).forEach(n -> stale.add(n + " (no such plugin)"));
        }
        assertThat(stale).as("stale plugin pages in docs/plugins: " + UPDATE).isEmpty();
    }

    @Test
    void everyExampleIsAConfigThatValidates() {
        PluginRegistry registry = PluginRegistry.defaultRegistry();
        List<String> failing = new ArrayList<>();
        for (PluginSpec spec : registry.all()) {
            String config = PluginDocs.example(spec);
            if (spec.kind() != PluginKind.PRODUCER) {
                config += "\"Sink\":\n    Type: \"producer.Null\"\n    Streams: [\"logs\", \"archive\", \"alerts\"]\n";
            }
            if (spec.kind() == PluginKind.PRODUCER || spec.kind() == PluginKind.ROUTER) {
                config += "\"Source\":\n    Type: \"consumer.Console\"\n    Streams: \"logs\"\n";
            }
            try {
                new Pipeline(new ConfigLoader(registry, Map.of("HEC_TOKEN", "t")).loadString(config, "example.yaml"), registry,
                        new Log(new PrintStream(OutputStream.nullOutputStream()), Log.ERROR));
            } catch (RuntimeException e) {
                failing.add(spec.type() + ": " + e.getMessage());
            }
        }
        assertThat(failing).as("plugin examples that do not validate").isEmpty();
    }
}
