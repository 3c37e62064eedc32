package io.sluice.core.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.ProducerRunner;
import java.io.PrintStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Whole pipelines from YAML: filtered and unparsable messages reach the _DROPPED_ stream's producer, counted. */
class FormatPipelineTest {
    private static Pipeline run(String yaml) throws Exception {
        PluginRegistry registry = PluginRegistry.defaultRegistry();
        Pipeline p = new Pipeline(new ConfigLoader(registry, Map.of()).loadString(yaml, "test.yaml"), registry,
                new Log(new PrintStream(OutputStream.nullOutputStream()), Log.ERROR));
        p.start();
        assertThat(p.awaitTermination(20, TimeUnit.SECONDS)).as("pipeline finished").isTrue();
        return p;
    }

    private static PluginStats stats(Pipeline p, String id) {
        return p.stats().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow();
    }

    private static long delivered(Pipeline p, String id) {
        for (ProducerRunner r : p.producers()) {
            if (r.stats().id().equals(id)) {
                return r.stats().out();
            }
        }
        throw new AssertionError("no producer " + id);
    }

    @Test
    void sampledOutMessagesReachTheDroppedStreamAndAreCounted() throws Exception {
        Pipeline p = run(""
                + "Gen:\n"
                + "  Type: consumer.Profiler\n"
                + "  Runs: 1000\n"
                + "  Batches: 4\n"
                + "  Message: \"{\\\"a\\\":\\\"%8s\\\"}\"\n"
                + "  Streams: data\n"
                + "  ModulatorRoutines: 2\n"
                + "  Modulators:\n"
                + "    - format.JSON\n"
                + "    - filter.Sample:\n"
                + "        SampleRatePerGroup: 1\n"
                + "        SampleGroupSize: 4\n"
                + "Kept:\n"
                + "  Type: producer.Null\n"
                + "  Streams: data\n"
                + "Dropped:\n"
                + "  Type: producer.Null\n"
                + "  Streams: _DROPPED_\n");
        assertThat(stats(p, "Gen").dropped()).isEqualTo(3000);
        assertThat(delivered(p, "Kept")).isEqualTo(1000);
        assertThat(delivered(p, "Dropped")).isEqualTo(3000);
    }

    @Test
    void invalidJsonGoesToTheFallbackStreamNeverLost() throws Exception {
        long before = FormatErrors.invalidJson();
        Pipeline p = run(""
                + "Gen:\n"
                + "  Type: consumer.Profiler\n"
                + "  Runs: 500\n"
                + "  Batches: 2\n"
                + "  Message: \"{\\\"a\\\": %4s\"\n"
                + "  Streams: data\n"
                + "  FallbackStream: broken\n"
                + "  Modulators:\n"
                + "    - format.JSON\n"
                + "Ok:\n"
                + "  Type: producer.Null\n"
                + "  Streams: data\n"
                + "Broken:\n"
                + "  Type: producer.Null\n"
                + "  Streams: broken\n");
        assertThat(stats(p, "Gen").dropped()).isEqualTo(1000);
        assertThat(delivered(p, "Broken")).isEqualTo(1000);
        assertThat(delivered(p, "Ok")).isZero();
        assertThat(FormatErrors.invalidJson() - before).isGreaterThanOrEqualTo(1000);
    }

    @Test
    void filteredStreamOfAFilterWinsOverThePluginFallback() throws Exception {
        Pipeline p = run(""
                + "Gen:\n"
                + "  Type: consumer.Profiler\n"
                + "  Runs: 300\n"
                + "  Batches: 1\n"
                + "  Streams: data\n"
                + "  FallbackStream: fallback\n"
                + "  Modulators:\n"
                + "    - filter.None:\n"
                + "        FilteredStream: quarantine\n"
                + "Quarantine:\n"
                + "  Type: producer.Null\n"
                + "  Streams: quarantine\n"
                + "Fallback:\n"
                + "  Type: producer.Null\n"
                + "  Streams: [fallback, data]\n");
        assertThat(delivered(p, "Quarantine")).isEqualTo(300);
        assertThat(delivered(p, "Fallback")).isZero();
    }
}
