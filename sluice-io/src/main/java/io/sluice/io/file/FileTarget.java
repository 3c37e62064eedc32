package io.sluice.io.file;

import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Log;
import io.sluice.io.LineEscaper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
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
    private volatile boolean failing;
    private long failingSince;
    private long lastFailureLog;

    FileTarget(FileProducer.Settings settings, String template, String id, Log log, AtomicLong invalidUtf8) {
        this.s = settings;
        this.template = template;
        this.id = id;
        this.log = log;
        this.escaper = new LineEscaper(invalidUtf8);
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
        return failing;
    }

    /** Opens the file now, on the starting thread: a path that cannot be written stops the start. */
    void openNow() throws IOException {
        lock.lock();
        try {
            ensureOpen();
        } catch (IOException | RuntimeException e) {
            throw new IOException("cannot write " + where() + ": " + reason(e), e);
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
                Encoder.Pending out = encoder.pending();
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
            failed(e);
            throw new IOException("cannot write " + where() + ": " + reason(e), e);
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
            recovered();
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
            if (rotationDue() || (s.datedPath && !resolve(template).equals(openedBase))) {
                closeFile(true);
            }
        } catch (IOException e) {
            failed(e);
        } finally {
            lock.unlock();
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
        if (channel != null && (rotationDue() || (s.datedPath && !resolve(template).equals(openedBase)))) {
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
            try {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(s.folderPermissions)));
            } catch (UnsupportedOperationException e) {
                Files.createDirectories(dir);
            }
        }
        Path target = s.rotate ? rotatedName(base) : base;
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
        nextAtMillis = s.rotateAtMinute < 0 ? 0 : nextAt(openedMillis);
        if (s.rotate) {
            link(target, currentLink(base));
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
            Encoder.Pending out = encoder.pending();
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
                failed(e);
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

    /** Logs a failure (once per streak and then every 30 s) and reports not ready until a write succeeds. */
    private void failed(Exception e) {
        long now = System.nanoTime();
        if (failingSince == 0) {
            failingSince = now;
        }
        failing = true;
        if (lastFailureLog == 0 || now - lastFailureLog > 30_000_000_000L) {
            lastFailureLog = now;
            log.error(id + ": cannot write " + where() + ": " + reason(e) + (isDiskFull(e) ? " (disk full?)" : "")
                    + "; the delivery fails and is retried, nothing is acknowledged meanwhile, /ready reports not ready");
        }
    }

    private void recovered() {
        if (failingSince != 0) {
            log.info(id + ": writing to " + path + " works again after "
                    + (System.nanoTime() - failingSince) / 1_000_000 + " ms");
        }
        failingSince = 0;
        lastFailureLog = 0;
        failing = false;
    }

    private String where() {
        Path p = channel != null ? path : attempted;
        return p != null ? p.toString() : resolve(template);
    }

    /** What went wrong, in words: the JDK leaves the reason of some file-system exceptions empty. */
    static String reason(Throwable e) {
        if (e instanceof FileSystemException) {
            FileSystemException f = (FileSystemException) e;
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
