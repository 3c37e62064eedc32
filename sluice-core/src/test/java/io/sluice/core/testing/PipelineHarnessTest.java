package io.sluice.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.message.Batch;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.ProducerContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The harness itself, as the modules use it: settings maps, capture with metadata, hold and fail, DirectContext. */
class PipelineHarnessTest {
    @Test
    void pluginsFromSettingsMapsAreCapturedWithStreamAndMetadata() throws Exception {
        try (PipelineHarness h = PipelineHarness.builder()
                .plugin("Src", "test.Numbers", Map.of("Count", 10, "KeepRunning", true, "Streams", "s",
                        "Modulators", List.of(Map.of("format.Override", Map.of("Target", "k", "Value", "v")))))
                .plugin("Out", "test.Collect", Map.of("Streams", "s"))
                .memory(MemoryBudget.unlimited())
                .start()) {
            List<Captured> got = h.awaitCaptured("Out", 10, 10_000);
            assertThat(got).extracting(Captured::payload).containsExactly("0", "1", "2", "3", "4", "5", "6", "7", "8", "9");
            assertThat(got).allSatisfy(c -> {
                assertThat(c.stream()).isEqualTo("s");
                assertThat(c.fields()).containsEntry("k", "v");
                assertThat(c.kinds()).containsEntry("k", Metadata.STRING);
            });
            assertThat(h.delivered("Out")).isEqualTo(10);
            assertThat(h.counter("Out", "test_collect_deliveries_total")).isPositive();
        }
    }

    @Test
    void aHeldCollectDeliversNothingUntilOpenedAndAFailingOneSendsToTheFallback() throws Exception {
        try (PipelineHarness h = PipelineHarness.builder().yaml("Src:\n  Type: test.Numbers\n  Count: 100\n  KeepRunning: true\n"
                + "  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n  FallbackStream: failed\n"
                + "Failed:\n  Type: test.Collect\n  Streams: failed\n").build()) {
            HarnessPlugins.Collect out = h.collect("Out");
            out.hold();
            out.fail = true;
            h.start();
            PipelineHarness.await("everything published", 10_000, () -> h.stats("Src").in() == 100);
            assertThat(out.payloads).isEmpty();
            out.open();
            assertThat(h.awaitCaptured("Failed", 100, 10_000)).hasSize(100);
            assertThat(out.payloads).isEmpty();
        }
    }

    @Test
    void runWaitsForTheEndAndAwaitNamesWhatItWaitedFor() throws Exception {
        PipelineHarness h = PipelineHarness.run("Src:\n  Type: test.Numbers\n  Count: 3\n  Streams: s\n"
                + "Out:\n  Type: test.Collect\n  Streams: s\n");
        assertThat(h.collect("Out").payloads).containsExactly("0", "1", "2");
        assertThat(h.stats("Src").in()).isEqualTo(3);
        assertThatThrownBy(() -> PipelineHarness.await("never", 10, () -> false))
                .isInstanceOf(AssertionError.class).hasMessageContaining("waiting for never");
        assertThatThrownBy(() -> h.producer("Nope")).isInstanceOf(AssertionError.class).hasMessageContaining("Nope");
    }

    @Test
    void holdAfterLetsTheFirstMessagesThroughAndCountKeepsOnlyTheNumber() throws Exception {
        PipelineHarness.MemoryLog log = new PipelineHarness.MemoryLog();
        try (PipelineHarness h = PipelineHarness.builder().yaml("Src:\n  Type: test.Numbers\n  Count: 2000\n"
                + "  KeepRunning: true\n  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n"
                + "Tally:\n  Type: test.Count\n  Streams: s\n").log(log).build()) {
            h.collect("Out").holdAfter(1);
            h.start();
            h.await("the first batch", () -> h.collect("Out").size() >= 1);
            HarnessPlugins.Count tally = h.producer("Tally");
            h.await("the count", () -> tally.delivered.get() == 2000);
            assertThat(h.collect("Out").size()).as("held after the first batch").isBetween(1, 1999);
            h.collect("Out").open();
            h.await("everything", () -> h.collect("Out").size() == 2000);
            assertThat(h.payloads("Out")).hasSize(2000).startsWith("0", "1");
            assertThat(h.captured("Out")).extracting(Captured::payload).isEqualTo(h.payloads("Out"));
            assertThat(h.logText()).isNotNull();
        }
    }

    @Test
    void directContextFailsHeldBatches() {
        DirectContext ctx = new DirectContext("in", "test.Numbers", 4, PipelineHarness.quietLog());
        ctx.hold(true).publish(ctx.newBatch());
        assertThat(ctx.failHeld()).isEqualTo(1);
        assertThat(ctx.failHeld()).isZero();
    }

    @Test
    void directContextKeepsHoldsOrCountsWhatIsPublished() throws Exception {
        DirectContext ctx = new DirectContext("in", "test.Numbers", 4, PipelineHarness.quietLog());
        Batch b = ctx.newBatch();
        b.add().setPayload("a");
        b.add().setPayload("b");
        ctx.hold(true).publish(b);
        assertThat(ctx.events()).extracting(Captured::payload).containsExactly("a", "b");
        assertThat(ctx.pool().outstanding()).isEqualTo(1);
        assertThat(ctx.releaseHeld()).isEqualTo(1);
        assertThat(ctx.pool().outstanding()).isZero();
        Batch c = ctx.newBatch();
        c.add().setPayload("c");
        ctx.hold(false).countOnly(true).publish(c);
        assertThat(ctx.counted()).isEqualTo(3);
        assertThat(ctx.events()).hasSize(2);
        assertThat(ctx.stats().id()).isEqualTo("in");
    }

    @Test
    void directProducerContextHasRealCountersAndTheGivenLog() {
        Log log = PipelineHarness.quietLog();
        ProducerContext ctx = DirectProducerContext.of("out", "test.Collect", log);
        ctx.stats().counter("x_total", "x").incrementAndGet();
        assertThat(ctx.stats().id()).isEqualTo("out");
        assertThat(ctx.stats().counters()).singleElement().satisfies(c -> assertThat(c.value().get()).isEqualTo(1));
        assertThat(ctx.log()).isSameAs(log);
        assertThat(ctx.firstGeneratedNanos()).isZero();
    }

    @Test
    void memoryLogKeepsWhatThePipelineLogged() {
        PipelineHarness.MemoryLog log = new PipelineHarness.MemoryLog();
        log.log.warn("something to read");
        assertThat(log.text()).contains("something to read");
        assertThat(PipelineHarness.quietLog().enabled(Log.ERROR)).isTrue();
        assertThat(PipelineHarness.quietLog().enabled(Log.WARNING)).isFalse();
    }
}
