package io.sluice.core.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Fuzz targets for what the disk buffer reads back from its files after a restart: a record body through
 * {@link RecordCodec#decode}, and whole segment files through {@link DiskBuffer}'s replay. A damaged record is
 * the disk's fault, not the reader's: the codec may only fail with the buffer bounds errors the replay counts
 * as a corrupt record (and skips), and the replay must pass over anything, in finite time, without throwing.
 * A record that decodes encodes back to one that decodes the same.
 */
class RecordCodecFuzzTest {
    private static final PluginStats STATS = PipelineHarness.pipeline(
            "S:\n  Type: test.Numbers\n  Streams: s\nC:\n  Type: test.Collect\n  Streams: s\n").producers().get(0).stats();
    private static final Log LOG = new Log(new PrintStream(PrintStream.nullOutputStream()), Log.ERROR);

    private final BatchPool pool = new BatchPool(64);

    @FuzzTest(maxDuration = "5m")
    void decode(byte[] body) {
        Batch batch = pool.acquire();
        Message m = batch.add();
        if (!decodes(new RecordCodec(), body, m)) {
            batch.release();
            return;
        }
        ByteBuffer again = ByteBuffer.allocate(RecordCodec.maxSize(m));
        new RecordCodec().encode(m, again);
        again.flip();
        Message back = batch.add();
        new RecordCodec().decode(again, back);
        assertSame(back, m);
        batch.release();
    }

    /** Bodies framed as the buffer writes them (magic, length, CRC32C), so that the replay decodes them. */
    @FuzzTest(maxDuration = "5m")
    void replayRecords(byte[] data) throws IOException, InterruptedException {
        ByteBuffer segment = ByteBuffer.allocate(data.length * 12 + 16); // a 12-byte header per input byte at most
        int at = 0;
        while (at < data.length) {
            int len = Math.min(data[at] & 0xFF, data.length - at - 1);
            at++;
            segment.putInt(RecordCodec.MAGIC).putInt(len);
            CRC32C crc = new CRC32C();
            crc.update(data, at, len);
            segment.putInt((int) crc.getValue()).put(data, at, len);
            at += len;
        }
        replay(segment.array(), segment.position());
    }

    /** A segment file as it is found on disk, whatever it holds. */
    @FuzzTest(maxDuration = "5m")
    void replaySegment(byte[] segment) throws IOException, InterruptedException {
        replay(segment, segment.length);
    }

    private static boolean decodes(RecordCodec codec, byte[] body, Message m) {
        try {
            codec.decode(ByteBuffer.wrap(body), m);
            return true;
        } catch (IllegalStateException | IllegalArgumentException | BufferUnderflowException e) {
            // A body that does not parse: DiskBuffer counts it corrupt and skips it.
            return false;
        }
    }

    private void replay(byte[] bytes, int len) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("fuzz-disk-buffer");
        try {
            Files.write(dir.resolve(String.format("%020d.seg", 0)), java.util.Arrays.copyOf(bytes, len));
            DiskBuffer buffer = new DiskBuffer(dir, 1 << 30, 1 << 20, DiskBuffer.WhenFull.BLOCK,
                    DiskBuffer.Fsync.NEVER, 1000, pool, STATS, LOG, "fuzz");
            try {
                long polled = 0;
                Batch b;
                while ((b = buffer.poll(0, TimeUnit.MILLISECONDS)) != null) {
                    polled += b.size();
                    assertThat(polled).isLessThanOrEqualTo(len); // each message takes at least one byte
                    buffer.delivered(b);
                }
                assertThat(buffer.depth()).isZero();
            } finally {
                buffer.close();
            }
        } finally {
            delete(dir);
        }
    }

    private static void assertSame(Message a, Message b) {
        assertThat(a.timestamp()).isEqualTo(b.timestamp());
        assertThat(a.stream()).isEqualTo(b.stream());
        assertThat(a.tag()).isEqualTo(b.tag());
        assertThat(a.payloadString()).isEqualTo(b.payloadString());
        assertThat(fields(a)).isEqualTo(fields(b));
    }

    private static List<String> fields(Message m) {
        List<String> out = new ArrayList<>();
        if (m.hasMetadata()) {
            Metadata md = m.metadata();
            for (int i = 0; i < md.size(); i++) {
                out.add(md.kind(i) + ":" + md.key(i) + "=" + md.value(i));
            }
        }
        return out;
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> assertThatCode(() -> Files.delete(p))
                    .doesNotThrowAnyException());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
