package io.sluice.core.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.HarnessPlugins;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Completion;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginStats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskBufferTest {
    @TempDir
    Path dir;

    private final BatchPool pool = new BatchPool(64);
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final Log log = new Log(new PrintStream(logBytes, true, StandardCharsets.UTF_8), Log.INFO);
    private final PluginStats stats = statsOf();

    private static PluginStats statsOf() {
        Pipeline p = PipelineHarness.pipeline("S:\n  Type: test.Numbers\n  Streams: s\nC:\n  Type: test.Collect\n  Streams: s\n");
        return p.producers().get(0).stats();
    }

    private DiskBuffer open(long maxBytes, DiskBuffer.WhenFull whenFull) throws IOException {
        return new DiskBuffer(dir, maxBytes, 4096, whenFull, DiskBuffer.Fsync.NEVER, 1000, pool, stats, log, "test");
    }

    private Batch batch(int from, int count) {
        Batch b = pool.acquire();
        for (int i = from; i < from + count; i++) {
            Message m = b.add();
            m.setPayload("event-" + i + "-" + "x".repeat(40));
            m.setTimestamp(1_700_000_000_123_456_789L + i);
            m.setStream(Streams.id("disk"));
            m.setTag(i % 2 == 0 ? "app.even" : null);
            m.metadata().setString("n", Integer.toString(i));
            m.metadata().set("k".getBytes(StandardCharsets.UTF_8), "1.5".getBytes(StandardCharsets.UTF_8), Metadata.NUMBER);
        }
        return b;
    }

    /** Polls and delivers everything available, returning the payloads in order. */
    private static List<String> drain(DiskBuffer buffer, boolean deliver) throws InterruptedException {
        List<String> out = new ArrayList<>();
        Batch b;
        while ((b = buffer.poll(0, TimeUnit.MILLISECONDS)) != null) {
            for (int i = 0; i < b.size(); i++) {
                out.add(b.get(i).payloadString());
            }
            if (deliver) {
                buffer.delivered(b);
            }
            b.release();
        }
        return out;
    }

    private static List<String> expected(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add("event-" + i + "-" + "x".repeat(40));
        }
        return out;
    }

    @Test
    void everyFieldRoundTripsInOrderAndTheUpstreamAckComesAtWrite() throws Exception {
        DiskBuffer buffer = open(1 << 20, DiskBuffer.WhenFull.BLOCK);
        AtomicInteger acked = new AtomicInteger();
        Batch b = batch(0, 3);
        b.setCompletion(new Completion() {
            @Override
            protected void onComplete() {
                acked.incrementAndGet();
            }
        });
        assertThat(buffer.put(b, 0)).isTrue();
        assertThat(acked).as("acknowledged once on disk, before delivery").hasValue(1);
        Batch read = buffer.poll(1, TimeUnit.SECONDS);
        assertThat(read.size()).isEqualTo(3);
        Message m = read.get(0);
        assertThat(m.payloadString()).isEqualTo(expected(0, 1).get(0));
        assertThat(m.timestamp()).isEqualTo(1_700_000_000_123_456_789L);
        assertThat(Streams.name(m.stream())).isEqualTo("disk");
        assertThat(m.tag()).isEqualTo("app.even");
        assertThat(read.get(1).tag()).isNull();
        assertThat(m.metadata().getString("n")).isEqualTo("0");
        assertThat(m.metadata().kind(m.metadata().indexOf("k"))).isEqualTo(Metadata.NUMBER);
        buffer.delivered(read);
        read.release();
        assertThat(buffer.depth()).isZero();
        buffer.shutdown();
    }

    @Test
    void restartReplaysExactlyWhatWasNotDelivered() throws Exception {
        DiskBuffer buffer = open(1 << 20, DiskBuffer.WhenFull.BLOCK);
        for (int i = 0; i < 10; i++) {
            buffer.put(batch(i * 50, 50), 0);
        }
        List<String> first = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            Batch b = buffer.poll(1, TimeUnit.SECONDS);
            for (int i = 0; i < b.size(); i++) {
                first.add(b.get(i).payloadString());
            }
            buffer.delivered(b);
            b.release();
        }
        Batch undelivered = buffer.poll(1, TimeUnit.SECONDS); // taken but never delivered: must come back
        assertThat(undelivered).isNotNull();
        buffer.shutdown();
        long segmentsBefore = segments().size();

        DiskBuffer reopened = open(1 << 20, DiskBuffer.WhenFull.BLOCK);
        List<String> replayed = drain(reopened, true);
        List<String> all = new ArrayList<>(first);
        all.addAll(replayed);
        assertThat(all).containsExactlyElementsOf(expected(0, 500));
        assertThat(stats.corruptRecords()).isZero();
        assertThat(reopened.depth()).isZero();
        reopened.shutdown();
        assertThat(segments().size()).as("delivered segments are deleted").isLessThan((int) segmentsBefore);
    }

    @Test
    void corruptAndTornRecordsAreSkippedReportedAndTheRestDelivered() throws Exception {
        DiskBuffer buffer = open(1 << 20, DiskBuffer.WhenFull.BLOCK);
        for (int i = 0; i < 20; i++) {
            buffer.put(batch(i * 10, 10), 0);
        }
        buffer.shutdown();
        List<Path> segs = segments();
        assertThat(segs.size()).isGreaterThan(3);
        // Flip bytes in the middle of the first segment, and cut the second one mid-record.
        try (RandomAccessFile f = new RandomAccessFile(segs.get(0).toFile(), "rw")) {
            f.seek(f.length() / 2);
            f.write(new byte[] {0x55, 0x55, 0x55, 0x55});
        }
        try (RandomAccessFile f = new RandomAccessFile(segs.get(1).toFile(), "rw")) {
            f.setLength(f.length() - 7);
        }
        DiskBuffer reopened = open(1 << 20, DiskBuffer.WhenFull.BLOCK);
        List<String> got = drain(reopened, true);
        assertThat(stats.corruptRecords()).as("counted in the metrics").isGreaterThanOrEqualTo(2);
        assertThat(got.size()).as("missing %s, log %s", expected(0, 200).stream().filter(e -> !got.contains(e)).map(e -> e.substring(0, 10)).collect(Collectors.toList()), logBytes).isBetween(200 - 4, 200 - 2);
        assertThat(expected(0, 200)).containsAll(got);
        assertThat(got).doesNotHaveDuplicates();
        // Everything after the damage is still there, in order.
        assertThat(got.subList(got.size() - 100, got.size())).containsExactlyElementsOf(expected(100, 200));
        assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("corrupt bytes in " + segs.get(0)).contains("at offset");
        reopened.shutdown();
    }

    @Test
    void fullBufferBlocksOrDropsNewestWithACount() throws Exception {
        DiskBuffer blocking = open(2000, DiskBuffer.WhenFull.BLOCK);
        assertThat(blocking.put(batch(0, 20), 0)).isTrue();
        Batch second = batch(20, 20);
        assertThat(blocking.put(second, TimeUnit.MILLISECONDS.toNanos(50))).as("held back while full").isFalse();
        Batch b = blocking.poll(1, TimeUnit.SECONDS);
        blocking.delivered(b);
        b.release();
        assertThat(blocking.put(second, TimeUnit.SECONDS.toNanos(5))).as("room again after delivery").isTrue();
        blocking.shutdown();
        deleteAll();

        DiskBuffer dropping = open(2000, DiskBuffer.WhenFull.DROP_NEWEST);
        long before = stats.discarded();
        assertThat(dropping.put(batch(0, 20), 0)).isTrue();
        assertThat(dropping.put(batch(20, 20), 0)).isTrue();
        assertThat(stats.discarded() - before).isEqualTo(20);
        assertThat(drain(dropping, true)).containsExactlyElementsOf(expected(0, 20));
        dropping.shutdown();
    }

    @Test
    void pipelineWithDiskBufferDeliversEverythingAcrossARestart() throws Exception {
        String yaml = "Src:\n  Type: test.Numbers\n  Count: 5000\n  Streams: s\n"
                + "Out:\n  Type: test.Gate\n  Streams: s\n  Buffer/Type: disk\n  Buffer/Path: " + dir + "\n  ShutdownTimeoutMs: 200\n";
        Pipeline first = PipelineHarness.pipeline(yaml);
        HarnessPlugins.Gate gate = PipelineHarness.producer(first, "Out");
        gate.permits.release(3); // three batches get through, the rest wait on disk
        first.start();
        assertThat(first.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        long deliveredFirst = gate.delivered;
        assertThat(deliveredFirst).isBetween(1L, 4999L);

        Pipeline second = PipelineHarness.pipeline(yaml.replace("Count: 5000", "Count: 0"));
        HarnessPlugins.Gate gate2 = PipelineHarness.producer(second, "Out");
        gate2.permits.release(Integer.MAX_VALUE / 2);
        second.start();
        PipelineHarness.await("replayed", 10_000, () -> gate2.delivered == 5000 - deliveredFirst);
        second.stop();
        assertThat(gate2.delivered).isEqualTo(5000 - deliveredFirst);
    }

    private List<Path> segments() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".seg")).sorted().collect(Collectors.toList());
        }
    }

    private void deleteAll() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.collect(Collectors.toList())) {
                Files.delete(p);
            }
        }
    }

    // --- a disk that cannot be written ----------------------------------------------------------------------

    /** Records how the source of a batch was answered. */
    private static final class Answer extends Completion {
        final AtomicInteger completed = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();

        @Override
        protected void onComplete() {
            completed.incrementAndGet();
        }

        @Override
        protected void onFailed() {
            failed.incrementAndGet();
        }
    }

    private long writeErrors() {
        return stats.counters().stream().filter(c -> c.name().equals("sluice_buffer_write_errors_total"))
                .mapToLong(c -> c.value().get()).sum();
    }

    private DiskBuffer openFailing(AtomicLong space, DiskBuffer.Fsync fsync, long segmentBytes) throws IOException {
        return new DiskBuffer(dir, 1 << 20, segmentBytes, DiskBuffer.WhenFull.BLOCK, fsync, 1000, pool, stats, log, "test",
                (path, options) -> new FailingChannel(java.nio.channels.FileChannel.open(path, options), space));
    }

    @Test
    void aWriteFailureRefusesTheBatchToItsSourceCountsItAndRecovers() throws Exception {
        AtomicLong space = new AtomicLong(Long.MAX_VALUE);
        DiskBuffer buffer = openFailing(space, DiskBuffer.Fsync.ALWAYS, 1 << 20);
        assertThat(buffer.put(batch(0, 10), 0)).isTrue();
        assertThat(buffer.isReady()).isTrue();

        space.set(100); // the disk fills up: part of the next batch fits, then ENOSPC
        Answer answer = new Answer();
        Batch refused = batch(10, 10);
        refused.setCompletion(answer);
        long failedBefore = stats.failed();
        assertThat(buffer.put(refused, 0)).as("the put returns (never hangs), the buffer disposed of the batch").isTrue();
        assertThat(answer.failed).as("the source is told the batch failed").hasValue(1);
        assertThat(answer.completed).as("and never that it was kept").hasValue(0);
        assertThat(writeErrors()).isEqualTo(1);
        assertThat(stats.failed() - failedBefore).isEqualTo(10);
        assertThat(buffer.isReady()).isFalse();
        assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("ERROR").contains("cannot write disk buffer")
                .contains("No space left on device");
        assertThat(buffer.depth()).as("nothing of the refused batch is held").isEqualTo(depthOf(0, 10));

        // Still full: refused again, still not ready, nothing hangs.
        Answer again = new Answer();
        Batch second = batch(10, 10);
        second.setCompletion(again);
        assertThat(buffer.put(second, 0)).isTrue();
        assertThat(again.failed).hasValue(1);
        assertThat(writeErrors()).isEqualTo(2);

        // Space again: /ready's probe sees it (at most once a second), and writes go on.
        space.set(Long.MAX_VALUE);
        PipelineHarness.await("ready after the disk has room", 10_000, buffer::isReady);
        assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("can be written again");
        Answer kept = new Answer();
        Batch third = batch(20, 10);
        third.setCompletion(kept);
        assertThat(buffer.put(third, 0)).isTrue();
        assertThat(kept.completed).hasValue(1);
        List<String> want = new ArrayList<>(expected(0, 10));
        want.addAll(expected(20, 30));
        assertThat(drain(buffer, true)).containsExactlyElementsOf(want);
        assertThat(stats.corruptRecords()).isZero();
        buffer.shutdown();
        assertThat(Files.exists(dir.resolve("write.probe"))).isFalse();
    }

    private long depthOf(int from, int count) throws IOException {
        Path other = Files.createTempDirectory(dir.getParent(), "depth");
        DiskBuffer b = new DiskBuffer(other, 1 << 20, 1 << 20, DiskBuffer.WhenFull.BLOCK, DiskBuffer.Fsync.NEVER, 1000, pool,
                new PluginStats("x", "x"), log, "depth");
        try {
            b.put(batch(from, count), 0);
            return b.depth();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        } finally {
            b.shutdown();
        }
    }

    /**
     * Failures at random points, across segment rotations: exactly the accepted batches are delivered, in order,
     * with no torn or corrupt record, and the same after a restart.
     */
    @Test
    void randomWriteFailuresKeepExactlyTheAcceptedBatches() throws Exception {
        java.util.Random r = new java.util.Random(17);
        AtomicLong space = new AtomicLong(Long.MAX_VALUE);
        DiskBuffer buffer = openFailing(space, DiskBuffer.Fsync.NEVER, 2048);
        List<String> accepted = new ArrayList<>();
        int refusedCount = 0;
        for (int i = 0; i < 60; i++) {
            boolean fail = r.nextInt(3) == 0;
            space.set(fail ? r.nextInt(400) : Long.MAX_VALUE);
            Answer a = new Answer();
            Batch b = batch(i * 4, 4);
            b.setCompletion(a);
            assertThat(buffer.put(b, 0)).isTrue();
            assertThat(a.completed.get() + a.failed.get()).isEqualTo(1);
            if (a.completed.get() == 1) {
                accepted.addAll(expected(i * 4, i * 4 + 4));
            } else {
                refusedCount++;
            }
        }
        // The last write fails halfway, and the buffer is shut down right after it.
        space.set(150);
        Answer last = new Answer();
        Batch lastBatch = batch(1000, 4);
        lastBatch.setCompletion(last);
        assertThat(buffer.put(lastBatch, 0)).isTrue();
        assertThat(last.failed).hasValue(1);
        refusedCount++;
        assertThat(refusedCount).as("some puts were refused").isGreaterThan(5);
        assertThat(accepted).as("some were kept").isNotEmpty();
        assertThat(writeErrors()).isEqualTo(refusedCount);
        space.set(Long.MAX_VALUE);
        buffer.shutdown();
        DiskBuffer reopened = open(1 << 20, DiskBuffer.WhenFull.BLOCK);
        assertThat(drain(reopened, true)).containsExactlyElementsOf(accepted);
        assertThat(stats.corruptRecords()).as("no torn record left by a failed write").isZero();
        assertThat(logBytes.toString(StandardCharsets.UTF_8)).doesNotContain("corrupt");
        reopened.shutdown();
    }

    @Test
    void thePipelineReportsNotReadyWhileItsDiskBufferCannotWrite() throws Exception {
        // A one-byte segment size: every put after the first opens a new segment, through the swapped-in channels.
        String yaml = "Src:\n  Type: test.Numbers\n  Count: 0\n  KeepRunning: true\n  Streams: s\n"
                + "Out:\n  Type: test.Collect\n  Streams: s\n  Buffer/Type: disk\n  Buffer/Path: " + dir + "\n"
                + "  Buffer/SegmentSize: 1\n";
        Pipeline p = PipelineHarness.pipeline(yaml);
        p.start();
        try {
            DiskBuffer buffer = (DiskBuffer) p.producers().get(0).buffer();
            assertThat(buffer.put(batch(0, 5), 0)).isTrue();
            assertThat(p.isReady()).isTrue();
            AtomicLong space = new AtomicLong(0);
            buffer.channels((path, options) -> new FailingChannel(java.nio.channels.FileChannel.open(path, options), space));
            Answer a = new Answer();
            Batch b = batch(5, 5);
            b.setCompletion(a);
            assertThat(buffer.put(b, 0)).isTrue();
            assertThat(a.failed).hasValue(1);
            assertThat(p.isReady()).as("/ready while the disk buffer cannot write").isFalse();
            assertThat(p.plugins()).filteredOn(i -> i.id().equals("Out")).singleElement()
                    .satisfies(i -> assertThat(i.ready()).isFalse());
            space.set(Long.MAX_VALUE);
            Answer kept = new Answer();
            Batch ok = batch(10, 5);
            ok.setCompletion(kept);
            assertThat(buffer.put(ok, 0)).isTrue();
            assertThat(kept.completed).hasValue(1);
            assertThat(p.isReady()).isTrue();
        } finally {
            p.stop();
        }
    }
}
