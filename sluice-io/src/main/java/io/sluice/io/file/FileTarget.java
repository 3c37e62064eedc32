package io.sluice.io.file;

import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Log;
import io.sluice.io.FileModes;
import io.sluice.io.LineEscaper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One output file of {@link FileProducer}: the lines of the batch being delivered, the encoder, rotation and
 * pruning. A delivery is written before it returns, in two phases so that a batch spread over several files is
 * written to all of them or to none: {@link #write()} puts the lines on disk (synced under {@code Fsync:
 * interval}), then {@link #commit()} counts them in, or {@link #abort()} cuts the file back to where the batch
 * began (ending a compressed stream as of the last committed batch, see {@link Encoder#abortBytes()}). So a batch
 * the pipeline counts as delivered is on disk, and a failed one leaves no partial line behind to be doubled when
 * it is delivered again.
 *
 * <p>Rotation names and pruning are {@link FileRotation}'s, failure reporting {@link WriteFailures}'; what stays (about
 * 400 lines) is the two-phase write with its rollback and the opening and closing it needs.
 */
final class FileTarget {
    /** Opens the files; tests put a failing channel in between. */
    interface Opener {
        FileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attributes) throws IOException;
    }

    /** A buffer grown past this for one large batch is dropped after it was written. */
    private static final int RETAIN_BYTES = 4 << 20;

    private final FileProducer.Settings s;
    private final String template;
    private final Log log;
    private final String id;
    private final LineEscaper escaper;
    /** Held while the file is touched: by the delivering thread, and by the maintenance thread (rotation by time). */
    private final ReentrantLock lock = new ReentrantLock();
    /** Lines of the batch being delivered (the delivering thread's). */
    private byte[] lines;
    private int len;
    /** Line bytes written (before compression), and total bytes written to disk; for the closing report. */
    long inputBytes;
    long diskBytes;
    long lastWriteNanos;

    // File state, under the lock.
    private Path path;
    private Path attempted;
    private FileChannel channel;
    private Encoder encoder;
    private long fileBytes;
    private long openedMillis;
    private long nextAtMillis;
    /** Size of the file before the write not yet committed or aborted, or -1. */
    private long writeStart = -1;
    private boolean finished;
    private String openedBase;
    /** Paths FileOverwrite truncated already: a reopen after a failure appends. */
    private final Set<Path> overwritten = new HashSet<>();
    private final WriteFailures failures;

    FileTarget(FileProducer.Settings settings, String template, String id, Log log, AtomicLong invalidUtf8) {
        this.s = settings;
        this.template = template;
        this.id = id;
        this.log = log;
        this.escaper = new LineEscaper(invalidUtf8);
        this.failures = new WriteFailures(id, log);
        this.lines = new byte[settings.chunkSize];
    }

    /**
     * Adds one message as one line to the batch being delivered: a control byte in the payload is escaped
     * ({@link LineEscaper}), so the line cannot be split or forged.
     */
    void add(Message m) {
        int length = m.length();
        byte[] p = m.payload();
        int body = LineEscaper.content(p, length);
        int escaped = escaper.measure(p, 0, body);
        int need = (escaped < 0 ? body : escaped) + 1;
        if (len + need > lines.length) {
            lines = Arrays.copyOf(lines, Math.max(lines.length * 2, len + need));
        }
        if (escaped < 0) {
            System.arraycopy(p, 0, lines, len, body);
            len += body;
        } else {
            len = escaper.write(p, 0, body, lines, len);
        }
        lines[len++] = '\n';
    }

    /** Whether the last write failed and none succeeded since: {@code /ready} reports not ready. */
    boolean failing() {
        return failures.failing();
    }

    /** Opens the file now, on the starting thread: a path that cannot be written stops the start. */
    void openNow() throws IOException {
        lock.lock();
        try {
            ensureOpen();
        } catch (IOException | RuntimeException e) {
            throw new IOException("cannot write " + where() + ": " + WriteFailures.reason(e), e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Phase one of a delivery: writes the lines added since the last commit or abort (synced under
     * {@code Fsync: interval}). On failure what reached the file is cut back off, the failure is logged and
     * {@link #failing()}, and an IOException naming the file is thrown; the caller aborts.
     */
    void write() throws IOException {
        lock.lock();
        try {
            ensureOpen();
            writeStart = fileBytes;
            if (encoder.compresses()) {
                Encoder.Pending out = encoder.pending;
                out.clear();
                encoder.encode(lines, len);
                drain(out);
            } else {
                ByteBuffer b = ByteBuffer.wrap(lines, 0, len);
                while (b.hasRemaining()) {
                    int n = channel.write(b);
                    fileBytes += n;
                    diskBytes += n;
                }
            }
            if (s.fsync == FileProducer.Fsync.INTERVAL) {
                channel.force(false);
            }
        } catch (IOException | RuntimeException e) {
            rollback();
            failures.failed(e, where());
            throw new IOException("cannot write " + where() + ": " + WriteFailures.reason(e), e);
        } finally {
            lock.unlock();
        }
    }

    /** Phase two: the written lines count (in the compressed stream's trailer too); the batch is done. */
    void commit() {
        lock.lock();
        try {
            if (writeStart >= 0) {
                encoder.commit(lines, len);
                writeStart = -1;
            }
            inputBytes += len;
            lastWriteNanos = System.nanoTime();
            failures.recovered(path);
        } finally {
            lock.unlock();
        }
        clearLines();
    }

    /** The delivery failed (here or in another file): what this write put on disk is cut back off. */
    void abort() {
        lock.lock();
        try {
            rollback();
        } finally {
            lock.unlock();
        }
        clearLines();
    }

    private void clearLines() {
        len = 0;
        if (lines.length > Math.max(RETAIN_BYTES, s.chunkSize)) {
            lines = new byte[s.chunkSize];
        }
    }

    /**
     * Cuts the file back to its size before the uncommitted write and ends a compressed stream there; then closes
     * it, so the next write reopens the path (a new gzip member or zstd frame). Best effort: a file that cannot be
     * cut back is reported.
     */
    private void rollback() {
        if (writeStart < 0) {
            return;
        }
        long start = writeStart;
        writeStart = -1;
        try {
            channel.truncate(start);
            fileBytes = start;
            byte[] end = encoder.abortBytes();
            ByteBuffer b = ByteBuffer.wrap(end);
            while (b.hasRemaining()) {
                fileBytes += channel.write(b);
            }
        } catch (IOException | RuntimeException e) {
            log.warn(id + ": could not cut " + path + " back to " + start + " bytes after a failed write: " + e
                    + (encoder.compresses() ? "; the compressed stream may end unfinished there" : "; it may end in a partial line"));
        } finally {
            abandonFile();
        }
    }

    private void abandonFile() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Broken already.
        }
        encoder.close();
        channel = null;
        encoder = null;
        finished = false;
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

    /**
     * Rotation by age or clock time, and the date in the path, checked even when nothing is written (by the
     * maintenance thread).
     */
    void maintain() {
        lock.lock();
        try {
            if (channel == null || writeStart >= 0) {
                return;
            }
            if (reopenDue()) {
                closeFile(true);
            }
        } catch (IOException e) {
            failures.failed(e, where());
        } finally {
            lock.unlock();
        }
    }

    /** Rotation by size, age or clock time is due, or the date in the path moved on. */
    private boolean reopenDue() {
        return s.rotation.due(fileBytes, openedMillis, nextAtMillis)
                || (s.datedPath && !resolve(template).equals(openedBase));
    }

    private void ensureOpen() throws IOException {
        if (channel != null && reopenDue()) {
            closeFile(true);
        }
        if (channel == null) {
            open();
        }
    }

    private void open() throws IOException {
        openedBase = resolve(template);
        Path base = Path.of(openedBase);
        attempted = base;
        Path dir = base.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            FileModes.createDirectories(dir, s.folderPermissions);
        }
        Path target = s.rotation.enabled ? s.rotation.rotatedName(base) : base;
        attempted = target;
        Set<StandardOpenOption> opts = EnumSet.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        // Appending to a .gz or .zst adds a new member/frame after the old ones: both formats allow
        // concatenation, so a restarted producer keeps one readable file. FileOverwrite truncates a path once per
        // run, not again when it is reopened after a failed write.
        opts.add(s.overwrite && overwritten.add(target.toAbsolutePath()) ? StandardOpenOption.TRUNCATE_EXISTING
                : StandardOpenOption.APPEND);
        FileChannel ch;
        try {
            ch = s.opener.open(target, opts, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(s.permissions)));
        } catch (UnsupportedOperationException e) {
            ch = s.opener.open(target, opts);
        }
        Encoder enc = null;
        try {
            enc = Encoder.forPath(target.toString(), s.level);
            fileBytes = ch.size();
            if (!enc.compresses() && fileBytes > 0 && Files.isRegularFile(target)) {
                fileBytes += endLine(target, ch, fileBytes);
            }
        } catch (IOException | RuntimeException e) {
            ch.close();
            if (enc != null) {
                enc.close();
            }
            throw e;
        }
        channel = ch;
        encoder = enc;
        path = target;
        openedMillis = System.currentTimeMillis();
        nextAtMillis = s.rotation.nextAt(openedMillis);
        if (s.rotation.enabled) {
            FileRotation.link(target, FileRotation.currentLink(base), id, log);
        }
    }

    /**
     * A plain file that does not end with a newline ends in a partial line (a crash mid-write): a newline first
     * keeps it from running into the next record. Returns the bytes written.
     */
    private static int endLine(Path file, FileChannel ch, long size) throws IOException {
        ByteBuffer last = ByteBuffer.allocate(1);
        try (FileChannel r = FileChannel.open(file, StandardOpenOption.READ)) {
            if (r.read(last, size - 1) != 1 || last.get(0) == '\n') {
                return 0;
            }
        }
        ByteBuffer nl = ByteBuffer.wrap(new byte[] {'\n'});
        while (nl.hasRemaining()) {
            ch.write(nl);
        }
        return 1;
    }

    /** Closes the current file: the encoder's trailer, an fsync unless Fsync is never, then pruning. */
    private void closeFile(boolean rotated) throws IOException {
        if (channel == null) {
            return;
        }
        if (!channel.isOpen()) {
            log.warn(id + ": " + path + " was closed by a failure before its end was written"
                    + (encoder.compresses() ? "; its compressed stream ends unfinished" : ""));
            abandonFile();
            return;
        }
        if (encoder.compresses()) {
            Encoder.Pending out = encoder.pending;
            if (!finished) {
                out.clear();
                encoder.finish();
                finished = true;
            }
            // A failed trailer write is retried from where it stopped (the rest of pending) by the next close.
            drain(out);
        }
        if (s.fsync != FileProducer.Fsync.NEVER) {
            channel.force(true);
        }
        channel.close();
        encoder.close();
        finished = false;
        channel = null;
        encoder = null;
        if (rotated) {
            log.info(id + ": rotated " + path);
        }
        if (s.rotation.enabled) {
            s.rotation.prune(Path.of(resolve(template)), path, id, log);
        }
    }

    /** Final close at shutdown: the trailer and fsync, retried until the deadline. */
    void close(long deadlineNanos) {
        len = 0; // lines of a delivery that was interrupted: that batch was not acknowledged
        long delay = 50;
        while (true) {
            lock.lock();
            try {
                rollback();
                closeFile(false);
                return;
            } catch (IOException e) {
                failures.failed(e, where());
                if (System.nanoTime() > deadlineNanos) {
                    log.error(id + ": could not finish " + path + ": " + e);
                    return;
                }
            } finally {
                lock.unlock();
            }
            sleepQuietly(delay);
            delay = Math.min(1000, delay * 2);
        }
    }

    private String where() {
        Path p = channel != null ? path : attempted;
        return p != null ? p.toString() : resolve(template);
    }

    private String resolve(String t) {
        return s.datedPath ? FileProducer.resolveDate(t, LocalDateTime.now()) : t;
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
