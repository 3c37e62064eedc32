package io.sluice.io.file;

import io.sluice.core.pipeline.Log;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * A {@link FileTarget}'s streak of failed writes: logged as an ERROR once when it starts and then every 30 s,
 * reported through {@link #failing()} (so {@code /ready} says not ready) until a write succeeds, which is logged
 * with how long the streak lasted. Touched under the target's lock; {@link #failing()} is read by any thread.
 */
final class WriteFailures {
    private static final long LOG_EVERY_NANOS = 30_000_000_000L;

    private final String id;
    private final Log log;
    private volatile boolean failing;
    private long failingSince;
    private long lastFailureLog;

    WriteFailures(String id, Log log) {
        this.id = id;
        this.log = log;
    }

    /** Whether the last write failed and none succeeded since. */
    boolean failing() {
        return failing;
    }

    /** A write to {@code where} failed with {@code e}. */
    void failed(Exception e, String where) {
        long now = System.nanoTime();
        if (failingSince == 0) {
            failingSince = now;
        }
        failing = true;
        if (lastFailureLog == 0 || now - lastFailureLog > LOG_EVERY_NANOS) {
            lastFailureLog = now;
            log.error(id + ": cannot write " + where + ": " + reason(e) + (isDiskFull(e) ? " (disk full?)" : "")
                    + "; the delivery fails and is retried, nothing is acknowledged meanwhile, /ready reports not ready");
        }
    }

    /** A write to {@code where} succeeded: a streak of failures ends. */
    void recovered(Object where) {
        if (failingSince != 0) {
            log.info(id + ": writing to " + where + " works again after "
                    + (System.nanoTime() - failingSince) / 1_000_000 + " ms");
        }
        failingSince = 0;
        lastFailureLog = 0;
        failing = false;
    }

    /** What went wrong, in words: the JDK leaves the reason of some file-system exceptions empty. */
    static String reason(Throwable e) {
        if (e instanceof FileSystemException f) {
            String r = f.getReason();
            if (r == null) {
                r = e instanceof AccessDeniedException ? "permission denied"
                        : e instanceof NoSuchFileException ? "no such file or directory"
                        : e instanceof FileAlreadyExistsException ? "exists and is not a directory"
                        : e.getClass().getSimpleName();
            }
            return f.getFile() != null ? f.getFile() + ": " + r : r;
        }
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    private static boolean isDiskFull(Exception e) {
        String m = String.valueOf(e.getMessage()).toLowerCase();
        return m.contains("no space") || m.contains("quota");
    }
}
