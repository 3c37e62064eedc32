package io.sluice.core.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/** Whole pipelines from YAML: filtered and unparsable messages reach the _DROPPED_ stream's producer, counted. */
class FormatPipelineTest {
    @Test
    void sampledOutMessagesReachTheDroppedStreamAndAreCounted() throws Exception {
        PipelineHarness p = PipelineHarness.run(""
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
        assertThat(p.stats("Gen").dropped()).isEqualTo(3000);
        assertThat(p.delivered("Kept")).isEqualTo(1000);
        assertThat(p.delivered("Dropped")).isEqualTo(3000);
    }

    @Test
    void invalidJsonGoesToTheFallbackStreamNeverLost() throws Exception {
        long before = FormatErrors.invalidJson();
        PipelineHarness p = PipelineHarness.run(""
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
        assertThat(p.stats("Gen").dropped()).isEqualTo(1000);
        assertThat(p.delivered("Broken")).isEqualTo(1000);
        assertThat(p.delivered("Ok")).isZero();
        assertThat(FormatErrors.invalidJson() - before).isGreaterThanOrEqualTo(1000);
    }

    @Test
    void filteredStreamOfAFilterWinsOverThePluginFallback() throws Exception {
        PipelineHarness p = PipelineHarness.run(""
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
        assertThat(p.delivered("Quarantine")).isEqualTo(300);
        assertThat(p.delivered("Fallback")).isZero();
    }
}
