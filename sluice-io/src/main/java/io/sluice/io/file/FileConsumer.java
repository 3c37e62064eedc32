package io.sluice.io.file;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Clock;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.Bytes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code consumer.File}: tails the files matched by globs, one message per line. Follows rotation by rename
 * (files are known by device and inode, so a renamed file is read to its end and the new file under the
 * name is picked up) and by copytruncate (a file shorter than the read position is read again from the
 * start). New files matching the globs are picked up while running; deleted files are released.
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
    public static final Param<List<String>> FILE = Param.strings("File", List.of(),
            "The files to read: paths or globs (*, ?, [..], ** across folders), one or a list.");
    public static final Param<List<String>> FILES = Param.strings("Files", List.of(), "Same as File.");
    public static final Param<String> OFFSET_FILE_PATH = Param.string("OffsetFilePath", "",
            "Folder of the checkpoints: one NAME.offset per file, holding the acknowledged offset. Empty: none.");
    public static final Param<String> OFFSET_FILE = Param.string("OffsetFile", "",
            "Gollum 0.5's checkpoint file for a single File (no glob); OffsetFilePath is for several.");
    public static final Param<String> DEFAULT_OFFSET = Param.string("DefaultOffset", "newest",
            "Where to start in a file present at start-up without a checkpoint: newest (its end) or oldest (its "
                    + "start). Files that appear later are read from the start.");
    public static final Param<String> DELIMITER = Param.string("Delimiter", "\\n", "End of a line (removed, with a CR before \\n).");
    public static final Param<String> OBSERVE_MODE = Param.string("ObserveMode", "poll",
            "poll or watch; Sluice polls in both cases (a read at EOF costs one system call).");
    public static final Param<Integer> POLLING_DELAY_MS = Param.integer("PollingDelayMs", 100,
            "How long to wait at the end of every file before looking for more.");
    public static final Param<Integer> RETRY_DELAY_SEC = Param.integer("RetryDelaySec", 3,
            "Wait before trying again to open a file that failed to open.");
    public static final Param<Integer> DIR_SCAN_INTERVAL_SEC = Param.integer("DirScanIntervalSec", 10,
            "How often the globs are matched again for new files.");
    public static final Param<String> BLACK_LIST = Param.string("BlackList", "",
            "A regular expression; matching paths are not read.");
    public static final Param<Boolean> SET_METADATA = Param.bool("SetMetadata", false,
            "Add the file name (file) and folder (dir) to every message's metadata.");
    public static final Param<Integer> MAX_LINE_SIZE = Param.integer("MaxLineSize", 1 << 20,
            "Longest line in bytes; a longer one is cut, flagged truncated: true, and counted.");
    public static final Param<Integer> READ_BUFFER_KB = Param.integer("ReadBufferKB", 256, "Read buffer per file in KB.");
    public static final Param<String> MULTILINE_START = Param.string("MultilineStart", "",
            "A regular expression matching the first line of a record; following lines that do not match are "
                    + "joined to it with \\n. Empty: every line is a message.");
    public static final Param<Integer> MULTILINE_TIMEOUT_MS = Param.integer("MultilineTimeoutMs", 1000,
            "A record is passed on when no line was added to it for this long.");
    public static final Param<Integer> ROTATE_WAIT_MS = Param.integer("RotateWaitMs", 5000,
            "How long a file renamed away or deleted is still read for late writes before it is released.");
    public static final Param<Integer> CHECKPOINT_INTERVAL_MS = Param.integer("CheckpointIntervalMs", 1000,
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

    private static final byte[] KEY_FILE = "file".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEY_DIR = "dir".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEY_TRUNCATED = "truncated".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NEWLINE = {'\n'};

    private final List<String> patterns = new ArrayList<>();
    private final Path offsetDir;
    private final Path offsetFile;
    private final boolean oldest;
    private final byte[] delimiter;
    private final boolean stripCr;
    private final long pollNanos;
    private final long retryNanos;
    private final long scanNanos;
    private final Pattern blackList;
    private final boolean setMetadata;
    private final int maxLine;
    private final int bufferSize;
    private final Pattern multiline;
    private final long multilineNanos;
    private final long rotateWaitNanos;
    private final long checkpointNanos;
    private final boolean exitOnEof;

    private final Map<Object, TailedFile> files = new LinkedHashMap<>();
    private final Map<Path, Long> failedOpens = new HashMap<>();
    private final Map<String, long[]> savedByKey = new HashMap<>();
    private final Map<String, Long> savedByName = new HashMap<>();
    private final AtomicLong truncatedLines = new AtomicLong();
    private final AtomicLong truncations = new AtomicLong();
    private final AtomicLong rotations = new AtomicLong();
    private final AtomicLong lines = new AtomicLong();
    private final Runnable onAck = this::acknowledged;
    private volatile boolean stopping;
    private volatile Thread reader;
    private Matcher matcher;
    private ByteChars chars;
    private ConsumerContext ctx;
    private Log log;
    private Batch batch;
    private TailedFile batchFile;
    private long batchEnd;
    private boolean initialScan = true;

    public FileConsumer(PluginConfig config) {
        super(config);
        patterns.addAll(config.get(FILE));
        patterns.addAll(config.get(FILES));
        if (patterns.isEmpty()) {
            throw config.error(FILE, "missing: name the files to read, e.g. File: /var/log/app/*.log");
        }
        String dir = config.get(OFFSET_FILE_PATH);
        this.offsetDir = dir.isEmpty() ? null : Path.of(dir);
        String single = config.get(OFFSET_FILE);
        if (!single.isEmpty() && (patterns.size() != 1 || isGlob(patterns.get(0)))) {
            throw config.error(OFFSET_FILE, "holds the offset of one file; use OffsetFilePath with globs or several files");
        }
        this.offsetFile = single.isEmpty() ? null : Path.of(single);
        String d = config.get(DEFAULT_OFFSET).toLowerCase(Locale.ROOT);
        if (!d.equals("newest") && !d.equals("oldest")) {
            throw config.error(DEFAULT_OFFSET, "expected newest or oldest, found '" + d + "'");
        }
        this.oldest = d.equals("oldest");
        this.delimiter = Bytes.unescape(config.get(DELIMITER));
        if (delimiter.length == 0) {
            throw config.error(DELIMITER, "must not be empty");
        }
        this.stripCr = delimiter.length == 1 && delimiter[0] == '\n';
        String mode = config.get(OBSERVE_MODE).toLowerCase(Locale.ROOT);
        if (!mode.equals("poll") && !mode.equals("watch")) {
            throw config.error(OBSERVE_MODE, "expected poll or watch, found '" + mode + "'");
        }
        this.pollNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, config.get(POLLING_DELAY_MS)));
        this.retryNanos = TimeUnit.SECONDS.toNanos(Math.max(0, config.get(RETRY_DELAY_SEC)));
        this.scanNanos = TimeUnit.SECONDS.toNanos(Math.max(1, config.get(DIR_SCAN_INTERVAL_SEC)));
        this.blackList = compile(config, BLACK_LIST);
        this.setMetadata = config.get(SET_METADATA);
        this.maxLine = config.get(MAX_LINE_SIZE);
        if (maxLine < 1) {
            throw config.error(MAX_LINE_SIZE, "must be at least 1");
        }
        this.bufferSize = Math.max(4, config.get(READ_BUFFER_KB)) * 1024;
        this.multiline = compile(config, MULTILINE_START);
        this.multilineNanos = TimeUnit.MILLISECONDS.toNanos(config.get(MULTILINE_TIMEOUT_MS));
        this.rotateWaitNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, config.get(ROTATE_WAIT_MS)));
        this.checkpointNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, config.get(CHECKPOINT_INTERVAL_MS)));
        this.exitOnEof = config.get(EXIT_ON_EOF);
        if (multiline != null) {
            chars = new ByteChars();
            matcher = multiline.matcher(chars);
        }
    }

    private static Pattern compile(PluginConfig config, Param<String> p) {
        String re = config.get(p);
        if (re.isEmpty()) {
            return null;
        }
        try {
            return Pattern.compile(re);
        } catch (java.util.regex.PatternSyntaxException e) {
            throw config.error(p, "not a regular expression: " + e.getDescription());
        }
    }

    private static boolean isGlob(String p) {
        return p.indexOf('*') >= 0 || p.indexOf('?') >= 0 || p.indexOf('[') >= 0 || p.indexOf('{') >= 0;
    }

    @Override
    public void consume(ConsumerContext context) throws Exception {
        this.ctx = context;
        this.log = context.log();
        this.reader = Thread.currentThread();
        loadCheckpoints();
        long nextScan = 0;
        long nextCheckpoint = System.nanoTime() + checkpointNanos;
        try {
            while (ctx.isActive() && !stopping) {
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
                    publish();
                    nextScan = Math.min(nextScan, checkGone());
                    flushMultiline(false);
                    if (exitOnEof && allAtEof && noRecordPending()) {
                        break;
                    }
                    LockSupport.parkNanos(pollNanos);
                }
                if (System.nanoTime() >= nextCheckpoint) {
                    checkpointAll();
                    nextCheckpoint = System.nanoTime() + checkpointNanos;
                }
            }
            flushMultiline(true);
            publish();
        } finally {
            stopping = true;
            if (batch != null) {
                batch.release();
                batch = null;
            }
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

    /** Reads once from a file; returns bytes read, 0 at EOF, -1 when the file is not open. */
    private int read(TailedFile f) throws IOException, InterruptedException {
        if (f.channel == null) {
            return -1;
        }
        ByteBuffer target = readTarget(f);
        int n;
        try {
            n = f.channel.read(target);
        } catch (IOException e) {
            log.error(config.id() + ": reading " + f.path + " failed: " + e + "; it will be opened again");
            forget(f);
            return -1;
        }
        if (n <= 0) {
            atEof(f);
            return 0;
        }
        f.end += n;
        f.lastDataNanos = System.nanoTime();
        cutLines(f);
        return n;
    }

    private ByteBuffer readTarget(TailedFile f) {
        if (f.end == f.buf.length) {
            if (f.start > 0) {
                System.arraycopy(f.buf, f.start, f.buf, 0, f.end - f.start);
                f.bufOffset += f.start;
                f.end -= f.start;
                f.scanFrom -= f.start;
                f.start = 0;
            } else {
                int cap = Math.min(maxLine + delimiter.length + 16, f.buf.length * 2);
                f.buf = java.util.Arrays.copyOf(f.buf, Math.max(cap, f.buf.length));
                f.view = ByteBuffer.wrap(f.buf);
            }
        }
        f.view.limit(f.buf.length).position(f.end);
        return f.view;
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
                moveBatchEnd(f, lineEnd);
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
        if (matcher == null) {
            emit(f, b, off, len, endOffset, cut, stamp);
            return;
        }
        chars.wrap(b, off, len);
        boolean starts = matcher.reset(chars).find();
        if (starts || f.recordLen == 0) {
            if (f.recordLen > 0) {
                emit(f, f.record, 0, f.recordLen, f.recordEnd, f.recordCut, stamp);
            }
            f.recordLen = 0;
            f.recordCut = false;
            append(f, b, off, len);
        } else {
            append(f, NEWLINE, 0, 1);
            append(f, b, off, len);
        }
        f.recordCut |= cut;
        f.recordEnd = endOffset;
        f.recordSinceNanos = System.nanoTime();
    }

    private void append(TailedFile f, byte[] b, int off, int len) {
        int room = maxLine - f.recordLen;
        if (len > room) {
            len = Math.max(0, room);
            if (!f.recordCut) {
                truncatedLines.incrementAndGet();
            }
            f.recordCut = true;
        }
        if (f.recordLen + len > f.record.length) {
            f.record = java.util.Arrays.copyOf(f.record, Math.max(f.recordLen + len, f.record.length * 2 + 64));
        }
        System.arraycopy(b, off, f.record, f.recordLen, len);
        f.recordLen += len;
    }

    /** Passes on multiline records that waited long enough (all of them when {@code all}). */
    private void flushMultiline(boolean all) throws InterruptedException {
        if (matcher == null) {
            return;
        }
        long t = System.nanoTime();
        for (TailedFile f : files.values()) {
            if (f.recordLen > 0 && (all || t - f.recordSinceNanos >= multilineNanos)) {
                emit(f, f.record, 0, f.recordLen, f.recordEnd, f.recordCut, Clock.epochNanos());
                f.recordLen = 0;
                f.recordCut = false;
            }
        }
        publish();
    }

    private boolean noRecordPending() {
        for (TailedFile f : files.values()) {
            if (f.recordLen > 0) {
                return false;
            }
        }
        return true;
    }

    private void emit(TailedFile f, byte[] b, int off, int len, long endOffset, boolean cut, long stamp)
            throws InterruptedException {
        if (batch != null && batchFile != f) {
            publish();
        }
        if (batch == null) {
            batch = ctx.newBatch();
            batchFile = f;
        }
        Message m = batch.add();
        m.setPayload(b, off, len);
        m.setTimestamp(stamp);
        if (setMetadata) {
            Metadata md = m.metadata();
            md.set(KEY_FILE, 0, KEY_FILE.length, f.nameBytes, 0, f.nameBytes.length, Metadata.STRING);
            md.set(KEY_DIR, 0, KEY_DIR.length, f.dirBytes, 0, f.dirBytes.length, Metadata.STRING);
        }
        if (cut) {
            m.metadata().set(KEY_TRUNCATED, 0, KEY_TRUNCATED.length, TRUE, 0, TRUE.length, Metadata.BOOLEAN);
        }
        batchEnd = endOffset;
        if (batch.isFull()) {
            publish();
        }
    }

    /** The end of a skipped over-long line moves the checkpoint of the batch holding its head. */
    private void moveBatchEnd(TailedFile f, long offset) {
        if (batch != null && batchFile == f && matcher == null) {
            batchEnd = offset;
        }
    }

    private void publish() throws InterruptedException {
        Batch b = batch;
        if (b == null) {
            return;
        }
        batch = null;
        lines.addAndGet(b.size());
        b.setCompletion(batchFile.track(batchEnd, onAck));
        ctx.publish(b);
    }

    /** At the end of a file: truncated under us? Renamed or deleted? */
    private void atEof(TailedFile f) throws IOException, InterruptedException {
        long size;
        try {
            size = f.channel.size();
        } catch (IOException e) {
            forget(f);
            return;
        }
        if (size < f.readPosition()) {
            truncations.incrementAndGet();
            log.info(config.id() + ": " + f.path + " was truncated (" + size + " < " + f.readPosition()
                    + " bytes read), reading it again from the start");
            publish();
            f.seek(0);
            f.newGeneration(0);
        }
    }

    /** Releases files gone from their path once they stayed quiet for RotateWaitMs; returns when to rescan. */
    private long checkGone() throws InterruptedException {
        long t = System.nanoTime();
        long rescan = Long.MAX_VALUE;
        for (TailedFile f : new ArrayList<>(files.values())) {
            Object key = keyOf(f.path);
            if (key != null && key.equals(f.key)) {
                f.goneSinceNanos = 0;
                continue;
            }
            if (f.goneSinceNanos == 0) {
                f.goneSinceNanos = t;
                rotations.incrementAndGet();
                log.info(config.id() + ": " + f.path + " was rotated or removed; reading it to its end");
                rescan = t;
            } else if (t - f.goneSinceNanos >= rotateWaitNanos && t - f.lastDataNanos >= rotateWaitNanos) {
                release(f);
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
        if (f.recordLen > 0) {
            emit(f, f.record, 0, f.recordLen, f.recordEnd, f.recordCut, Clock.epochNanos());
            f.recordLen = 0;
        }
        publish();
        forget(f);
        log.info(config.id() + ": released " + f.path);
    }

    private void forget(TailedFile f) {
        f.close();
        files.remove(f.key);
    }

    // ---- discovery ----

    private void scan() throws IOException {
        for (String pattern : patterns) {
            for (Path p : match(pattern)) {
                if (blackList != null && blackList.matcher(p.toString()).find()) {
                    continue;
                }
                Object key = keyOf(p);
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
    }

    private void open(Path p, Object key) {
        TailedFile f = new TailedFile(key, p, bufferSize);
        try {
            f.channel = FileChannel.open(p, StandardOpenOption.READ);
            long size = f.channel.size();
            long start = startOffset(f, size);
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

    private long startOffset(TailedFile f, long size) {
        long[] saved = savedByKey.get(f.keyText);
        if (saved != null && saved[0] <= size) {
            return saved[0];
        }
        Long legacy = savedByName.get(f.path.getFileName().toString());
        if (saved == null && legacy != null && legacy <= size) {
            return legacy;
        }
        if (saved != null || legacy != null) {
            log.warn(config.id() + ": checkpoint of " + f.path + " is past its end; the file was replaced, reading from the start");
            return 0;
        }
        return initialScan && !oldest ? size : 0;
    }

    private List<Path> match(String pattern) throws IOException {
        List<Path> out = new ArrayList<>();
        if (!isGlob(pattern)) {
            Path p = Path.of(pattern);
            if (Files.isRegularFile(p)) {
                out.add(p);
            }
            return out;
        }
        // Walk from the longest folder prefix without wildcards, as deep as the pattern reaches.
        String norm = pattern;
        int firstWild = 0;
        while (firstWild < norm.length() && "*?[{".indexOf(norm.charAt(firstWild)) < 0) {
            firstWild++;
        }
        int slash = norm.lastIndexOf('/', firstWild);
        Path base = slash < 0 ? Path.of(".") : Path.of(slash == 0 ? "/" : norm.substring(0, slash));
        if (!Files.isDirectory(base)) {
            return out;
        }
        String rest = slash < 0 ? norm : norm.substring(slash + 1);
        int depth = rest.contains("**") ? 32 : rest.split("/").length;
        PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + (slash < 0 ? norm : norm));
        if (depth == 1) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(base)) {
                for (Path p : ds) {
                    Path candidate = slash < 0 ? p.getFileName() : p;
                    if (m.matches(candidate) && Files.isRegularFile(p)) {
                        out.add(p);
                    }
                }
            }
            return out;
        }
        try (Stream<Path> s = Files.walk(base, depth)) {
            s.filter(p -> m.matches(slash < 0 ? base.relativize(p) : p) && Files.isRegularFile(p)).forEach(out::add);
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
        return out;
    }

    private static Object keyOf(Path p) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            Object k = a.fileKey();
            return a.isRegularFile() ? (k != null ? k : p.toAbsolutePath().toString()) : null;
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    // ---- checkpoints ----

    private void loadCheckpoints() {
        if (offsetFile != null) {
            readCheckpoint(offsetFile, Path.of(patterns.get(0)).getFileName().toString());
        }
        if (offsetDir == null) {
            return;
        }
        if (!Files.isDirectory(offsetDir)) {
            try {
                Files.createDirectories(offsetDir);
            } catch (IOException e) {
                log.error(config.id() + ": cannot create OffsetFilePath " + offsetDir + ": " + e);
            }
            return;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(offsetDir, "*.offset")) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                readCheckpoint(p, name.substring(0, name.length() - ".offset".length()));
            }
        } catch (IOException e) {
            log.error(config.id() + ": cannot read checkpoints in " + offsetDir + ": " + e);
        }
    }

    /** "OFFSET\nKEY\n"; Gollum's files hold the offset alone and are matched by name. */
    private void readCheckpoint(Path p, String name) {
        try {
            if (!Files.exists(p)) {
                return;
            }
            String[] parts = Files.readString(p, StandardCharsets.UTF_8).trim().split("\n", 2);
            long offset = Long.parseLong(parts[0].trim());
            if (parts.length > 1 && !parts[1].isBlank()) {
                savedByKey.put(parts[1].trim(), new long[] {offset});
            } else {
                savedByName.put(name, offset);
            }
        } catch (IOException | NumberFormatException e) {
            log.warn(config.id() + ": ignoring unreadable checkpoint " + p + ": " + e);
        }
    }

    /** Called by the producer thread that completed a batch: after shutdown began, checkpoint at once. */
    private void acknowledged() {
        if (stopping) {
            checkpointAll();
        }
    }

    private synchronized void checkpointAll() {
        if (offsetDir == null && offsetFile == null) {
            return;
        }
        for (TailedFile f : new ArrayList<>(filesSnapshot())) {
            if (f.checkpointDue()) {
                long offset = f.committed();
                Path target = offsetFile != null ? offsetFile : offsetDir.resolve(f.path.getFileName() + ".offset");
                try {
                    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
                    Files.writeString(tmp, offset + "\n" + f.keyText + "\n", StandardCharsets.UTF_8);
                    // Rename is atomic: a crash leaves the old checkpoint or the new one, never half of one.
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    f.markCheckpointed(offset);
                } catch (IOException e) {
                    log.error(config.id() + ": cannot write checkpoint " + target + ": " + e);
                }
            }
        }
    }

    private final List<TailedFile> snapshot = new java.util.concurrent.CopyOnWriteArrayList<>();

    private List<TailedFile> filesSnapshot() {
        // files is owned by the reader thread; completions on producer threads read a copy it refreshes.
        if (Thread.currentThread() == reader) {
            snapshot.clear();
            snapshot.addAll(files.values());
        }
        return snapshot;
    }

    private void report() {
        if (truncatedLines.get() > 0) {
            log.warn(config.id() + ": " + truncatedLines.get() + " lines longer than MaxLineSize were cut (flagged truncated)");
        }
        if (truncations.get() > 0) {
            log.info(config.id() + ": " + truncations.get() + " files were truncated while being read (copytruncate)");
        }
    }

    /** Lines published so far. */
    public long lines() {
        return lines.get();
    }

    /** Lines cut at MaxLineSize. */
    public long truncatedLines() {
        return truncatedLines.get();
    }

    /** Files seen truncated under the reader. */
    public long truncations() {
        return truncations.get();
    }

    /** Files seen renamed away or removed. */
    public long rotations() {
        return rotations.get();
    }

    /** A CharSequence over bytes (Latin-1) so the multiline pattern runs without decoding to a String. */
    private static final class ByteChars implements CharSequence {
        private byte[] b;
        private int off;
        private int len;

        void wrap(byte[] bytes, int offset, int length) {
            b = bytes;
            off = offset;
            len = length;
        }

        @Override
        public int length() {
            return len;
        }

        @Override
        public char charAt(int index) {
            return (char) (b[off + index] & 0xFF);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new String(b, off + start, end - start, StandardCharsets.ISO_8859_1);
        }

        @Override
        public String toString() {
            return new String(b, off, len, StandardCharsets.ISO_8859_1);
        }
    }
}
