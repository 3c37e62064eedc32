package io.sluice.core.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.TestPlugins;
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
        Pipeline p = TestPlugins.pipeline("S:\n  Type: test.Numbers\n  Streams: s\nC:\n  Type: test.Collect\n  Streams: s\n");
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
        assertThat(reopened.corrupted()).isZero();
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
        assertThat(reopened.corrupted()).isGreaterThanOrEqualTo(2);
        assertThat(stats.corruptRecords()).as("reported to the metrics too").isEqualTo(reopened.corrupted());
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
        Pipeline first = TestPlugins.pipeline(yaml);
        TestPlugins.Gate gate = TestPlugins.producer(first, "Out");
        gate.permits.release(3); // three batches get through, the rest wait on disk
        first.start();
        assertThat(first.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        long deliveredFirst = gate.delivered;
        assertThat(deliveredFirst).isBetween(1L, 4999L);

        Pipeline second = TestPlugins.pipeline(yaml.replace("Count: 5000", "Count: 0"));
        TestPlugins.Gate gate2 = TestPlugins.producer(second, "Out");
        gate2.permits.release(Integer.MAX_VALUE / 2);
        second.start();
        TestPlugins.await("replayed", 10_000, () -> gate2.delivered == 5000 - deliveredFirst);
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
}
