package io.sluice.core.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.pipeline.Pipeline;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ConsumerTest {
    @Test
    void profilerTemplatesHaveTheWidthsOfTheFormat() {
        ProfilerTemplate t = new ProfilerTemplate("{\"a\":\"%8s\",\"n\":%3d,\"p\":\"%%\"}", "xy");
        String s = new String(t.generate(), StandardCharsets.UTF_8);
        assertThat(s).matches("\\{\"a\":\"[xy]{8}\",\"n\":[ 0-9]{3},\"p\":\"%\"}");
        assertThat(new ProfilerTemplate("%256s", "abc").generate()).hasSize(256);
    }

    @Test
    void profilerChoosesAmongTemplates() throws Exception {
        Pipeline p = PipelineHarness.pipeline("Gen:\n  Type: consumer.Profiler\n  Runs: 500\n  Batches: 2\n  TemplateCount: 3\n"
                + "  Message: \"%16s\"\n  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n");
        p.start();
        assertThat(p.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        Collect out = PipelineHarness.producer(p, "Out");
        Set<String> distinct = new HashSet<>(out.payloads);
        assertThat(out.payloads).hasSize(1000).allMatch(s -> s.length() == 16);
        assertThat(distinct).hasSizeBetween(2, 3);
    }

    @Test
    void profilerAtARateSendsSmallBatchesNoFasterThanTheRate() throws Exception {
        Pipeline p = PipelineHarness.pipeline("Gen:\n  Type: consumer.Profiler\n  Runs: 400\n  Batches: 1\n  Rate: 2000\n"
                + "  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n");
        long start = System.nanoTime();
        p.start();
        assertThat(p.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        double seconds = (System.nanoTime() - start) / 1e9;
        Collect out = PipelineHarness.producer(p, "Out");
        assertThat(out.payloads).hasSize(400);
        assertThat(seconds).as("400 messages at 2,000 a second take at least 0.2 s").isGreaterThanOrEqualTo(0.19);
        assertThat(out.deliveries.get()).as("batches of 100 (a twentieth of the rate), not one of 400").isGreaterThanOrEqualTo(4);
    }

    @Test
    void profilerRefusesEmptyCharacters() {
        assertThatThrownBy(() -> new Profiler(PluginConfig.of("g", "consumer.Profiler", Map.of("Characters", "", "Streams", "s"))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("key 'Characters'");
    }

    @Test
    void consoleReadsLinesStrippingCrLfAndKeepsALastUnterminatedLine() throws Exception {
        String input = "one\r\ntwo\n\nthree";
        Pipeline p = pipelineWithConsole(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
        p.start();
        assertThat(p.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        Collect out = PipelineHarness.producer(p, "Out");
        assertThat(out.payloads).containsExactly("one", "two", "", "three");
    }

    @Test
    void consoleProducerWritesOneLinePerMessage() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        io.sluice.core.producer.ConsoleProducer console = new io.sluice.core.producer.ConsoleProducer(
                PluginConfig.of("c", "producer.Console", Map.of("Streams", "s")), bytes);
        io.sluice.core.message.Batch b = new io.sluice.core.message.BatchPool(4).acquire();
        b.add().setPayload("a");
        b.add().setPayload("b\n");
        console.deliver(b);
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("a\nb\n");
    }

    private static Pipeline pipelineWithConsole(java.io.InputStream in) {
        io.sluice.core.config.PluginSpec spec = io.sluice.core.config.PluginSpec.builder(
                io.sluice.core.config.PluginKind.CONSUMER, "test.Stdin", "console on a test stream")
                .params(ConsoleConsumer.PIPE, ConsoleConsumer.EXIT_ON_EOF, ConsoleConsumer.MAX_MESSAGE_SIZE).factory(c -> new ConsoleConsumer(c, in));
        java.util.List<io.sluice.core.config.PluginSpec> all = new java.util.ArrayList<>(PipelineHarness.builder().registry().all());
        all.add(spec);
        io.sluice.core.config.PluginRegistry r = new io.sluice.core.config.PluginRegistry(all);
        return new Pipeline(new io.sluice.core.config.ConfigLoader(r, Map.of()).loadString(
                "In:\n  Type: test.Stdin\n  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n", "t.yaml"), r, PipelineHarness.quietLog());
    }
}
