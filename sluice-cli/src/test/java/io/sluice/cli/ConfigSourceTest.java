package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.PluginConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigSourceTest {
    private static final String GEN = "Gen:\n  Type: consumer.Profiler\n  Streams: s\n";
    private static final String OUT = "Out:\n  Type: producer.Null\n  Streams: s\n";

    /** What a reload relies on: each load reads the pieces as they are now, a file added to the directory too. */
    @Test
    void everyLoadReadsThePiecesAgain(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a.yaml"), "MemoryLimit: 32m\n" + GEN + OUT);
        ConfigSource source = ConfigSource.of(List.of(dir));
        assertThat(source.load()).extracting(PluginConfig::id).containsExactly("Gen", "Out");
        assertThat(source.memoryLimit()).isEqualTo(32L << 20);
        Files.writeString(dir.resolve("a.yaml"), GEN + OUT);
        Files.writeString(dir.resolve("b.yaml"), "More:\n  Type: producer.Null\n  Streams: s\n");
        assertThat(source.load()).extracting(PluginConfig::id).containsExactly("Gen", "Out", "More");
        assertThat(source.memoryLimit()).isNull();
        assertThat(source.paths()).containsExactly(dir);
        assertThat(source).hasToString(dir.toString());
    }

    @Test
    void theQuickstartIsTheEmbeddedExample() throws Exception {
        ConfigSource quickstart = ConfigSource.quickstart();
        assertThat(quickstart.load()).isNotEmpty();
        assertThat(quickstart.paths()).isEmpty();
        assertThat(quickstart).hasToString("examples/quickstart.yaml");
    }
}
