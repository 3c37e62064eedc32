package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.ReloadResult;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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

    /** A reload of a directory: a piece added starts its plugin, a piece that repeats an id is refused naming both. */
    @Test
    @Timeout(60)
    void aReloadOfADirectoryStartsANewPieceAndRefusesADuplicateId(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("10-gen.yaml"), "Gen:\n  Type: consumer.Profiler\n  Runs: 100000000\n"
                + "  KeepRunning: true\n  DelayMs: 1\n  Streams: s\n");
        Files.writeString(dir.resolve("20-out.yaml"), OUT);
        ConfigSource source = ConfigSource.of(List.of(dir));
        Pipeline pipeline = new Pipeline(source.load(), PluginRegistry.defaultRegistry(),
                new Log(new PrintStream(OutputStream.nullOutputStream()), Log.ERROR));
        pipeline.start();
        try {
            Files.writeString(dir.resolve("30-more.yaml"), "More:\n  Type: producer.Null\n  Streams: s\n");
            ReloadResult added = pipeline.reload(source::load);
            assertThat(added.ok()).as(added.summary()).isTrue();
            assertThat(added.added()).containsExactly("More");
            assertThat(added.kept()).isEqualTo(2);

            Path dup = Files.writeString(dir.resolve("40-dup.yaml"), OUT);
            ReloadResult refused = pipeline.reload(source::load);
            assertThat(refused.ok()).isFalse();
            assertThat(refused.error()).contains(dup + ":2: plugin 'Out': defined twice: first at "
                    + dir.resolve("20-out.yaml") + ":2");
        } finally {
            pipeline.stop();
            pipeline.awaitTermination();
        }
    }

    @Test
    void theQuickstartIsTheEmbeddedExample() throws Exception {
        ConfigSource quickstart = ConfigSource.quickstart();
        assertThat(quickstart.load()).isNotEmpty();
        assertThat(quickstart.paths()).isEmpty();
        assertThat(quickstart).hasToString("examples/quickstart.yaml");
    }
}
