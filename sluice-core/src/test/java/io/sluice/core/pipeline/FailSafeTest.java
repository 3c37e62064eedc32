package io.sluice.core.pipeline;

import static io.sluice.core.testing.PipelineHarness.await;
import static io.sluice.core.testing.PipelineHarness.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.testing.HarnessPlugins;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.MemoryBudget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Never half-alive: failures end up in /ready and the failure handler; the budget bounds what is in flight. */
@Timeout(60)
class FailSafeTest {
    /** A consumer whose listener cannot be claimed. */
    static final class Unbindable extends Consumer {
        static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "test.Unbindable", "cannot bind")
                .factory(Unbindable::new);

        Unbindable(PluginConfig c) {
            super(c);
        }

        @Override
        public void open(ConsumerContext ctx) throws Exception {
            throw new java.net.BindException("Address already in use: 127.0.0.1:1");
        }

        @Override
        public void consume(ConsumerContext ctx) {
            throw new AssertionError("never runs: open failed");
        }
    }

    /** A consumer that dies with an Error after it started. */
    static final class Dying extends Consumer {
        static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "test.Dying", "dies")
                .factory(Dying::new);

        Dying(PluginConfig c) {
            super(c);
        }

        @Override
        public void consume(ConsumerContext ctx) {
            throw new OutOfMemoryError("simulated");
        }
    }

    private static Pipeline pipeline(String yaml, MemoryBudget memory) {
        List<PluginSpec> all = new ArrayList<>(PipelineHarness.builder().registry().all());
        all.add(Unbindable.SPEC);
        all.add(Dying.SPEC);
        PluginRegistry r = new PluginRegistry(all);
        return new Pipeline(new ConfigLoader(r, Map.of()).loadString(yaml, "test.yaml"), r, PipelineHarness.quietLog(), memory);
    }

    @Test
    void aListenerThatCannotBeClaimedStopsTheStartNamingThePlugin() {
        Pipeline p = pipeline("In:\n  Type: test.Unbindable\n  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n",
                MemoryBudget.unlimited());
        assertThatThrownBy(p::start).isInstanceOf(StartException.class)
                .hasMessageContaining("In").hasMessageContaining("Address already in use");
        assertThat(p.isReady()).isFalse();
    }

    @Test
    void aConsumerThatDiesFailsThePipelineAndReadySaysSo() throws Exception {
        Pipeline p = pipeline("In:\n  Type: test.Dying\n  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n",
                MemoryBudget.unlimited());
        AtomicReference<String> reported = new AtomicReference<>();
        p.onFailure(reported::set);
        p.start();
        try {
            await("the failure handler", 10_000, () -> reported.get() != null);
            assertThat(reported.get()).contains("In").contains("OutOfMemoryError");
            assertThat(p.failure()).isEqualTo(reported.get());
            assertThat(p.isReady()).isFalse();
        } finally {
            p.stop();
        }
    }

    @Test
    void inFlightMessagesAreBoundedByTheBudgetAndItsReservationsComeBack() throws Exception {
        // Each batch of 512 numbers costs about 512 * (160 + 3) bytes: a 200 KB budget admits two at a time.
        MemoryBudget memory = new MemoryBudget(200_000);
        Pipeline p = pipeline("In:\n  Type: test.Numbers\n  Count: 20000\n  Streams: s\n"
                + "Out:\n  Type: test.Gate\n  Streams: s\n  Channel: 1000000\n", memory);
        p.start();
        HarnessPlugins.Gate gate = producer(p, "Out");
        long maxUsed = 0;
        while (gate.delivered < 20000) {
            maxUsed = Math.max(maxUsed, memory.used());
            assertThat(memory.used()).as("reserved bytes").isLessThanOrEqualTo(memory.limit());
            gate.permits.release();
            await("a delivery or the end", 10_000, () -> gate.permits.availablePermits() == 0 || gate.delivered >= 20000);
        }
        p.awaitTermination();
        assertThat(maxUsed).as("the budget was used").isPositive();
        assertThat(memory.used()).as("every reservation returned").isZero();
    }

    @Test
    void everyReservationComesBackWhenBatchesAreCopiedSplitAndFiltered() throws Exception {
        MemoryBudget memory = new MemoryBudget(50_000_000);
        Pipeline p = pipeline("In:\n  Type: test.Numbers\n  Count: 200000\n  Streams: [s, t]\n  Modulators: [test.DropOdd]\n"
                + "A:\n  Type: test.Collect\n  Streams: [s, t]\nB:\n  Type: test.Collect\n  Streams: s\n"
                + "Dropped:\n  Type: test.Collect\n  Streams: _DROPPED_\n", memory);
        p.start();
        assertThat(p.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        HarnessPlugins.Collect a = producer(p, "A");
        assertThat(a.payloads).hasSize(200000);
        assertThat(memory.used()).as("bytes still reserved after everything was delivered").isZero();
    }
}
