package io.sluice.io.file;

import io.sluice.core.pipeline.Log;
import java.io.IOException;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Notices, for {@link FileConsumer}, the ways a log file is rotated under its reader. By copytruncate: the file is
 * shorter than what was read of it, or (when the writer put back as many bytes before the reader looked again) it
 * no longer starts with the bytes it started with ({@link Fingerprint}); either way it is read again from its start.
 * By rename (or deletion): its path no longer leads to it (files are known by device and inode,
 * {@link TailedFile#keyOf}), so it is read to its end and released once it stayed quiet for {@code RotateWaitMs},
 * while the new file under the name is picked up by the next scan.
 */
final class RotationDetector {
    /** What {@link #check} found. */
    enum State {
        /** The path still leads to the file. */
        IN_PLACE,
        /** The path still leads to the file, whose content was replaced from its start: read it again. */
        REPLACED,
        /** The file just left its path: rescan for its successor now. */
        GONE,
        /** Gone, and still within RotateWaitMs of leaving or of its last data. */
        WAITING,
        /** Gone and quiet for RotateWaitMs: release it. */
        EXPIRED
    }

    private final String id;
    private final long waitNanos;
    private final Fingerprint fingerprints;
    private final AtomicLong truncations = new AtomicLong();

    /**
     * @param waitNanos    RotateWaitMs: how long a file gone from its path is still read for late writes
     * @param fingerprints the reader thread's
     */
    RotationDetector(String id, long waitNanos, Fingerprint fingerprints) {
        this.id = id;
        this.waitNanos = waitNanos;
        this.fingerprints = fingerprints;
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

    /**
     * Whether the content of {@code f} was replaced from its start since it was fingerprinted (logged, counted);
     * while it is not, its fingerprint grows with the file up to {@link Fingerprint#BYTES}. One positional read of
     * the file's first bytes.
     */
    boolean replaced(TailedFile f, Log log) throws IOException {
        long known = f.fingerprint();
        long now = fingerprints.verify(f.channel, known);
        if (now != Fingerprint.MISMATCH) {
            if (now != known) {
                f.fingerprint(now);
            }
            return false;
        }
        truncations.incrementAndGet();
        log.info(id + ": " + f.path + " was truncated and written again (its first bytes changed), reading it "
                + "again from the start");
        return true;
    }

    /**
     * Whether {@code f} is still at its path, at {@code now} (nanoTime); a file newly gone is logged and counted.
     * A file still there that was modified since the last look has its first bytes checked: replaced at the same
     * size, nothing else would show it.
     */
    State check(TailedFile f, long now, Log log) {
        BasicFileAttributes a = TailedFile.attributes(f.path);
        Object key = TailedFile.keyOf(f.path, a);
        if (key != null && key.equals(f.key)) {
            f.goneSinceNanos = 0;
            return modifiedAndReplaced(f, a.lastModifiedTime(), log) ? State.REPLACED : State.IN_PLACE;
        }
        if (f.goneSinceNanos == 0) {
            f.goneSinceNanos = now;
            log.info(id + ": " + f.path + " was rotated or removed; reading it to its end");
            return State.GONE;
        }
        return now - f.goneSinceNanos >= waitNanos && now - f.lastDataNanos >= waitNanos ? State.EXPIRED : State.WAITING;
    }

    private boolean modifiedAndReplaced(TailedFile f, FileTime modified, Log log) {
        if (modified.equals(f.seenModified)) {
            return false;
        }
        f.seenModified = modified;
        try {
            return replaced(f, log);
        } catch (IOException e) {
            return false; // the same channel's next read fails as well, and is handled there
        }
    }

    /** Files seen truncated (or replaced from their start) under the reader. */
    long truncations() {
        return truncations.get();
    }
}
