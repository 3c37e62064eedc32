package io.sluice.core.buffer;

import io.sluice.core.Daemon;
import io.sluice.core.pipeline.Log;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * When a disk buffer's appends reach the disk ({@code Buffer/Fsync}): before {@code put} returns ({@code always}),
 * every {@code Buffer/FsyncIntervalMs} from a thread of its own ({@code interval}), or when the OS writes them back
 * ({@code never}). A full segment is synced before it is closed unless {@code never}. The methods but
 * {@link #start} are called under the buffer's lock, which also guards the state here.
 */
final class SyncPolicy {
    private final DiskBuffer.Fsync mode;
    private final long intervalNanos;
    private final ReentrantLock lock;
    private final Condition wake;
    private final AtomicLong writeErrors;
    private final Log log;
    private final String id;
    private boolean dirty;
    private long lastSync = System.nanoTime();
    private Thread syncer;

    SyncPolicy(DiskBuffer.Fsync mode, long intervalMillis, ReentrantLock lock, AtomicLong writeErrors, Log log, String id) {
        this.mode = mode;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.lock = lock;
        this.wake = lock.newCondition();
        this.writeErrors = writeErrors;
        this.log = log;
        this.id = id;
    }

    /**
     * Starts the syncing thread of {@code interval}; {@code current} gives (under the lock) the segment being
     * appended to, or null once the buffer is closed, which ends the thread.
     */
    void start(Supplier<FileChannel> current) {
        if (mode != DiskBuffer.Fsync.INTERVAL) {
            return;
        }
        syncer = Daemon.start("disk-buffer-sync-" + id, () -> run(current));
    }

    private void run(Supplier<FileChannel> current) {
        while (true) {
            FileChannel toSync;
            lock.lock();
            try {
                if (current.get() == null) {
                    return;
                }
                wake.await(Math.max(1, intervalNanos / 1_000_000), TimeUnit.MILLISECONDS);
                if (!dirty || System.nanoTime() - lastSync < intervalNanos) {
                    continue;
                }
                toSync = current.get();
                if (toSync == null) {
                    return; // closed meanwhile: shutdown syncs
                }
                dirty = false;
                lastSync = System.nanoTime();
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            // Outside the lock: writing back a second of appends can take as long again, and appends must go on.
            try {
                toSync.force(false);
            } catch (ClosedChannelException rotated) {
                // The segment was rotated meanwhile, and rotation syncs before it closes.
            } catch (IOException e) {
                writeErrors.incrementAndGet();
                log.limited(Log.ERROR, id + ": fsync", id + ": fsync of disk buffer failed: " + e);
            }
        }
    }

    /** Records were appended to {@code segment}: synced now under {@code always}, remembered for the thread otherwise. */
    void appended(FileChannel segment) throws IOException {
        if (mode == DiskBuffer.Fsync.ALWAYS) {
            segment.force(false);
            lastSync = System.nanoTime();
        } else {
            dirty = true;
        }
    }

    /** Whether a segment (or {@code ack.pos}) is synced before it is closed. */
    boolean syncsOnClose() {
        return mode != DiskBuffer.Fsync.NEVER;
    }

    /** Whether each acknowledged position is synced as it is saved. */
    boolean syncsEachWrite() {
        return mode == DiskBuffer.Fsync.ALWAYS;
    }

    /** Wakes the thread to see that the buffer closed. */
    void wake() {
        wake.signalAll();
    }

    /** Ends the thread (after {@link #wake}, outside the lock). */
    void stop() {
        if (syncer != null) {
            syncer.interrupt();
        }
    }
}
