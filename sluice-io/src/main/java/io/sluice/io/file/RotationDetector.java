package io.sluice.io.file;

import io.sluice.core.pipeline.Log;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Notices, for {@link FileConsumer}, the two ways a log file is rotated under its reader. By copytruncate: the
 * file is shorter than what was read of it, so it is read again from its start. By rename (or deletion): its path
 * no longer leads to it (files are known by device and inode, {@link TailedFile#keyOf}), so it is read to its end
 * and released once it stayed quiet for {@code RotateWaitMs}, while the new file under the name is picked up by
 * the next scan.
 */
final class RotationDetector {
    /** What {@link #check} found. */
    enum State {
        /** The path still leads to the file. */
        IN_PLACE,
        /** The file just left its path: rescan for its successor now. */
        GONE,
        /** Gone, and still within RotateWaitMs of leaving or of its last data. */
        WAITING,
        /** Gone and quiet for RotateWaitMs: release it. */
        EXPIRED
    }

    private final String id;
    private final long waitNanos;
    private final AtomicLong truncations = new AtomicLong();

    /** @param waitNanos RotateWaitMs: how long a file gone from its path is still read for late writes */
    RotationDetector(String id, long waitNanos) {
        this.id = id;
        this.waitNanos = waitNanos;
    }

    /** At the end of {@code f}, which has {@code size} bytes: whether it was truncated under us (logged, counted). */
    boolean truncated(TailedFile f, long size, Log log) {
        if (size >= f.readPosition()) {
            return false;
        }
        truncations.incrementAndGet();
        log.info(id + ": " + f.path + " was truncated (" + size + " < " + f.readPosition()
                + " bytes read), reading it again from the start");
        return true;
    }

    /** Whether {@code f} is still at its path, at {@code now} (nanoTime); a file newly gone is logged and counted. */
    State check(TailedFile f, long now, Log log) {
        Object key = TailedFile.keyOf(f.path);
        if (key != null && key.equals(f.key)) {
            f.goneSinceNanos = 0;
            return State.IN_PLACE;
        }
        if (f.goneSinceNanos == 0) {
            f.goneSinceNanos = now;
            log.info(id + ": " + f.path + " was rotated or removed; reading it to its end");
            return State.GONE;
        }
        return now - f.goneSinceNanos >= waitNanos && now - f.lastDataNanos >= waitNanos ? State.EXPIRED : State.WAITING;
    }

    /** Files seen truncated under the reader. */
    long truncations() {
        return truncations.get();
    }
}
