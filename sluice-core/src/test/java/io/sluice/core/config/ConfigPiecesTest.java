package io.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.consumer.Profiler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A config in pieces: several files, or a directory of them, merged by {@link ConfigLoader#loadPaths}. */
class ConfigPiecesTest {
    private static final String GEN = "Gen:\n  Type: consumer.Profiler\n  Streams: s\n";
    private static final String OUT = "Out:\n  Type: producer.Null\n  Streams: s\n";

    @TempDir
    Path dir;

    private final ConfigLoader loader = new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of("RUNS", "42"));

    private Path write(String name, String yaml) throws Exception {
        Path f = dir.resolve(name);
        Files.createDirectories(f.getParent());
        return Files.writeString(f, yaml);
    }

    @Test
    void piecesMergeIntoOnePipelineWhoseStreamsAreCheckedAcrossFiles() throws Exception {
        // alone, in.yaml writes a stream nobody reads; with out.yaml it is a pipeline
        Path in = write("in.yaml", GEN + "  Runs: ${RUNS}\n");
        Path out = write("out.yaml", OUT);
        assertThatThrownBy(() -> loader.loadPaths(List.of(in))).hasMessageContaining("no producer reads it");
        List<PluginConfig> configs = loader.loadPaths(List.of(in, out));
        assertThat(configs).extracting(PluginConfig::id).containsExactly("Gen", "Out");
        assertThat(configs.get(0).get(Profiler.RUNS)).isEqualTo(42);
        assertThat(configs).extracting(PluginConfig::file).containsExactly(in.toString(), out.toString());
    }

    @Test
    void aDirectoryIsItsYamlFilesSortedByNameNotRecursively() throws Exception {
        write("conf.d/20-out.yml", OUT);
        write("conf.d/10-gen.yaml", GEN);
        write("conf.d/30-more.YAML", "More:\n  Type: producer.Null\n  Streams: s\n");
        write("conf.d/README.md", "not a config");
        write("conf.d/.10-gen.yaml.swp", "Bad: [");
        write("conf.d/.hidden.yaml", "Bad: [");
        write("conf.d/10-gen.test.yaml", "Tests: []"); // sluice test's file, next to the config it tests
        write("conf.d/sub/40-nested.yaml", "Nested:\n  Type: producer.Null\n  Streams: s\n");
        List<PluginConfig> configs = loader.loadPaths(List.of(dir.resolve("conf.d")));
        assertThat(configs).extracting(PluginConfig::id).containsExactly("Gen", "Out", "More");
        assertThat(configs.get(1).file()).endsWith("20-out.yml");
        assertThat(loader.loadFile(dir.resolve("conf.d"))).hasSize(3);
    }

    @Test
    void anIdDefinedInTwoFilesNamesBothFilesAndLines() throws Exception {
        Path a = write("a.yaml", GEN + OUT);
        Path b = write("b.yaml", "# the same id again\n\n" + OUT);
        assertThatThrownBy(() -> loader.loadPaths(List.of(a, b)))
                .isInstanceOf(ConfigException.class)
                // a plugin's line is its first setting's, as in every other error about the plugin as a whole
                .hasMessageContaining(b + ":4: plugin 'Out': defined twice: first at " + a + ":5");
    }

    @Test
    void anAggregatePluginWithTheIdOfAnotherPluginIsRefusedToo() {
        assertThatThrownBy(() -> loader.loadString(GEN + OUT + "Agg:\n  Type: Aggregate\n  Streams: s\n  Plugins:\n"
                + "    Out:\n      Type: producer.Null\n", "one.yaml"))
                .hasMessageContaining("one.yaml:12: plugin 'Out': defined twice: first at one.yaml:5");
    }

    @Test
    void aTopLevelSettingMayRepeatButNotDiffer() throws Exception {
        Path a = write("a.yaml", "MemoryLimit: 64m\n" + GEN);
        Path same = write("same.yaml", "MemoryLimit: 64MiB\n" + OUT);
        assertThat(loader.loadPaths(List.of(a, same))).hasSize(2);
        assertThat(loader.memoryLimit()).isEqualTo(64L << 20);
        Path other = write("other.yaml", OUT + "MemoryLimit: 128m\n");
        assertThatThrownBy(() -> loader.loadPaths(List.of(a, other)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(other + ":4: MemoryLimit: 128m differs from 64m set at " + a + ":1");
    }

    @Test
    void aReloadForgetsASettingThePiecesNoLongerGive() throws Exception {
        Path a = write("a.yaml", "MemoryLimit: 64m\n" + GEN + OUT);
        assertThat(loader.loadPaths(List.of(a))).hasSize(2);
        assertThat(loader.memoryLimit()).isEqualTo(64L << 20);
        Files.writeString(a, GEN + OUT);
        assertThat(loader.loadPaths(List.of(a))).hasSize(2);
        assertThat(loader.memoryLimit()).isNull();
    }

    @Test
    void errorsOfEveryPieceAreReportedTogetherEachWithItsFile() throws Exception {
        Path a = write("a.yaml", GEN + "  Runz: 1\n");
        Path b = write("b.yaml", OUT + "  Chanel: 3\n");
        Path c = write("c.yaml", "Broken: [\n");
        assertThatThrownBy(() -> loader.loadPaths(List.of(a, b, c)))
                .hasMessageContaining("3 errors").hasMessageContaining(a + ":4: plugin 'Gen', key 'Runz'")
                .hasMessageContaining(b + ":4: plugin 'Out', key 'Chanel'").hasMessageContaining(c + ":2: invalid YAML");
    }

    @Test
    void aRequiredVariableFailsWithItsMessageInThePieceThatNeedsIt() throws Exception {
        Path a = write("a.yaml", GEN);
        Path b = write("b.yaml", "Out:\n  Type: producer.Null\n  Streams: \"${OUT_STREAM:?set OUT_STREAM to the stream to read}\"\n");
        assertThatThrownBy(() -> loader.loadPaths(List.of(a, b)))
                .hasMessageContaining(b + ":3: environment variable OUT_STREAM is not set: set OUT_STREAM to the stream to read");
    }

    @Test
    void anEmptyDirectoryOrNoPathIsAnError() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        write("empty/notes.txt", GEN);
        assertThatThrownBy(() -> loader.loadPaths(List.of(empty)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(empty + ": no config files in the directory (it reads *.yaml and *.yml)");
        assertThatThrownBy(() -> loader.loadPaths(List.of())).hasMessageContaining("no config file given");
    }

    @Test
    void aCommentedOutPieceIsSkippedButAllEmptyIsAnError() throws Exception {
        Path a = write("a.yaml", GEN + OUT);
        Path off = write("off.yaml", "# Old:\n#   Type: producer.Null\n");
        assertThat(loader.loadPaths(List.of(a, off))).hasSize(2);
        assertThatThrownBy(() -> loader.loadPaths(List.of(off))).hasMessageContaining(off + ": the config is empty");
        Path off2 = write("off2.yaml", "");
        assertThatThrownBy(() -> loader.loadPaths(List.of(off, off2))).hasMessageContaining("the config is empty");
    }

    @Test
    void theSameFileReachedTwiceIsAnError() throws Exception {
        write("conf.d/a.yaml", GEN + OUT);
        Path again = dir.resolve("conf.d").resolve("a.yaml");
        assertThatThrownBy(() -> loader.loadPaths(List.of(dir.resolve("conf.d"), again)))
                .hasMessageContaining(again + ": config file given twice");
    }

    @Test
    void aMissingPieceNamesItsPath() throws Exception {
        Path a = write("a.yaml", GEN + OUT);
        Path missing = dir.resolve("missing.yaml");
        assertThatThrownBy(() -> loader.loadPaths(List.of(a, missing)))
                .hasMessageContaining(missing + ": cannot read config");
    }
}
