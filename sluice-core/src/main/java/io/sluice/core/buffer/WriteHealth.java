package io.sluice.core.buffer;

import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether a disk buffer can be written: a batch whose write failed (disk full, an I/O error) is refused (counted,
 * logged, failed back to its source) and the buffer is not ready until a write succeeds again: the next batch, or
 * {@code write.probe}, a file of the refused size written at most once a second while readiness is asked.
 */
final class WriteHealth {
    private static final String PROBE_FILE = "write.probe";
    private static final long PROBE_INTERVAL_NANOS = 1_000_000_000L;

    private final SegmentFiles files;
    private final Path probe;
    private final AtomicLong writeErrors;
    private final PluginStats stats;
    private final Log log;
    private final String id;
    /** A write failed and none succeeded since: not ready. */
    private volatile boolean failing;
    private volatile long failingSince;
    private volatile long lastProbe;
    private volatile int refusedBytes;

    WriteHealth(SegmentFiles files, AtomicLong writeErrors, PluginStats stats, Log log, String id) throws IOException {
        this.files = files;
        this.probe = files.dir().resolve(PROBE_FILE);
        this.writeErrors = writeErrors;
        this.stats = stats;
        this.log = log;
        this.id = id;
        Files.deleteIfExists(probe);
    }

    /** Refuses a batch that could not be written: counted, logged, failed back to its source; not ready meanwhile. */
    void refuse(Batch batch, int bytes, IOException e) {
        writeErrors.incrementAndGet();
        stats.addFailed(batch.size());
        refusedBytes = bytes;
        if (!failing) {
            failingSince = System.nanoTime();
            lastProbe = System.nanoTime();
            failing = true;
        }
        String m = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        boolean full = m.contains("no space") || m.contains("quota");
        log.limited(Log.ERROR, id + ": disk buffer write failed", id + ": cannot write disk buffer " + files.dir() + ": " + e
                + (full ? " (disk full?)" : "") + "; refusing " + batch.size() + " messages (their source is not"
                + " acknowledged and sends them again), /ready reports not ready until a write succeeds");
        batch.fail();
    }

    /** A write succeeded: ready again if it was not. */
    void written() {
        if (failing) {
            recovered();
        }
    }

    private void recovered() {
        long since = failingSince;
        failing = false;
        log.info(id + ": disk buffer " + files.dir() + " can be written again after "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since) + " ms");
    }

    /**
     * False while the last write failed. Asked while failing (by {@code /ready}), it writes a probe file of the
     * refused batch's size at most once a second: when that works, it is ready again and senders come back.
     */
    boolean isReady() {
        if (!failing) {
            return true;
        }
        long now = System.nanoTime();
        if (now - lastProbe < PROBE_INTERVAL_NANOS) {
            return false;
        }
        lastProbe = now;
        try {
            try (FileChannel ch = files.open(probe, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer zeros = ByteBuffer.allocate(Math.max(1, Math.min(refusedBytes, 1 << 20)));
                while (zeros.hasRemaining()) {
                    ch.write(zeros);
                }
            }
        } catch (IOException e) {
            return false;
        } finally {
            try {
                Files.deleteIfExists(probe);
            } catch (IOException ignored) {
                // Deleted on the next start.
            }
        }
        written();
        return true;
    }
}
