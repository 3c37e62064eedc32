package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code --watch-config}'s baseline: the files as they were before the running config was read. */
@Timeout(60)
class ConfigReloadTest {
    private static final String GEN = "Gen:\n  Type: consumer.Profiler\n  Runs: 100000000\n  KeepRunning: true\n"
            + "  DelayMs: 5\n  Streams: s\n";

    /**
     * A piece added after the config was read but before the watch began (the pipeline starting meanwhile) is
     * applied: the watch compares with the stamps taken before the read, not with the files when it starts.
     */
    @Test
    void aChangeMadeWhileThePipelineStartsIsApplied(@TempDir Path dir) throws Exception {
        Path confD = Files.createDirectories(dir.resolve("conf.d"));
        Files.writeString(confD.resolve("10-gen.yaml"), GEN + "Out:\n  Type: producer.Null\n  Streams: s\n");
        List<Path> files = List.of(confD);
        List<String> loaded = ConfigReload.stamps(files);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Log log = new Log(new PrintStream(err, true, StandardCharsets.UTF_8), Log.INFO);
        Pipeline pipeline = new Pipeline(ConfigLoader.load(files), PluginRegistry.defaultRegistry(), log);
        pipeline.start();
        try {
            Files.writeString(confD.resolve("20-more.yaml"), "More:\n  Type: producer.Null\n  Streams: s\n");
            new ConfigReload(pipeline, () -> ConfigLoader.load(files), files, log).watch(loaded);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!err.toString(StandardCharsets.UTF_8).contains("added [More]")) {
                assertThat(System.nanoTime()).as("the added piece applied; log: " + err).isLessThan(deadline);
                Thread.sleep(20);
            }
        } finally {
            pipeline.stop();
        }
    }
}
