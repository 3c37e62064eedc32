package io.sluice.core.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the TLS files looked like when last read: their modification times and sizes, checked at most once a
 * second (on a handshake, so there is no watcher thread to keep alive and a rotation is seen by the next client).
 */
final class FileStamp {
    static final long CHECK_INTERVAL_NANOS = 1_000_000_000L;

    private final List<Path> files;
    private volatile List<Long> seen;
    private volatile long nextCheck;

    FileStamp(String... names) {
        this.files = Arrays.stream(names).filter(n -> n != null && !n.isEmpty()).map(Path::of).toList();
        this.seen = read();
        this.nextCheck = System.nanoTime() + CHECK_INTERVAL_NANOS;
    }

    /**
     * Whether the files changed since the last call that returned true (or since construction); at most one
     * caller a second looks at the disk.
     */
    boolean changed() {
        long now = System.nanoTime();
        if (now - nextCheck < 0) {
            return false;
        }
        synchronized (this) {
            if (now - nextCheck < 0) {
                return false;
            }
            nextCheck = now + CHECK_INTERVAL_NANOS;
            List<Long> current = read();
            if (current.equals(seen)) {
                return false;
            }
            seen = current;
            return true;
        }
    }

    /** Checks now, whatever the interval (tests, and a reload that failed and must be retried). */
    void forceNextCheck() {
        nextCheck = System.nanoTime();
    }

    private List<Long> read() {
        List<Long> out = new ArrayList<>(files.size() * 2);
        for (Path p : files) {
            try {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                out.add(a.lastModifiedTime().toMillis());
                out.add(a.size());
            } catch (IOException e) {
                // a file being replaced may be missing for a moment: that is a change, read again next time
                out.add(-1L);
                out.add(-1L);
            }
        }
        return out;
    }
}
