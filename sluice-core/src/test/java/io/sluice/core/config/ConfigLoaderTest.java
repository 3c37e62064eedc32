package io.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.format.Envelope;
import io.sluice.core.consumer.Profiler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    private final ConfigLoader loader = new ConfigLoader(PluginRegistry.defaultRegistry(),
            Map.of("RUNS", "42", "EMPTY", ""));

    private List<PluginConfig> load(String yaml) {
        return loader.loadString(yaml, "pipe.yaml");
    }

    private static final String PRODUCER = "\"Bench\":\n  Type: producer.Benchmark\n  Streams: s\n";

    /**
     * Block mappings 3,000 deep (4.5 MB of indentation, so made here rather than kept in the fuzz corpus) are a
     * config error, not a StackOverflowError in the YAML composer.
     */
    @Test
    void blockMappingsThousandsDeepAreAConfigError() {
        StringBuilder yaml = new StringBuilder("a:\n");
        for (int depth = 1; depth < 3000; depth++) {
            yaml.append(" ".repeat(depth)).append("b:\n");
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> load(yaml.toString()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("deep");
    }

    @Test
    void readsGollumProfileWithModulatorsAsNamesAndMappings() {
        List<PluginConfig> configs = load("Gen:\n  Type: consumer.Profiler\n  Runs: 7\n  Streams: s\n"
                + "  Modulators:\n    - format.Timestamp\n    - format.Envelope:\n        Postfix: \"!\"\n" + PRODUCER);
        PluginConfig gen = configs.get(0);
        assertThat(gen.id()).isEqualTo("Gen");
        assertThat(gen.get(Profiler.RUNS)).isEqualTo(7);
        assertThat(gen.get(Profiler.BATCHES)).isEqualTo(10);
        List<PluginConfig> mods = gen.get(PluginSpec.MODULATORS);
        assertThat(mods).extracting(PluginConfig::type).containsExactly("format.Timestamp", "format.Envelope");
        assertThat(mods.get(1).get(Envelope.POSTFIX)).isEqualTo("!");
        assertThat(mods.get(0).get(io.sluice.core.format.Timestamp.TIMESTAMP)).isEqualTo("2006-01-02 15:04:05 MST | ");
    }

    @Test
    void everyGollumProfileLoadsUnchanged() throws Exception {
        for (String name : List.of("raw", "format", "multi", "json")) {
            Path file = Path.of("../examples/gollum/profile_" + name + ".conf");
            if (name.equals("json") && PluginRegistry.defaultRegistry().find("format.JSON") == null) {
                continue; // the JSON formatters arrive with their own plugins
            }
            assertThat(new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of()).loadFile(file)).isNotEmpty();
        }
    }

    @Test
    void everyBadKeyAndValueOfTheFileIsReportedAtOnce() {
        assertThatThrownBy(() -> load("A:\n  Type: consumer.Profiler\n  Streams: s\n  Runz: 1\n  Runs: lots\n"
                + "B:\n  Type: consumer.Profilr\n" + PRODUCER + "  Chanel: 3\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("4 errors").hasMessageContaining("'Runz'").hasMessageContaining("'Runs'")
                .hasMessageContaining("consumer.Profilr").hasMessageContaining("'Chanel'");
    }

    @Test
    void aTopLevelMemoryLimitIsAProcessSettingNotAPlugin() {
        List<PluginConfig> configs = load("MemoryLimit: 96m\nGen:\n  Type: consumer.Profiler\n  Streams: s\n" + PRODUCER);
        assertThat(configs).extracting(PluginConfig::id).containsExactly("Gen", "Bench");
        assertThat(loader.memoryLimit()).isEqualTo(96L << 20);
        assertThatThrownBy(() -> load("MemoryLimit: lots\nGen:\n  Type: consumer.Profiler\n  Streams: s\n" + PRODUCER))
                .isInstanceOf(ConfigException.class).hasMessageContaining("MemoryLimit").hasMessageContaining("lots")
                .hasMessageContaining(":1:");
    }

    @Test
    void aggregateExpandsPluginsWithSharedSettings() {
        List<PluginConfig> configs = load("Agg:\n  Type: Aggregate\n  Runs: 5\n  Streams: s\n  Plugins:\n"
                + "    A:\n      Type: consumer.Profiler\n    B:\n      Type: consumer.Profiler\n      Runs: 9\n" + PRODUCER);
        assertThat(configs).extracting(PluginConfig::id).containsExactly("A", "B", "Bench");
        assertThat(configs.get(0).get(Profiler.RUNS)).isEqualTo(5);
        assertThat(configs.get(1).get(Profiler.RUNS)).isEqualTo(9);
    }

    @Test
    void substitutesVariablesWithDefaults() {
        List<PluginConfig> configs = load("Gen:\n  Type: consumer.Profiler\n  Runs: ${RUNS}\n"
                + "  Batches: ${NOT_SET:-3}\n  Message: \"x${EMPTY:-y}z\"\n  Streams: s\n" + PRODUCER);
        assertThat(configs.get(0).get(Profiler.RUNS)).isEqualTo(42);
        assertThat(configs.get(0).get(Profiler.BATCHES)).isEqualTo(3);
        assertThat(configs.get(0).get(Profiler.MESSAGE)).isEqualTo("xyz");
    }

    @Test
    void unsetVariableWithoutDefaultIsAnError() {
        assertThatThrownBy(() -> load("Gen:\n  Type: consumer.Profiler\n  Runs: ${NOPE}\n  Streams: s\n" + PRODUCER))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("pipe.yaml:3").hasMessageContaining("NOPE is not set");
    }

    @Test
    void aRequiredVariableFailsWithItsMessage() {
        assertThatThrownBy(() -> load("Gen:\n  Type: consumer.Profiler\n  Streams: s\n  Message: \"${NOPE:?set NOPE to the payload}\"\n"
                + PRODUCER)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("pipe.yaml:4").hasMessageContaining("NOPE is not set: set NOPE to the payload");
        assertThatThrownBy(() -> load("Gen:\n  Type: consumer.Profiler\n  Streams: s\n  Message: \"${EMPTY:?}\"\n" + PRODUCER))
                .hasMessageContaining("EMPTY is not set");
        assertThat(load("Gen:\n  Type: consumer.Profiler\n  Streams: s\n  Runs: ${RUNS:?needed}\n" + PRODUCER).get(0)
                .get(Profiler.RUNS)).isEqualTo(42);
    }

    @Test
    void unknownTypeNamesFileLinePluginAndSuggests() {
        assertThatThrownBy(() -> load(PRODUCER + "Gen:\n  Type: consumer.Profilr\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("pipe.yaml:5")
                .hasMessageContaining("plugin 'Gen', key 'Type'")
                .hasMessageContaining("unknown plugin type 'consumer.Profilr'")
                .hasMessageContaining("did you mean 'consumer.Profiler'");
    }

    @Test
    void misspeltKeySuggestsTheClosest() {
        assertThatThrownBy(() -> load("Gen:\n  Type: consumer.Profiler\n  Streams: s\n  Batchez: 3\n" + PRODUCER))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("pipe.yaml:4")
                .hasMessageContaining("plugin 'Gen', key 'Batchez'")
                .hasMessageContaining("did you mean 'Batches'");
    }

    @Test
    void misspeltModulatorKeyNamesTheModulator() {
        assertThatThrownBy(() -> load("Gen:\n  Type: consumer.Profiler\n  Streams: s\n  Modulators:\n"
                + "    - format.Envelope:\n        Postfx: x\n" + PRODUCER))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("pipe.yaml:6")
                .hasMessageContaining("plugin 'Gen/format.Envelope', key 'Postfx'")
                .hasMessageContaining("did you mean 'Postfix'");
    }

    @Test
    void wrongValueTypeIsNamed() {
        assertThatThrownBy(() -> load("Gen:\n  Type: consumer.Profiler\n  Streams: s\n  Runs: lots\n" + PRODUCER))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("pipe.yaml:4").hasMessageContaining("key 'Runs'")
                .hasMessageContaining("expected an integer, found 'lots'");
        assertThatThrownBy(() -> load("Gen:\n  Type: consumer.Profiler\n  Streams: s\n  KeepRunning: maybe\n" + PRODUCER))
                .hasMessageContaining("key 'KeepRunning'").hasMessageContaining("expected true or false");
        assertThatThrownBy(() -> load("Gen:\n  Type: consumer.Profiler\n  Streams: s\n  Message: [a, b]\n" + PRODUCER))
                .hasMessageContaining("key 'Message'").hasMessageContaining("expected a single value, found a list");
    }

    @Test
    void streamNobodyReadsIsAnError() {
        assertThatThrownBy(() -> load("Gen:\n  Type: consumer.Profiler\n  Streams: [s, lost]\n" + PRODUCER))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("pipe.yaml:3")
                .hasMessageContaining("plugin 'Gen', key 'Streams'")
                .hasMessageContaining("stream 'lost' is written but no producer reads it");
    }

    @Test
    void wildcardProducerReadsEveryStreamAndDroppedNeedsNoReader() {
        List<PluginConfig> configs = load("Gen:\n  Type: consumer.Profiler\n  Streams: [a, b]\n"
                + "All:\n  Type: producer.Null\n  Streams: \"*\"\n");
        assertThat(configs).hasSize(2);
    }

    @Test
    void modulatorAtTopLevelAndProducerAsModulatorAreRefused() {
        assertThatThrownBy(() -> load("F:\n  Type: format.Envelope\n" + PRODUCER))
                .hasMessageContaining("is a modulator");
        assertThatThrownBy(() -> load("Gen:\n  Type: consumer.Profiler\n  Streams: s\n  Modulators: [producer.Null]\n" + PRODUCER))
                .hasMessageContaining("producer.Null is a producer, not a modulator");
    }

    @Test
    void invalidYamlAndDuplicateKeysAreReportedWithLine() {
        assertThatThrownBy(() -> load("Gen:\n  Type: [unclosed\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("invalid YAML");
        assertThatThrownBy(() -> load("Gen:\n  Type: consumer.Profiler\n  Runs: 1\n  Runs: 2\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("pipe.yaml:4").hasMessageContaining("duplicate key");
    }

    @Test
    void missingTypeAndMissingFileAreClear(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> load("Gen:\n  Runs: 1\n")).hasMessageContaining("plugin 'Gen', key 'Type': missing");
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("none.yaml"))).hasMessageContaining("cannot read config");
        Path empty = Files.writeString(dir.resolve("empty.yaml"), "# nothing\n");
        assertThatThrownBy(() -> ConfigLoader.load(empty)).hasMessageContaining("the config is empty");
    }

    @Test
    void keysAreCaseInsensitiveLikeGollum() {
        List<PluginConfig> configs = load("Gen:\n  Type: consumer.Profiler\n  streams: s\n  runs: 3\n" + PRODUCER);
        assertThat(configs.get(0).get(Profiler.RUNS)).isEqualTo(3);
    }

    private static final Param<Map<String, List<String>>> LISTS = Param.stringListMap("Lists", "test");

    /** A registry of the default plugins and one consumer declaring {@link #LISTS}. */
    private static ConfigLoader listsLoader() {
        List<PluginSpec> specs = PluginRegistry.defaultRegistry().all();
        specs.add(PluginSpec.builder(PluginKind.CONSUMER, "consumer.Lists", "test").params(LISTS).factory(c -> null));
        return new ConfigLoader(new PluginRegistry(specs), Map.of());
    }

    @Test
    void aMappingOfListsKeepsItsOrderAndTakesASingleStringAsAListOfOne() {
        PluginConfig c = listsLoader().loadString("In:\n  Type: consumer.Lists\n  Streams: s\n  Lists:\n"
                + "    b: [x, y]\n    a: z\n    c:\n" + PRODUCER, "pipe.yaml").get(0);
        assertThat(c.get(LISTS)).containsExactly(Map.entry("b", List.of("x", "y")), Map.entry("a", List.of("z")),
                Map.entry("c", List.of()));
        PluginConfig unset = listsLoader().loadString("In:\n  Type: consumer.Lists\n  Streams: s\n" + PRODUCER,
                "pipe.yaml").get(0);
        assertThat(unset.get(LISTS)).isEmpty();
    }

    @Test
    void aMappingOfListsRefusesAListAndNestedMappings() {
        assertThatThrownBy(() -> listsLoader().loadString("In:\n  Type: consumer.Lists\n  Streams: s\n"
                + "  Lists: [a, b]\n" + PRODUCER, "pipe.yaml"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("pipe.yaml:4")
                .hasMessageContaining("expected a mapping of names to lists of strings, found a list");
        assertThatThrownBy(() -> listsLoader().loadString("In:\n  Type: consumer.Lists\n  Streams: s\n"
                + "  Lists:\n    a: [x, {y: z}]\n" + PRODUCER, "pipe.yaml"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("key 'Lists.a'")
                .hasMessageContaining("expected a single value, found a mapping");
    }

    @Test
    void suggestOnlyWhenClose() {
        assertThat(Suggest.didYouMean("Runz", List.of("Runs", "Batches"))).contains("Runs");
        assertThat(Suggest.didYouMean("Completely", List.of("Runs", "Batches"))).isEmpty();
    }
}
