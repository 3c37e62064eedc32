package io.sluice.io.file;

import io.sluice.core.message.Completion;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Log;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One output file of {@link FileProducer}: two reused chunks (one filled by the delivering thread, one
 * written by the flusher), the encoder, rotation and pruning. Memory is bounded by the two chunks: when
 * both are busy the delivering thread waits, and the pipeline's queue holds the rest.
 *
 * <p>Acknowledgements ride with the chunk their lines are in and are released only after that chunk is on
 * disk (and synced, under {@code Fsync: interval}), so an upstream consumer checkpoints only what was
 * written.
 */
final class FileTarget {
    /** A chunk of encoded lines and the acknowledgements of the batches they came from. */
    private static final class Chunk {
        byte[] data;
        int len;
        /** Bytes of {@code data} on disk (plain files resume a failed write here). */
        int written;
        boolean encoded;
        /** No room for the next line: to be written at once. */
        boolean full;
        Encoder encodedBy;
        final List<Completion> acks = new ArrayList<>();

        Chunk(int size) {
            data = new byte[size];
        }

        void clear() {
            len = 0;
            written = 0;
            encoded = false;
            full = false;
            encodedBy = null;
            acks.clear();
        }
    }

    private final FileProducer.Settings s;
    private final String template;
    private final Log log;
    private final String id;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    private Chunk filling;
    private Chunk spare;
    private long firstAppendNanos;
    /** Line bytes appended (before compression), and total bytes written to disk; for the closing report. */
    long inputBytes;
    long diskBytes;
    long lastWriteNanos;

    // Flusher-thread state.
    private Path path;
    private FileChannel channel;
    private Encoder encoder;
    private long fileBytes;
    private long openedMillis;
    private long nextAtMillis;
    private long failingSince;
    private long lastFailureLog;
    private long retryAtNanos;
    private long retryDelayMs = 100;
    private long lostBytes;

    FileTarget(FileProducer.Settings settings, String template, String id, Log log) {
        this.s = settings;
        this.template = template;
        this.id = id;
        this.log = log;
        this.filling = new Chunk(settings.chunkSize);
        this.spare = new Chunk(settings.chunkSize);
    }

    /**
     * Appends one message as a line; waits while both chunks are full.
     *
     * @return true when the filling chunk is full and the flusher should be woken
     */
    boolean append(Message m, Runnable wakeFlusher) throws InterruptedException {
        int len = m.length();
        byte[] p = m.payload();
        boolean newline = len == 0 || p[len - 1] != '\n';
        int need = len + (newline ? 1 : 0);
        lock.lockInterruptibly();
        try {
            Chunk c = filling;
            while (c.len > 0 && c.len + need > c.data.length) {
                // Marked full: the flusher writes it now, not at the next interval.
                c.full = true;
                wakeFlusher.run();
                room.await();
                c = filling;
            }
            if (need > c.data.length) {
                // One message larger than a chunk: this chunk grows to hold it (rare; bounded by MaxMessageSize upstream).
                c.data = java.util.Arrays.copyOf(c.data, need);
            }
            if (c.len == 0) {
                firstAppendNanos = System.nanoTime();
            }
            System.arraycopy(p, 0, c.data, c.len, len);
            c.len += len;
            inputBytes += need;
            if (newline) {
                c.data[c.len++] = '\n';
            }
            if (c.len + 256 > c.data.length) {
                c.full = true;
            }
            return c.full;
        } finally {
            lock.unlock();
        }
    }

    /** Attaches a retained acknowledgement to the chunk holding the lines just appended. */
    void attach(Completion c) {
        lock.lock();
        try {
            filling.acks.add(c);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes the filling chunk if it is due (full, older than the interval, or {@code force}); a chunk whose
     * write failed is retried first, so lines reach the disk in order. Called by the flusher thread only.
     *
     * @return false when a write failed and is to be retried later
     */
    boolean flush(boolean force, long nowNanos) {
        if (retrying != null) {
            if (!force && nowNanos < retryAtNanos) {
                return false;
            }
            if (!tryWrite(retrying, force)) {
                return false;
            }
            recycle(retrying);
            retrying = null;
        }
        Chunk c;
        lock.lock();
        try {
            c = filling;
            // A chunk someone waits on (an acknowledgement upstream) is written at once: group commit, so an acked
            // source sees one write of latency, not FlushIntervalMs, while unacknowledged data still waits to batch up.
            boolean due = force || c.full || !c.acks.isEmpty()
                    || (c.len > 0 && nowNanos - firstAppendNanos >= s.flushIntervalNanos);
            if (c.len == 0 || !due) {
                c = null;
            } else {
                filling = spare;
                spare = null;
            }
        } finally {
            lock.unlock();
        }
        if (c == null) {
            return maintain();
        }
        if (!tryWrite(c, force)) {
            // Kept: the deliverers fill the other chunk meanwhile, then wait; the pipeline's queue holds the rest.
            retrying = c;
            return false;
        }
        recycle(c);
        return true;
    }

    /** The chunk whose write failed, to be written before anything newer. */
    private Chunk retrying;

    private boolean tryWrite(Chunk c, boolean force) {
        while (true) {
            try {
                write(c);
                return true;
            } catch (IOException | RuntimeException e) {
                failed(e);
                if (!force) {
                    return false;
                }
                if (System.nanoTime() > shutdownDeadline) {
                    // Gave up at the shutdown deadline: reported, and the acks are never sent, so a consumer
                    // that checkpoints does not move past these lines.
                    lostBytes += c.len;
                    c.acks.clear();
                    return true;
                }
                sleepQuietly(retryDelayMs);
            }
        }
    }

    private void recycle(Chunk c) {
        for (int i = 0; i < c.acks.size(); i++) {
            c.acks.get(i).release();
        }
        c.clear();
        lock.lock();
        try {
            spare = c;
            room.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void write(Chunk c) throws IOException {
        ensureOpen();
        if (encoder.compresses()) {
            Encoder.Pending out = encoder.pending();
            if (c.encodedBy != encoder) {
                // First try, or the file was reopened after a failure: encode into the current stream.
                c.encoded = false;
            }
            if (!c.encoded) {
                if (out.len > 0) {
                    drain(out);
                }
                encoder.encode(c.data, c.len);
                c.encoded = true;
                c.encodedBy = encoder;
            }
            drain(out);
        } else {
            ByteBuffer b = ByteBuffer.wrap(c.data, c.written, c.len - c.written);
            while (b.hasRemaining()) {
                int n = channel.write(b);
                c.written += n;
                fileBytes += n;
                diskBytes += n;
            }
        }
        if (s.fsync == FileProducer.Fsync.INTERVAL) {
            channel.force(false);
        }
        lastWriteNanos = System.nanoTime();
        recovered();
    }

    private void drain(Encoder.Pending out) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(out.buf, out.written, out.len - out.written);
        while (b.hasRemaining()) {
            int n = channel.write(b);
            out.written += n;
            fileBytes += n;
            diskBytes += n;
        }
        out.clear();
    }

    /** Rotation by age or clock time, and the date in the path, checked even when nothing is written. */
    private boolean maintain() {
        if (channel == null) {
            return true;
        }
        try {
            if (rotationDue() || (s.datedPath && !resolve(template).equals(openedBase))) {
                closeFile(true);
            }
            return true;
        } catch (IOException e) {
            failed(e);
            return false;
        }
    }

    private boolean rotationDue() {
        if (!s.rotate) {
            return false;
        }
        long now = System.currentTimeMillis();
        return fileBytes >= s.rotateBytes || now - openedMillis >= s.rotateMillis
                || (nextAtMillis > 0 && now >= nextAtMillis);
    }

    private void ensureOpen() throws IOException {
        if (channel != null && rotationDue()) {
            closeFile(true);
        }
        if (channel == null) {
            open();
        }
    }

    private void open() throws IOException {
        openedBase = resolve(template);
        Path base = Path.of(openedBase);
        Path dir = base.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(s.folderPermissions)));
            } catch (UnsupportedOperationException e) {
                Files.createDirectories(dir);
            }
        }
        Path target = s.rotate ? rotatedName(base) : base;
        Set<StandardOpenOption> opts = EnumSet.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        // Appending to a .gz or .zst adds a new member/frame after the old ones: both formats allow
        // concatenation, so a restarted producer keeps one readable file.
        opts.add(s.overwrite ? StandardOpenOption.TRUNCATE_EXISTING : StandardOpenOption.APPEND);
        FileChannel ch;
        try {
            ch = FileChannel.open(target, opts, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(s.permissions)));
        } catch (UnsupportedOperationException e) {
            ch = FileChannel.open(target, opts);
        }
        channel = ch;
        path = target;
        encoder = Encoder.forPath(target.toString(), s.level);
        fileBytes = ch.size();
        openedMillis = System.currentTimeMillis();
        nextAtMillis = s.rotateAtMinute < 0 ? 0 : nextAt(openedMillis);
        if (s.rotate) {
            link(target, currentLink(base));
        }
    }

    /** Closes the current file: the encoder's trailer, an fsync unless Fsync is never, then pruning. */
    private void closeFile(boolean rotated) throws IOException {
        if (channel == null) {
            return;
        }
        if (encoder.compresses()) {
            Encoder.Pending out = encoder.pending();
            if (!finished) {
                if (out.len > 0) {
                    drain(out);
                }
                encoder.finish();
                finished = true;
            }
            drain(out);
        }
        if (s.fsync != FileProducer.Fsync.NEVER) {
            channel.force(true);
        }
        channel.close();
        encoder.close();
        finished = false;
        Path closed = path;
        channel = null;
        encoder = null;
        if (rotated) {
            log.info(id + ": rotated " + closed);
        }
        if (s.rotate) {
            prune(Path.of(resolve(template)));
        }
    }

    private boolean finished;
    private String openedBase;

    /** Final flush at shutdown: every chunk, then the trailer; retries until the deadline. */
    void close(long deadlineNanos) {
        shutdownDeadline = deadlineNanos;
        while (true) {
            boolean more;
            lock.lock();
            try {
                more = filling.len > 0 || retrying != null;
            } finally {
                lock.unlock();
            }
            if (!more) {
                break;
            }
            flush(true, System.nanoTime());
        }
        while (true) {
            try {
                closeFile(false);
                break;
            } catch (IOException e) {
                failed(e);
                if (System.nanoTime() > deadlineNanos) {
                    log.error(id + ": could not finish " + path + ": " + e);
                    break;
                }
                sleepQuietly(retryDelayMs);
            }
        }
        if (lostBytes > 0) {
            log.error(id + ": " + lostBytes + " bytes could not be written to " + template
                    + " before the shutdown deadline; their batches were not acknowledged");
        }
    }

    private long shutdownDeadline = Long.MAX_VALUE;

    /** Logs a failure clearly (once per streak and then every 30 s) and schedules the retry. */
    private void failed(Exception e) {
        long now = System.nanoTime();
        if (failingSince == 0) {
            failingSince = now;
        }
        if (lastFailureLog == 0 || now - lastFailureLog > 30_000_000_000L) {
            lastFailureLog = now;
            String where = path != null ? path.toString() : template;
            log.error(id + ": cannot write " + where + ": " + e + (isDiskFull(e) ? " (disk full?)" : "")
                    + "; the lines are kept and retried, delivery is held back meanwhile");
        }
        retryAtNanos = now + retryDelayMs * 1_000_000L;
        retryDelayMs = Math.min(5000, retryDelayMs * 2);
        if (channel != null && !channel.isOpen()) {
            abandonChannel();
        }
    }

    private void abandonChannel() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Already broken.
        }
        channel = null;
    }

    private void recovered() {
        if (failingSince != 0) {
            log.info(id + ": writing to " + path + " works again after "
                    + (System.nanoTime() - failingSince) / 1_000_000 + " ms");
        }
        failingSince = 0;
        lastFailureLog = 0;
        retryAtNanos = 0;
        retryDelayMs = 100;
    }

    private static boolean isDiskFull(Exception e) {
        String m = String.valueOf(e.getMessage()).toLowerCase();
        return m.contains("no space") || m.contains("quota");
    }

    private String resolve(String t) {
        return s.datedPath ? FileProducer.resolveDate(t, LocalDateTime.now()) : t;
    }

    /** dir/name_TIMESTAMP.ext, with _N added when the name is taken (Gollum's rotation names). */
    private Path rotatedName(Path base) {
        String[] parts = split(base.getFileName().toString());
        String stamp = s.rotateStamp.format(LocalDateTime.now());
        Path dir = base.toAbsolutePath().getParent();
        Path p = dir.resolve(parts[0] + "_" + stamp + parts[1]);
        for (int n = 1; Files.exists(p, LinkOption.NOFOLLOW_LINKS); n++) {
            String num = s.zeroPad > 0 ? String.format("%0" + s.zeroPad + "d", n) : Integer.toString(n);
            p = dir.resolve(parts[0] + "_" + stamp + "_" + num + parts[1]);
        }
        return p;
    }

    private static Path currentLink(Path base) {
        String[] parts = split(base.getFileName().toString());
        return base.toAbsolutePath().getParent().resolve(parts[0] + "_current" + parts[1]);
    }

    /** "app.ndjson.gz" → ["app", ".ndjson.gz"]: a compression suffix keeps the extension before it. */
    static String[] split(String name) {
        int dot = name.lastIndexOf('.');
        if (dot > 0 && (name.endsWith(".gz") || name.endsWith(".zst"))) {
            int inner = name.lastIndexOf('.', dot - 1);
            if (inner > 0) {
                dot = inner;
            }
        }
        return dot > 0 ? new String[] {name.substring(0, dot), name.substring(dot)} : new String[] {name, ""};
    }

    private void link(Path target, Path linkPath) {
        try {
            Path tmp = linkPath.resolveSibling(linkPath.getFileName() + ".tmp");
            Files.deleteIfExists(tmp);
            Files.createSymbolicLink(tmp, target.getFileName());
            Files.move(tmp, linkPath, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | UnsupportedOperationException e) {
            log.warn(id + ": cannot update " + linkPath + ": " + e);
        }
    }

    /** Keeps the newest Prune/Count rotated files, none older than Prune/AfterHours, within Prune/TotalSizeMB. */
    private void prune(Path base) {
        if (s.pruneCount <= 0 && s.pruneAfterMillis <= 0 && s.pruneTotalBytes <= 0) {
            return;
        }
        String[] parts = split(base.getFileName().toString());
        String prefix = parts[0] + "_";
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(base.toAbsolutePath().getParent())) {
            for (Path p : ds) {
                String n = p.getFileName().toString();
                if (n.startsWith(prefix) && n.endsWith(parts[1]) && !n.equals(parts[0] + "_current" + parts[1])
                        && !Files.isSymbolicLink(p) && !p.equals(path)) {
                    files.add(p);
                }
            }
            files.sort((a, b) -> modified(b).compareTo(modified(a)));
            long total = 0;
            long now = System.currentTimeMillis();
            for (int i = 0; i < files.size(); i++) {
                Path p = files.get(i);
                long size = Files.size(p);
                total += size;
                boolean tooMany = s.pruneCount > 0 && i >= s.pruneCount;
                boolean tooOld = s.pruneAfterMillis > 0 && now - modified(p).toMillis() > s.pruneAfterMillis;
                boolean tooBig = s.pruneTotalBytes > 0 && total > s.pruneTotalBytes;
                if (tooMany || tooOld || tooBig) {
                    Files.deleteIfExists(p);
                    log.info(id + ": pruned " + p);
                }
            }
        } catch (IOException e) {
            log.warn(id + ": pruning next to " + base + " failed: " + e);
        }
    }

    private static FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }

    private long nextAt(long fromMillis) {
        LocalDateTime now = LocalDateTime.ofInstant(java.time.Instant.ofEpochMilli(fromMillis), ZoneId.systemDefault());
        LocalDateTime at = now.withHour(s.rotateAtHour).withMinute(s.rotateAtMinute).withSecond(0).withNano(0);
        if (!at.isAfter(now)) {
            at = at.plusDays(1);
        }
        return at.atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The file being written, or null. */
    Path path() {
        return path;
    }

}
