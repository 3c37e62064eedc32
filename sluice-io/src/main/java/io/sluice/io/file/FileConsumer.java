package io.sluice.io.file;

import io.sluice.core.Bytes;
import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Clock;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code consumer.File}: tails the files matched by globs, one message per line. Follows rotation by rename
 * (files are known by device and inode, so a renamed file is read to its end and the new file under the
 * name is picked up) and by copytruncate (a file shorter than the read position, or no longer starting with the
 * bytes it started with, is read again from the start). New files matching the globs are picked up while running;
 * deleted files are released.
 *
 * <p>This class reads and cuts lines (the per-read hot path); finding files ({@link GlobScanner}), checkpoints
 * ({@link CheckpointStore}), multiline records ({@link MultilineAssembler}), rotation ({@link RotationDetector})
 * and batches ({@link LinePublisher}) are their own classes; about 50 of its lines are the 19 parameter declarations.
 *
 * <p>Checkpoints ({@code OffsetFilePath}) hold, per file, the end of the last line whose batch every producer
 * has delivered: each published batch carries a {@link io.sluice.core.message.Completion}, and the offset
 * advances only over batches that completed in order. A restart resumes there, so a line is read again only
 * when it had not been acknowledged. A half-written last line is left for the next read (or the next run).
 *
 * <pre>
 * "Tail":
 *     Type: consumer.File
 *     File: "/var/log/app/*.log"
 *     OffsetFilePath: "/var/lib/sluice/offsets"
 *     DefaultOffset: oldest
 *     Streams: logs
 * </pre>
 */
public final class FileConsumer extends Consumer {
    /** Longest wait at the stop for what was published to be acknowledged before the last checkpoint. */
    static final long SETTLE_MILLIS = 5000;
    public static final Param<List<String>> FILE = Param.strings("File", List.of(),
            "The files to read: paths or globs (*, ?, [..], ** across folders), one or a list.");
    public static final Param<List<String>> FILES = Param.strings("Files", List.of(), "Same as File.");
    public static final Param<String> OFFSET_FILE_PATH = Param.string("OffsetFilePath", "",
            "Folder of the checkpoints: one NAME.offset per file, holding the acknowledged offset. Empty: none.");
    public static final Param<String> OFFSET_FILE = Param.string("OffsetFile", "",
            "Gollum 0.5's checkpoint file for a single File (no glob); OffsetFilePath is for several.");
    public static final Param<String> DEFAULT_OFFSET = Param.choice("DefaultOffset", "newest",
            "Where to start in a file present at start-up without a checkpoint: newest (its end) or oldest (its "
                    + "start). Files that appear later are read from the start.", "newest", "oldest");
    public static final Param<String> DELIMITER = Param.string("Delimiter", "\\n", "End of a line (removed, with a CR before \\n).");
    public static final Param<String> OBSERVE_MODE = Param.choice("ObserveMode", "poll",
            "poll or watch; Sluice polls in both cases (a read at EOF costs one system call).", "poll", "watch");
    public static final Param<Integer> POLLING_DELAY_MS = Param.millis("PollingDelayMs", 100,
            "How long to wait at the end of every file before looking for more.");
    public static final Param<Integer> RETRY_DELAY_SEC = Param.seconds("RetryDelaySec", 3,
            "Wait before trying again to open a file that failed to open.");
    public static final Param<Integer> DIR_SCAN_INTERVAL_SEC = Param.seconds("DirScanIntervalSec", 10,
            "How often the globs are matched again for new files.");
    public static final Param<String> BLACK_LIST = Param.string("BlackList", "",
            "A regular expression; matching paths are not read.");
    public static final Param<Boolean> SET_METADATA = Param.bool("SetMetadata", false,
            "Add the file name (file) and folder (dir) to every message's metadata.");
    public static final Param<Integer> MAX_LINE_SIZE = Param.sizeInt("MaxLineSize", 1 << 20,
            "Longest line in bytes; a longer one is cut, flagged truncated: true, and counted.").atLeast(1);
    public static final Param<Integer> READ_BUFFER_KB = Param.integer("ReadBufferKB", 256, "Read buffer per file in KB.");
    public static final Param<String> MULTILINE_START = Param.string("MultilineStart", "",
            "A regular expression matching the first line of a record; following lines that do not match are "
                    + "joined to it with \\n. Empty: every line is a message.");
    public static final Param<Integer> MULTILINE_TIMEOUT_MS = Param.millis("MultilineTimeoutMs", 1000,
            "A record is passed on when no line was added to it for this long.");
    public static final Param<Integer> ROTATE_WAIT_MS = Param.millis("RotateWaitMs", 5000,
            "How long a file renamed away or deleted is still read for late writes before it is released.");
    public static final Param<Integer> CHECKPOINT_INTERVAL_MS = Param.millis("CheckpointIntervalMs", 1000,
            "How often acknowledged offsets are written (and always at shutdown).");
    public static final Param<Boolean> EXIT_ON_EOF = Param.bool("ExitOnEOF", false,
            "Shut the process down (after delivering everything) once every file was read to its end.");

    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "consumer.File",
            "Tails files matched by globs, following rotation, with acknowledged checkpoints.")
            .params(FILE, FILES, OFFSET_FILE_PATH, OFFSET_FILE, DEFAULT_OFFSET, DELIMITER, OBSERVE_MODE,
                    POLLING_DELAY_MS, RETRY_DELAY_SEC, DIR_SCAN_INTERVAL_SEC, BLACK_LIST, SET_METADATA,
                    MAX_LINE_SIZE, READ_BUFFER_KB, MULTILINE_START, MULTILINE_TIMEOUT_MS, ROTATE_WAIT_MS,
                    CHECKPOINT_INTERVAL_MS, EXIT_ON_EOF)
            .factory(FileConsumer::new);

    private final GlobScanner scanner;
    private final CheckpointStore checkpoints;
    private final RotationDetector rotation;
    /** Null: every line is a message. */
    private final MultilineAssembler multiline;
    private final boolean oldest;
    private final byte[] delimiter;
    private final boolean stripCr;
    private final long pollNanos;
    private final long retryNanos;
    private final long scanNanos;
    private final boolean setMetadata;
    private final int maxLine;
    private final int bufferSize;
    private final long checkpointNanos;
    private final boolean exitOnEof;

    private final Map<Object, TailedFile> files = new LinkedHashMap<>();
    /** The files, for completions on producer threads: {@code files} is the reader's, which refreshes this copy. */
    private final List<TailedFile> snapshot = new CopyOnWriteArrayList<>();
    private final Map<Path, Long> failedOpens = new HashMap<>();
    private final AtomicLong truncatedLines = new AtomicLong();
    private volatile boolean stopping;
    private volatile Thread reader;
    private Log log;
    private LinePublisher out;
    private boolean initialScan = true;

    public FileConsumer(PluginConfig config) {
        super(config);
        List<String> patterns = new ArrayList<>(config.get(FILE));
        patterns.addAll(config.get(FILES));
        if (patterns.isEmpty()) {
            throw config.error(FILE, "missing: name the files to read, e.g. File: /var/log/app/*.log");
        }
        String dir = config.get(OFFSET_FILE_PATH);
        String single = config.get(OFFSET_FILE);
        if (!single.isEmpty() && (patterns.size() != 1 || GlobScanner.isGlob(patterns.get(0)))) {
            throw config.error(OFFSET_FILE, "holds the offset of one file; use OffsetFilePath with globs or several files");
        }
        Fingerprint fingerprints = new Fingerprint();
        this.checkpoints = new CheckpointStore(config.id(), dir.isEmpty() ? null : Path.of(dir),
                single.isEmpty() ? null : Path.of(single), Path.of(patterns.get(0)).getFileName().toString(),
                fingerprints);
        this.oldest = config.get(DEFAULT_OFFSET).equals("oldest");
        this.delimiter = Bytes.unescape(config.get(DELIMITER));
        if (delimiter.length == 0) {
            throw config.error(DELIMITER, "must not be empty");
        }
        this.stripCr = delimiter.length == 1 && delimiter[0] == '\n';
        this.pollNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, config.get(POLLING_DELAY_MS)));
        this.retryNanos = TimeUnit.SECONDS.toNanos(Math.max(0, config.get(RETRY_DELAY_SEC)));
        this.scanNanos = TimeUnit.SECONDS.toNanos(Math.max(1, config.get(DIR_SCAN_INTERVAL_SEC)));
        this.scanner = new GlobScanner(patterns, compile(config, BLACK_LIST));
        this.setMetadata = config.get(SET_METADATA);
        this.maxLine = config.get(MAX_LINE_SIZE);
        this.bufferSize = Math.max(4, config.get(READ_BUFFER_KB)) * 1024;
        Pattern start = compile(config, MULTILINE_START);
        this.multiline = start == null ? null : new MultilineAssembler(start, maxLine,
                TimeUnit.MILLISECONDS.toNanos(config.get(MULTILINE_TIMEOUT_MS)), truncatedLines);
        this.rotation = new RotationDetector(config.id(),
                TimeUnit.MILLISECONDS.toNanos(Math.max(0, config.get(ROTATE_WAIT_MS))), fingerprints);
        this.checkpointNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, config.get(CHECKPOINT_INTERVAL_MS)));
        this.exitOnEof = config.get(EXIT_ON_EOF);
    }

    private static Pattern compile(PluginConfig config, Param<String> p) {
        String re = config.get(p);
        if (re.isEmpty()) {
            return null;
        }
        try {
            return Pattern.compile(re);
        } catch (PatternSyntaxException e) {
            throw config.error(p, "not a regular expression: " + e.getDescription());
        }
    }

    @Override
    public void consume(ConsumerContext context) throws Exception {
        this.log = context.log();
        this.reader = Thread.currentThread();
        this.out = new LinePublisher(context, setMetadata, this::acknowledged);
        if (multiline != null) {
            multiline.publishTo(out);
        }
        checkpoints.load(log);
        long nextScan = 0;
        long nextCheckpoint = System.nanoTime() + checkpointNanos;
        try {
            while (context.isActive() && !stopping) {
                long t = System.nanoTime();
                if (t >= nextScan) {
                    scan();
                    initialScan = false;
                    nextScan = t + scanNanos;
                }
                boolean progress = false;
                boolean allAtEof = true;
                for (TailedFile f : new ArrayList<>(files.values())) {
                    int r = read(f);
                    progress |= r > 0;
                    allAtEof &= r <= 0;
                }
                if (!progress) {
                    out.publish();
                    nextScan = Math.min(nextScan, checkGone());
                    if (multiline != null) {
                        multiline.flush(files.values(), false);
                    }
                    if (exitOnEof && allAtEof && MultilineAssembler.nonePending(files.values())) {
                        break;
                    }
                    LockSupport.parkNanos(pollNanos);
                }
                if (System.nanoTime() >= nextCheckpoint) {
                    checkpointAll();
                    nextCheckpoint = System.nanoTime() + checkpointNanos;
                }
            }
            if (multiline != null) {
                multiline.flush(files.values(), true);
            }
            out.publish();
        } finally {
            stopping = true;
            out.discard();
            awaitSettled();
            checkpointAll();
            for (TailedFile f : files.values()) {
                f.close();
            }
            report();
        }
    }

    @Override
    public void stop() {
        stopping = true;
        Thread r = reader;
        if (r != null) {
            LockSupport.unpark(r);
        }
    }

    @Override
    public boolean endsPipeline() {
        return exitOnEof;
    }

    // ---- reading: the hot path ----

    /** Reads once from a file; returns bytes read, 0 at EOF, -1 when the file is not open. */
    private int read(TailedFile f) throws IOException, InterruptedException {
        if (f.channel == null) {
            return -1;
        }
        ByteBuffer target = f.readTarget(maxLine + delimiter.length + 16);
        int n;
        boolean replaced;
        try {
            n = f.channel.read(target);
            // Checked after the read, before its bytes become lines: bytes read from a file already replaced
            // would be the middle of its new content. One read of the first bytes per read, not per line.
            replaced = n > 0 && rotation.replaced(f, log);
        } catch (IOException e) {
            log.error(config.id() + ": reading " + f.path + " failed: " + e + "; it will be opened again");
            forget(f);
            return -1;
        }
        if (n <= 0) {
            atEof(f);
            return 0;
        }
        if (replaced) {
            readAgain(f);
            return n;
        }
        f.end += n;
        f.lastDataNanos = System.nanoTime();
        cutLines(f);
        return n;
    }

    private void cutLines(TailedFile f) throws InterruptedException {
        long stamp = Clock.epochNanos();
        byte[] b = f.buf;
        int end = f.end;
        int dl = delimiter.length;
        while (true) {
            int at = Bytes.indexOf(b, Math.max(f.start, f.scanFrom), end, delimiter);
            if (at < 0) {
                if (f.skipping) {
                    f.start = Math.max(f.start, end - dl + 1);
                    f.scanFrom = f.start;
                } else if (end - f.start >= maxLine) {
                    truncatedLines.incrementAndGet();
                    line(f, b, f.start, maxLine, f.bufOffset + f.start + maxLine, true, stamp);
                    f.start += maxLine;
                    f.skipping = true;
                    continue;
                } else {
                    f.scanFrom = Math.max(f.start, end - dl + 1);
                }
                return;
            }
            long lineEnd = f.bufOffset + at + dl;
            if (f.skipping) {
                f.skipping = false;
                if (multiline == null) {
                    out.moveBatchEnd(f, lineEnd);
                }
            } else {
                int len = at - f.start;
                if (stripCr && len > 0 && b[at - 1] == '\r') {
                    len--;
                }
                boolean cut = len > maxLine;
                if (cut) {
                    truncatedLines.incrementAndGet();
                }
                line(f, b, f.start, cut ? maxLine : len, lineEnd, cut, stamp);
            }
            f.start = at + dl;
            f.scanFrom = f.start;
        }
    }

    /** A complete line (or a cut one): straight to the batch, or into the multiline record. */
    private void line(TailedFile f, byte[] b, int off, int len, long endOffset, boolean cut, long stamp)
            throws InterruptedException {
        if (multiline == null) {
            out.emit(f, b, off, len, endOffset, cut, stamp);
        } else {
            multiline.line(f, b, off, len, endOffset, cut, stamp);
        }
    }

    // ---- rotation ----

    /** At the end of a file: truncated under us (copytruncate)? Then it is read again from its start. */
    private void atEof(TailedFile f) throws IOException, InterruptedException {
        long size;
        try {
            size = f.channel.size();
        } catch (IOException e) {
            forget(f);
            return;
        }
        if (rotation.truncated(f, size, log)) {
            readAgain(f);
        }
    }

    /** Truncated or replaced under us: the lines batched so far are passed on, and the file is read from its start. */
    private void readAgain(TailedFile f) throws IOException, InterruptedException {
        out.publish();
        f.newGeneration(0); // first: a checkpoint taken meanwhile holds the new generation's offset and fingerprint
        f.seek(0);
    }

    /**
     * Releases files gone from their path once they stayed quiet for RotateWaitMs, and reads again the ones replaced
     * at the same size; returns when to rescan.
     */
    private long checkGone() throws IOException, InterruptedException {
        long t = System.nanoTime();
        long rescan = Long.MAX_VALUE;
        for (TailedFile f : new ArrayList<>(files.values())) {
            switch (rotation.check(f, t, log)) {
                case GONE -> rescan = t;
                case EXPIRED -> release(f);
                case REPLACED -> readAgain(f);
                default -> {
                }
            }
        }
        return rescan;
    }

    /** A released file's last line, even without its delimiter, is passed on: the file will not grow again. */
    private void release(TailedFile f) throws InterruptedException {
        if (f.end > f.start && !f.skipping) {
            long stamp = Clock.epochNanos();
            line(f, f.buf, f.start, Math.min(maxLine, f.end - f.start), f.readPosition(), f.end - f.start > maxLine, stamp);
            f.start = f.end;
        }
        if (multiline != null) {
            multiline.pass(f);
        }
        out.publish();
        forget(f);
        log.info(config.id() + ": released " + f.path);
    }

    private void forget(TailedFile f) {
        f.close();
        files.remove(f.key);
    }

    // ---- discovery ----

    private void scan() throws IOException {
        for (Path p : scanner.scan()) {
            Object key = TailedFile.keyOf(p, TailedFile.attributes(p));
            if (key == null) {
                continue;
            }
            TailedFile known = files.get(key);
            if (known != null) {
                if (!known.path.equals(p)) {
                    known.rename(p);
                }
                continue;
            }
            Long failedAt = failedOpens.get(p);
            if (failedAt != null && System.nanoTime() - failedAt < retryNanos) {
                continue;
            }
            open(p, key);
        }
    }

    private void open(Path p, Object key) {
        TailedFile f = new TailedFile(key, p, bufferSize);
        try {
            f.channel = FileChannel.open(p, StandardOpenOption.READ);
            long size = f.channel.size();
            long start = checkpoints.startOffset(f, size, initialScan && !oldest);
            f.seek(start);
            f.markCheckpointed(start);
            f.lastDataNanos = System.nanoTime();
            files.put(key, f);
            failedOpens.remove(p);
            log.info(config.id() + ": reading " + p + " from offset " + start);
        } catch (IOException e) {
            f.close();
            if (!failedOpens.containsKey(p)) {
                log.warn(config.id() + ": cannot open " + p + ": " + e + "; retrying every " + TimeUnit.NANOSECONDS.toSeconds(retryNanos) + " s");
            }
            failedOpens.put(p, System.nanoTime());
        }
    }

    // ---- checkpoints ----

    /** Called by the producer thread that completed a batch: after shutdown began, checkpoint at once. */
    private void acknowledged() {
        if (stopping) {
            checkpointAll();
        }
    }

    /**
     * Waits (up to {@value #SETTLE_MILLIS} ms) for the producers to complete what was published, so that the last
     * checkpoint covers it: a consumer replaced by a reload, or the next run, then goes on exactly where this one
     * stopped instead of reading those lines again. Producers run until every consumer has stopped, so acks come
     * unless a producer is stuck; then the lines are read again (at least once).
     */
    private void awaitSettled() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS);
        while (System.nanoTime() < deadline && !Thread.currentThread().isInterrupted()) {
            if (files.values().stream().allMatch(TailedFile::settled)) {
                return;
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    private void checkpointAll() {
        if (Thread.currentThread() == reader) {
            snapshot.clear();
            snapshot.addAll(files.values());
        }
        checkpoints.writeDue(snapshot);
    }

    private void report() {
        if (truncatedLines.get() > 0) {
            log.warn(config.id() + ": " + truncatedLines.get() + " lines longer than MaxLineSize were cut (flagged truncated)");
        }
        if (rotation.truncations() > 0) {
            log.info(config.id() + ": " + rotation.truncations() + " files were truncated while being read (copytruncate)");
        }
    }
}
