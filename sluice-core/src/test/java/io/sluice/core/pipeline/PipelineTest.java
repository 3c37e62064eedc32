package io.sluice.core.pipeline;

import static io.sluice.core.testing.PipelineHarness.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.BatchPool;
import io.sluice.core.producer.Benchmark;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.HarnessPlugins.Gate;
import io.sluice.core.testing.PipelineHarness;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PipelineTest {
    private static List<String> numbers(int from, int to) {
        return IntStream.range(from, to).mapToObj(Integer::toString).collect(Collectors.toList());
    }


    @Test
    void broadcastGivesEveryProducerItsOwnCopy() throws Exception {
        PipelineHarness p = PipelineHarness.run("Src:\n  Type: test.Numbers\n  Count: 3000\n  Streams: s\n"
                + "A:\n  Type: test.Collect\n  Streams: s\n  Modulators:\n    - format.Envelope:\n        Postfix: \"-a\"\n"
                + "B:\n  Type: test.Collect\n  Streams: s\n"
                + "C:\n  Type: test.Collect\n  Streams: s\n  Modulators:\n    - format.Envelope:\n        Prefix: \"c-\"\n        Postfix: \"\"\n");
        Collect a = p.producer("A");
        Collect b = p.producer("B");
        Collect c = p.producer("C");
        assertThat(b.payloads).containsExactlyElementsOf(numbers(0, 3000));
        assertThat(a.payloads).hasSize(3000).allMatch(s -> s.endsWith("-a"));
        assertThat(c.payloads).hasSize(3000).allMatch(s -> s.startsWith("c-"));
        // A's edits did not leak into B's or C's copies.
        assertThat(c.payloads).noneMatch(s -> s.endsWith("-a"));
    }

    @Test
    void roundRobinSpreadsExactlyEvenly() throws Exception {
        PipelineHarness p = PipelineHarness.run("Src:\n  Type: test.Numbers\n  Count: 3000\n  Streams: s\n"
                + "RR:\n  Type: router.RoundRobin\n  Stream: s\n"
                + "A:\n  Type: test.Collect\n  Streams: s\nB:\n  Type: test.Collect\n  Streams: s\nC:\n  Type: test.Collect\n  Streams: s\n");
        List<String> all = new ArrayList<>();
        for (String id : List.of("A", "B", "C")) {
            Collect c = p.producer(id);
            assertThat(c.payloads).as(id).hasSize(1000);
            all.addAll(c.payloads);
        }
        assertThat(all).containsExactlyInAnyOrderElementsOf(numbers(0, 3000));
    }

    @Test
    void randomSendsEachMessageToExactlyOneProducer() throws Exception {
        PipelineHarness p = PipelineHarness.run("Src:\n  Type: test.Numbers\n  Count: 10000\n  Streams: s\n"
                + "R:\n  Type: router.Random\n  Stream: s\n"
                + "A:\n  Type: test.Collect\n  Streams: s\nB:\n  Type: test.Collect\n  Streams: s\n");
        Collect a = p.producer("A");
        Collect b = p.producer("B");
        assertThat(a.payloads.size()).isBetween(4000, 6000);
        List<String> all = new ArrayList<>(a.payloads);
        all.addAll(b.payloads);
        assertThat(all).containsExactlyInAnyOrderElementsOf(numbers(0, 10000));
    }

    @Test
    void distributeForwardsToEveryTargetStream() throws Exception {
        PipelineHarness p = PipelineHarness.run("Src:\n  Type: test.Numbers\n  Count: 1500\n  Streams: in\n"
                + "D:\n  Type: router.Distribute\n  Stream: in\n  TargetStreams: [x, y]\n"
                + "X:\n  Type: test.Collect\n  Streams: x\nY:\n  Type: test.Collect\n  Streams: y\n");
        assertThat(p.collect("X").payloads).containsExactlyElementsOf(numbers(0, 1500));
        assertThat(p.collect("Y").payloads).containsExactlyElementsOf(numbers(0, 1500));
    }

    @Test
    void consumerWithTwoStreamsFeedsBoth() throws Exception {
        PipelineHarness p = PipelineHarness.run("Src:\n  Type: test.Numbers\n  Count: 700\n  Streams: [x, y]\n"
                + "X:\n  Type: test.Collect\n  Streams: x\nY:\n  Type: test.Collect\n  Streams: y\n");
        assertThat(p.collect("X").payloads).containsExactlyElementsOf(numbers(0, 700));
        assertThat(p.collect("Y").payloads).containsExactlyElementsOf(numbers(0, 700));
    }

    @Test
    void filteredMessagesGoToDroppedStreamAndAreCounted() throws Exception {
        PipelineHarness p = PipelineHarness.run("Src:\n  Type: test.Numbers\n  Count: 2000\n  Streams: s\n  Modulators: [test.DropOdd]\n"
                + "Kept:\n  Type: test.Collect\n  Streams: s\n"
                + "Dropped:\n  Type: test.Collect\n  Streams: _DROPPED_\n");
        List<String> even = numbers(0, 2000).stream().filter(s -> Integer.parseInt(s) % 2 == 0).collect(Collectors.toList());
        List<String> odd = numbers(0, 2000).stream().filter(s -> Integer.parseInt(s) % 2 == 1).collect(Collectors.toList());
        assertThat(p.collect("Kept").payloads).containsExactlyElementsOf(even);
        assertThat(p.collect("Dropped").payloads).containsExactlyElementsOf(odd);
        assertThat(p.pipeline().consumerStats().get(0).dropped()).isEqualTo(1000);
    }

    @Test
    void fallbackStreamTakesDroppedMessagesOfAProducerModulator() throws Exception {
        PipelineHarness p = PipelineHarness.run("Src:\n  Type: test.Numbers\n  Count: 100\n  Streams: s\n"
                + "Kept:\n  Type: test.Collect\n  Streams: s\n  Modulators: [test.DropOdd]\n  FallbackStream: rejects\n"
                + "Rejects:\n  Type: test.Collect\n  Streams: rejects\n");
        assertThat(p.collect("Kept").payloads).hasSize(50).allMatch(s -> Integer.parseInt(s) % 2 == 0);
        assertThat(p.collect("Rejects").payloads).hasSize(50).allMatch(s -> Integer.parseInt(s) % 2 == 1);
        assertThat(p.runner("Kept").stats().dropped()).isEqualTo(50);
    }

    @Test
    void droppedWithoutReaderIsDiscardedAndCounted() throws Exception {
        PipelineHarness p = PipelineHarness.run("Src:\n  Type: test.Numbers\n  Count: 100\n  Streams: s\n  Modulators: [test.DropOdd]\n"
                + "Kept:\n  Type: test.Collect\n  Streams: s\n");
        assertThat(p.collect("Kept").payloads).hasSize(50);
        assertThat(p.pipeline().unroutedDiscarded()).isEqualTo(50);
    }

    @Test
    void slowProducerHoldsFastConsumerBackWithinTheQueueBound() throws Exception {
        int channel = 2048;
        int total = 200_000;
        PipelineHarness p = PipelineHarness.of("Src:\n  Type: test.Numbers\n  Count: " + total + "\n  Streams: s\n"
                + "Slow:\n  Type: test.Gate\n  Streams: s\n  Channel: " + channel + "\n");
        Gate gate = p.producer("Slow");
        BatchQueue queue = p.runner("Slow").queue();
        p.start();
        await("queue full", 10_000, () -> queue.depth() >= channel);
        long bound = channel + 3L * BatchPool.DEFAULT_BATCH_SIZE;
        // The producer holds nothing back yet: whatever the consumer published sits in bounded places.
        for (int i = 0; i < 20; i++) {
            assertThat(p.pipeline().consumerStats().get(0).in()).isLessThanOrEqualTo(bound);
            Thread.sleep(1); // let the consumer try to run ahead; the bound must hold at every look
        }
        gate.permits.release(Integer.MAX_VALUE / 2);
        p.awaitEnd();
        assertThat(gate.delivered).isEqualTo(total);
        assertThat(queue.highWater()).isLessThan(channel + BatchPool.DEFAULT_BATCH_SIZE);
        assertThat(p.pipeline().batchesCreated()).as("batches are reused, not created per publish").isLessThan(20);
    }

    @Test
    void memoryBufferIsBoundedInBytesWhenMaxSizeIsSet() throws Exception {
        PipelineHarness p = PipelineHarness.of("Gen:\n  Type: consumer.Profiler\n  Runs: 20000\n  Batches: 1\n  Message: \"%1000s\"\n  Streams: s\n"
                + "Slow:\n  Type: test.Gate\n  Streams: s\n  Channel: 1000000\n  Buffer/MaxSize: 1000000\n");
        Gate gate = p.producer("Slow");
        BatchQueue queue = p.runner("Slow").queue();
        p.start();
        await("queue full in bytes", 10_000, () -> queue.depth() >= 1000);
        assertThat(p.pipeline().consumerStats().get(0).in()).isLessThanOrEqualTo(1000 + 3L * BatchPool.DEFAULT_BATCH_SIZE);
        gate.permits.release(Integer.MAX_VALUE / 2);
        p.awaitEnd();
        assertThat(gate.delivered).isEqualTo(20000);
        assertThat(queue.highWater()).as("messages of 1000 bytes under a 1 MB bound").isLessThan(1000 + BatchPool.DEFAULT_BATCH_SIZE);
    }

    @Test
    void stopDeliversEverythingGeneratedBeforeExit() throws Exception {
        PipelineHarness p = PipelineHarness.of("Gen:\n  Type: consumer.Profiler\n  Runs: 100000\n  Batches: 100000\n  KeepRunning: true\n"
                + "  Message: \"%32s\"\n  Streams: s\n  ModulatorRoutines: 2\n  Modulators: [format.Envelope]\n"
                + "Out:\n  Type: producer.Benchmark\n  Streams: s\n  ModulatorRoutines: 2\n  Modulators: [format.Timestamp]\n");
        p.start();
        await("some delivered", 10_000, () -> ((Benchmark) p.producer("Out")).delivered() > 100_000);
        p.close();
        long generated = p.pipeline().consumerStats().get(0).in();
        assertThat(generated).isGreaterThan(100_000);
        assertThat(((Benchmark) p.producer("Out")).delivered()).isEqualTo(generated);
        assertThat(p.pipeline().batchesCreated()).isLessThan(200);
    }

    @Test
    void profilerEndsPipelineAfterDeliveringEveryMessage() throws Exception {
        PipelineHarness p = PipelineHarness.run("Gen:\n  Type: consumer.Profiler\n  Runs: 1000\n  Batches: 7\n  Streams: s\n"
                + "Out:\n  Type: producer.Benchmark\n  Streams: s\n");
        assertThat(((Benchmark) p.producer("Out")).delivered()).isEqualTo(7000);
        assertThat(((Benchmark) p.producer("Out")).rate()).isPositive();
    }
}
