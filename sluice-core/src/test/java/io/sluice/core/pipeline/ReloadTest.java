package io.sluice.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.testing.HarnessPlugins;
import io.sluice.core.testing.PipelineHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Hot reload: unchanged plugins keep running, changed ones are swapped, and no message is lost or doubled. */
@Timeout(120)
class ReloadTest {
    /** Publishes 0, 1, 2, ... in batches of 50, a batch a millisecond, until stopped; counts what it published. */
    static final class Paced extends Consumer {
        static final Param<Integer> LIMIT = Param.integer("Limit", Integer.MAX_VALUE, "Stop after this many.");
        static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "test.Paced", "numbers, paced")
                .params(LIMIT).factory(Paced::new);
        static final AtomicInteger NEXT = new AtomicInteger();
        private volatile boolean stopped;

        Paced(PluginConfig c) {
            super(c);
        }

        @Override
        public void consume(ConsumerContext ctx) throws InterruptedException {
            int limit = config.get(LIMIT);
            while (!stopped && ctx.isActive() && NEXT.get() < limit) {
                Batch b = ctx.newBatch();
                for (int i = 0; i < 50 && NEXT.get() < limit; i++) {
                    b.add().setPayload(Integer.toString(NEXT.getAndIncrement()));
                }
                ctx.publish(b);
                Thread.sleep(1);
            }
        }

        @Override
        public void stop() {
            stopped = true;
        }
    }

    /** A consumer that cannot open when told so (as one whose port is taken). */
    static final class Picky extends Consumer {
        static final Param<Boolean> FAIL = Param.bool("Fail", false, "Fail to open.");
        static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "test.Picky", "may not open")
                .params(FAIL).factory(Picky::new);
        private final java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);

        Picky(PluginConfig c) {
            super(c);
        }

        @Override
        public void open(ConsumerContext ctx) throws Exception {
            if (config.get(FAIL)) {
                throw new java.net.BindException("Address already in use");
            }
        }

        @Override
        public void consume(ConsumerContext ctx) throws InterruptedException {
            stopped.await();
        }

        @Override
        public void stop() {
            stopped.countDown();
        }
    }

    @Test
    void aConsumerThatCannotStartRunsOnWithItsPreviousSettings() throws Exception {
        String base = "In:\n  Type: test.Picky\n  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n";
        try (PipelineHarness h = PipelineHarness.builder().plugins(Picky.SPEC).yaml(base).start()) {
            ReloadResult r = h.reload(base.replace("Streams: s\nOut", "Fail: true\n  Streams: s\nOut"));
            assertThat(r.ok()).as(r.summary()).isFalse();
            assertThat(r.error()).contains("In could not start", "previous settings");
            ReloadResult added = h.reload(base + "Extra:\n  Type: test.Picky\n  Fail: true\n  Streams: s\n");
            assertThat(added.ok()).as(added.summary()).isFalse();
            assertThat(added.error()).contains("Extra could not start");
            assertThat(h.pipeline().failure()).isNull();
            assertThat(h.pipeline().isReady()).isTrue();
            assertThat(h.pipeline().plugins()).extracting(PluginInfo::id).containsExactly("In", "Out");
            // In runs with its previous settings: the first config again changes nothing.
            ReloadResult back = h.reload(base);
            assertThat(back.ok()).isTrue();
            assertThat(back.changed()).as(back.summary()).isFalse();
        }
    }

    private static String config(String prefix, String bufferDir) {
        return """
                "In":
                  Type: test.Paced
                  Streams: s
                "Out":
                  Type: test.Collect
                  Streams: s
                  Modulators:
                    - format.Envelope:
                        Prefix: "%s"
                """.formatted(prefix) + (bufferDir == null ? "" : """
                  Buffer/Type: disk
                  Buffer/Path: "%s"
                """.formatted(bufferDir));
    }

    @Test
    void anUnchangedConfigKeepsEveryPluginAsItIs() throws Exception {
        Paced.NEXT.set(0);
        try (PipelineHarness h = PipelineHarness.builder().plugins(Paced.SPEC).yaml(config("a:", null)).start()) {
            HarnessPlugins.Collect out = h.collect("Out");
            h.await("first messages", () -> out.size() > 0);
            ReloadResult r = h.reload(config("a:", null));
            assertThat(r.ok()).isTrue();
            assertThat(r.changed()).as(r.summary()).isFalse();
            assertThat(r.kept()).isEqualTo(2);
            assertThat((Object) h.collect("Out")).isSameAs(out);
            assertThat(h.pipeline().reloads().unchanged()).isEqualTo(1);
        }
    }

    @Test
    void aChangedProducerIsSwappedWithoutLosingOrDoublingAMessage() throws Exception {
        alternate(null);
    }

    @Test
    void aChangedDiskBufferedProducerHandsItsFilesOverWithoutLoss(@TempDir Path dir) throws Exception {
        alternate(dir.toString());
    }

    /** Twenty reloads alternating a changed and an unchanged config under load; every number arrives once. */
    private static void alternate(String bufferDir) throws Exception {
        Paced.NEXT.set(0);
        Map<HarnessPlugins.Collect, Boolean> sinks = new IdentityHashMap<>();
        try (PipelineHarness h = PipelineHarness.builder().plugins(Paced.SPEC).yaml(config("p0:", bufferDir)).start()) {
            int generation = 0;
            for (int i = 0; i < 20; i++) {
                HarnessPlugins.Collect before = h.collect("Out");
                sinks.put(before, true);
                int seen = before.size();
                h.await("deliveries before reload " + i, () -> before.size() > seen);
                boolean change = i % 2 == 0;
                if (change) {
                    generation++;
                }
                ReloadResult r = h.reload(config("p" + generation + ":", bufferDir));
                assertThat(r.ok()).as(r.summary()).isTrue();
                assertThat(r.changed()).as(r.summary()).isEqualTo(change);
                if (change) {
                    assertThat(r.replaced()).containsExactly("Out");
                    assertThat((Object) h.collect("Out")).isNotSameAs(before);
                } else {
                    assertThat((Object) h.collect("Out")).isSameAs(before);
                }
            }
            HarnessPlugins.Collect last = h.collect("Out");
            sinks.put(last, true);
            int target = Paced.NEXT.get() + 500;
            h.await("the numbers after the last reload", () -> last.payloads.stream()
                    .anyMatch(p -> number(p) >= target));
            h.pipeline().stop();
            BitSet seen = new BitSet();
            List<Integer> doubled = new ArrayList<>();
            for (HarnessPlugins.Collect c : sinks.keySet()) {
                for (String p : c.payloads) {
                    int n = number(p);
                    if (seen.get(n)) {
                        doubled.add(n);
                    }
                    seen.set(n);
                }
            }
            int published = Paced.NEXT.get();
            assertThat(doubled).as("delivered twice").isEmpty();
            assertThat(seen.cardinality()).as("every published number delivered").isEqualTo(published);
            assertThat(seen.nextClearBit(0)).isEqualTo(published);
            assertThat(h.pipeline().reloads().applied()).isEqualTo(10);
            assertThat(h.pipeline().reloads().unchanged()).isEqualTo(10);
        }
    }

    private static int number(String payload) {
        return Integer.parseInt(payload.substring(payload.indexOf(':') + 1).strip());
    }

    @Test
    void aBadConfigLeavesThePipelineRunningAsItWas() throws Exception {
        Paced.NEXT.set(0);
        try (PipelineHarness h = PipelineHarness.builder().plugins(Paced.SPEC).yaml(config("a:", null)).start()) {
            HarnessPlugins.Collect out = h.collect("Out");
            ReloadResult unknownType = h.reload(config("b:", null).replace("test.Collect", "test.Colect"));
            assertThat(unknownType.ok()).isFalse();
            assertThat(unknownType.error()).contains("test.Colect");
            ReloadResult badModulator = h.reload(config("b:", null).replace("Prefix", "Prefx"));
            assertThat(badModulator.ok()).isFalse();
            assertThat(badModulator.error()).contains("Prefx");
            assertThat((Object) h.collect("Out")).isSameAs(out);
            int seen = out.size();
            h.await("still delivering", () -> out.size() > seen + 100);
            assertThat(out.payloads).allMatch(p -> p.startsWith("a:"));
            assertThat(h.pipeline().reloads().failed()).isEqualTo(2);
            assertThat(h.pipeline().reloads().lastSucceeded()).isFalse();
            assertThat(h.pipeline().isReady()).isTrue();
        }
    }

    @Test
    void addedAndRemovedPluginsStartAndStop() throws Exception {
        Paced.NEXT.set(0);
        try (PipelineHarness h = PipelineHarness.builder().plugins(Paced.SPEC).yaml(config("a:", null)).start()) {
            String withCopy = config("a:", null) + """
                    "Copy":
                      Type: test.Collect
                      Streams: s
                    """;
            ReloadResult r = h.reload(withCopy);
            assertThat(r.added()).containsExactly("Copy");
            HarnessPlugins.Collect copy = h.collect("Copy");
            h.await("the added producer receives", () -> copy.size() > 100);
            ReloadResult back = h.reload(config("a:", null));
            assertThat(back.removed()).containsExactly("Copy");
            assertThat(h.pipeline().plugins()).extracting(PluginInfo::id).containsExactly("In", "Out");
        }
    }
}
