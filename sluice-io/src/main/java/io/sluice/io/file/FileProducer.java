package io.sluice.io.file;

import io.sluice.core.Daemon;
import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.format.GoLayout;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.io.FileModes;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code producer.File}: writes each message as one line (NDJSON when the payload is a JSON object), compressing
 * when the path ends in {@code .gz} (gzip) or {@code .zst} (zstd). A control byte inside a payload is escaped
 * ({@link io.sluice.io.LineEscaper}), so no payload can split its line or forge another record.
 *
 * <p>A delivery copies the batch's lines into a reused buffer and writes it (compressing on the way) before it
 * returns: a batch counted as delivered, and acknowledged upstream, is in the file (synced too under
 * {@code Fsync: interval}). A failed write (disk full, say) cuts the file back to where the batch began, logs an
 * ERROR (once, then every 30 s while it lasts), makes {@link #isReady()} false and fails the delivery: the
 * pipeline retries it ({@code Retry/*}) or sends it to the fallback stream, and nothing is acknowledged meanwhile.
 * {@link #start} opens the file (or, with a stream name in the path, checks that its folder can be written), so
 * a path that cannot be written stops the start instead of failing every delivery.
 *
 * <p>Rotation by size, age and clock time with Gollum's names ({@code name_TIMESTAMP.ext} plus a
 * {@code name_current.ext} symlink) and pruning by count, age and total size; a background thread checks age,
 * clock time and a date in the path every {@code FlushIntervalMs} even when nothing is written.
 *
 * <pre>
 * "FileOut":
 *     Type: producer.File
 *     Streams: "*"
 *     File: "/var/log/sluice/*.ndjson.gz"    # * is the stream name; ${date:2006-01-02} the date
 *     Rotation:
 *         Enable: true
 *         SizeMB: 512
 *     Prune:
 *         Count: 10
 * </pre>
 */
public final class FileProducer extends Producer {
    public static final Param<String> FILE = Param.string("File", "/var/log/gollum.log",
            "Path of the file to write. \"*\" (or ${stream}) is replaced by the stream name and ${date:LAYOUT} by the "
                    + "date in a Go layout; a name ending in .gz is gzip-compressed, in .zst zstd-compressed.");
    public static final Param<Boolean> FILE_OVERWRITE = Param.bool("FileOverwrite", false,
            "Truncate an existing file instead of appending to it.");
    public static final Param<String> PERMISSIONS = Param.string("Permissions", "0644",
            "Permissions of created files, as an octal number.");
    public static final Param<String> FOLDER_PERMISSIONS = Param.string("FolderPermissions", "0755",
            "Permissions of created folders, as an octal number.");
    public static final Param<Integer> FLUSH_INTERVAL_MS = Param.millis("FlushIntervalMs", 100,
            "How often rotation by age or time of day and a date in the path are checked while nothing is written; "
                    + "lines are written when their batch is delivered.");
    public static final Param<Integer> BUFFER_SIZE_KB = Param.integer("BufferSizeKB", 1024,
            "Size of the reused line buffer per file; it grows to hold one batch when a batch is larger.").atLeast(4);
    public static final Param<Integer> COMPRESSION_LEVEL = Param.integer("CompressionLevel", 1,
            "gzip level 1-9 or zstd level 1-19 for .gz/.zst paths. gzip 1 compresses ~190 MB/s per core, 6 ~75.");
    public static final Param<Fsync> FSYNC = Param.choice("Fsync", Fsync.ROTATE,
            "When to fsync: never, rotate (when a file is closed or rotated), or interval (after every write, "
                    + "before the delivery returns and is acknowledged).");
    public static final Param<Integer> BATCH_MAX_COUNT = Param.integer("Batch/MaxCount", 8192,
            "Accepted for Gollum configs; each pipeline batch is written as it is delivered.");
    public static final Param<Integer> BATCH_FLUSH_COUNT = Param.integer("Batch/FlushCount", 4096,
            "Accepted for Gollum configs; each pipeline batch is written as it is delivered.");
    public static final Param<Integer> BATCH_TIMEOUT_SEC = Param.seconds("Batch/TimeoutSec", 5,
            "Gollum's flush timeout; when set (and FlushIntervalMs is not) it sets FlushIntervalMs.");
    public static final Param<Integer> BATCH_FLUSH_TIMEOUT_SEC = Param.seconds("Batch/FlushTimeoutSec", 0,
            "Accepted for Gollum configs; shutdown uses ShutdownTimeoutMs.");
    public static final Param<Boolean> ROTATION_ENABLE = Param.bool("Rotation/Enable", false,
            "Rotate files by size, age or time of day.");
    public static final Param<Integer> ROTATION_TIMEOUT_MIN = Param.integer("Rotation/TimeoutMin", 1440,
            "Rotate after this many minutes.");
    public static final Param<Integer> ROTATION_SIZE_MB = Param.integer("Rotation/SizeMB", 1024,
            "Rotate once a file has this many MB on disk.");
    public static final Param<String> ROTATION_TIMESTAMP = Param.string("Rotation/Timestamp", "2006-01-02_15",
            "Go layout of the timestamp in rotated file names: name_TIMESTAMP.ext.");
    public static final Param<Integer> ROTATION_ZERO_PADDING = Param.integer("Rotation/ZeroPadding", 0,
            "Digits of the counter added when a rotated name exists already (0: no padding).");
    public static final Param<Boolean> ROTATION_COMPRESS = Param.bool("Rotation/Compress", false,
            "Gollum gzips rotated files; Sluice compresses as it writes: name the file *.gz instead.");
    public static final Param<String> ROTATION_AT = Param.string("Rotation/At", "",
            "Also rotate daily at this time, hh:mm.");
    public static final Param<Integer> PRUNE_COUNT = Param.integer("Prune/Count", 0,
            "Keep at most this many rotated files (0: no limit).");
    public static final Param<Integer> PRUNE_AFTER_HOURS = Param.integer("Prune/AfterHours", 0,
            "Delete rotated files older than this (0: never).");
    public static final Param<Integer> PRUNE_TOTAL_SIZE_MB = Param.integer("Prune/TotalSizeMB", 0,
            "Delete the oldest rotated files beyond this total size (0: no limit).");

    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "producer.File",
            "Writes messages as lines to files (NDJSON, .gz, .zst), one record per line, with rotation.")
            .params(FILE, FILE_OVERWRITE, PERMISSIONS, FOLDER_PERMISSIONS, FLUSH_INTERVAL_MS, BUFFER_SIZE_KB,
                    COMPRESSION_LEVEL, FSYNC, BATCH_MAX_COUNT, BATCH_FLUSH_COUNT, BATCH_TIMEOUT_SEC,
                    BATCH_FLUSH_TIMEOUT_SEC, ROTATION_ENABLE, ROTATION_TIMEOUT_MIN, ROTATION_SIZE_MB,
                    ROTATION_TIMESTAMP, ROTATION_ZERO_PADDING, ROTATION_COMPRESS, ROTATION_AT, PRUNE_COUNT,
                    PRUNE_AFTER_HOURS, PRUNE_TOTAL_SIZE_MB)
            .factory(FileProducer::new);

    /** When the file is synced to disk ({@code Fsync}). */
    public enum Fsync {
        /** Never: the kernel writes back when it likes. */
        NEVER,
        /** When a file is closed or rotated. */
        ROTATE,
        /** After every write, before the delivery returns. */
        INTERVAL;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Settings shared by every target of this producer. */
    static final class Settings {
        String permissions;
        String folderPermissions;
        boolean overwrite;
        long flushIntervalNanos;
        int chunkSize;
        int level;
        Fsync fsync;
        boolean datedPath;
        FileRotation rotation;
        FileTarget.Opener opener = FileChannel::open;
    }

    private static final Map<String, DateTimeFormatter> LAYOUTS = new ConcurrentHashMap<>();

    private final Settings s = new Settings();
    private final String file;
    private final boolean perStream;
    private final Map<Integer, FileTarget> byStream = new HashMap<>();
    private final Map<String, FileTarget> byTemplate = new HashMap<>();
    private final List<FileTarget> targets = new CopyOnWriteArrayList<>();
    private FileTarget[] touched = new FileTarget[4];
    private volatile boolean closing;
    private volatile long firstDeliverNanos;
    private Thread maintainer;
    private Log log;
    private AtomicLong invalidUtf8 = new AtomicLong();

    public FileProducer(PluginConfig config) {
        super(config);
        this.file = config.get(FILE);
        if (file.isEmpty()) {
            throw config.error(FILE, "must name a file");
        }
        this.perStream = file.contains("*") || file.contains("${stream}");
        s.datedPath = file.contains("${date:");
        if (s.datedPath) {
            try {
                resolveDate(file, LocalDateTime.now());
            } catch (IllegalArgumentException e) {
                throw config.error(FILE, "bad ${date:...} layout: " + e.getMessage());
            }
        }
        s.overwrite = config.get(FILE_OVERWRITE);
        s.permissions = FileModes.rwx(FileModes.octal(config, PERMISSIONS, "0644"));
        s.folderPermissions = FileModes.rwx(FileModes.octal(config, FOLDER_PERMISSIONS, "0644"));
        int interval = config.get(FLUSH_INTERVAL_MS);
        if (!config.isSet(FLUSH_INTERVAL_MS) && config.isSet(BATCH_TIMEOUT_SEC)) {
            interval = config.get(BATCH_TIMEOUT_SEC) * 1000;
        }
        if (interval < 1) {
            throw config.error(FLUSH_INTERVAL_MS, "must be at least 1");
        }
        s.flushIntervalNanos = TimeUnit.MILLISECONDS.toNanos(interval);
        s.chunkSize = config.get(BUFFER_SIZE_KB) * 1024;
        s.level = config.get(COMPRESSION_LEVEL);
        if (s.level < 1 || s.level > (file.endsWith(".zst") ? 22 : 9)) {
            throw config.error(COMPRESSION_LEVEL, "out of range for " + (file.endsWith(".zst") ? "zstd (1-22)" : "gzip (1-9)"));
        }
        s.fsync = config.get(FSYNC);
        s.rotation = new FileRotation(config);
    }

    /**
     * Checks that the output can be written before anything is accepted: the file is opened (created, with its
     * folders); with a stream name in the path, which names files only once streams arrive, the folder is created
     * and a probe file written in it. A path that cannot be written throws, naming it, and the start fails.
     */
    @Override
    public void start(ProducerContext ctx) throws IOException {
        this.log = ctx.log();
        this.invalidUtf8 = ctx.stats().counter("sluice_invalid_utf8_total",
                "Invalid UTF-8 sequences in JSON payloads written as U+FFFD.");
        if (config.get(ROTATION_COMPRESS) && !file.endsWith(".gz")) {
            log.warn(config.id() + ": Rotation/Compress is not needed in Sluice: name the file *.gz to write it compressed");
        }
        if (perStream) {
            probeFolder();
        } else {
            FileTarget t = new FileTarget(s, file, config.id(), log, invalidUtf8);
            byTemplate.put(file, t);
            targets.add(t);
            t.openNow();
        }
        maintainer = Daemon.start("producer-" + config.id() + "-rotate", this::maintainLoop);
    }

    /** The deepest folder of the path without a stream name in it: created if missing, and a file written there. */
    private void probeFolder() throws IOException {
        String resolved = s.datedPath ? resolveDate(file, LocalDateTime.now()) : file;
        Path dir = Path.of(resolved).toAbsolutePath().getParent();
        while (dir != null && (dir.toString().contains("*") || dir.toString().contains("${stream}"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            return;
        }
        try {
            if (!Files.isDirectory(dir)) {
                FileModes.createDirectories(dir, s.folderPermissions);
            }
            Path probe = Files.createTempFile(dir, ".sluice-probe-", ".tmp");
            try {
                Files.write(probe, new byte[] {'\n'});
            } finally {
                Files.deleteIfExists(probe);
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException("cannot write " + resolved + ": " + WriteFailures.reason(e), e);
        }
    }

    /**
     * Writes the batch's lines to their files before returning. A write that fails cuts every file of this batch
     * back to where the batch began and throws: the pipeline retries the batch or sends it to the fallback stream.
     */
    @Override
    public void deliver(Batch batch) throws IOException {
        int n = batch.size();
        int touchedCount = 0;
        int lastStream = Integer.MIN_VALUE;
        FileTarget t = null;
        if (firstDeliverNanos == 0) {
            firstDeliverNanos = System.nanoTime();
        }
        try {
            for (int i = 0; i < n; i++) {
                Message m = batch.get(i);
                if (m.stream() != lastStream) {
                    lastStream = m.stream();
                    t = target(lastStream);
                    touchedCount = addTouched(t, touchedCount);
                }
                t.add(m);
            }
            for (int i = 0; i < touchedCount; i++) {
                touched[i].write();
            }
        } catch (IOException | RuntimeException e) {
            for (int i = 0; i < touchedCount; i++) {
                touched[i].abort();
            }
            throw e;
        }
        for (int i = 0; i < touchedCount; i++) {
            touched[i].commit();
        }
    }

    /** False while a file cannot be written (from a failed write until one succeeds). */
    @Override
    public boolean isReady() {
        return targets.stream().noneMatch(FileTarget::failing);
    }

    private int addTouched(FileTarget t, int count) {
        for (int i = 0; i < count; i++) {
            if (touched[i] == t) {
                return count;
            }
        }
        if (count == touched.length) {
            touched = java.util.Arrays.copyOf(touched, count * 2);
        }
        touched[count] = t;
        return count + 1;
    }

    private FileTarget target(int stream) {
        FileTarget t = byStream.get(stream);
        if (t == null) {
            String template = perStream ? file.replace("*", Streams.name(stream)).replace("${stream}", Streams.name(stream)) : file;
            t = byTemplate.get(template);
            if (t == null) {
                t = new FileTarget(s, template, config.id(), log, invalidUtf8);
                byTemplate.put(template, t);
                targets.add(t);
            }
            byStream.put(stream, t);
        }
        return t;
    }

    /** Rotation by age and time of day, and a new date in the path, while nothing is written. */
    private void maintainLoop() {
        long park = Math.max(1_000_000L, s.flushIntervalNanos / 2);
        while (!closing) {
            for (FileTarget t : targets) {
                t.maintain();
            }
            LockSupport.parkNanos(park);
        }
    }

    /** Used by tests to put a failing channel between the producer and its files; before start. */
    void opener(FileTarget.Opener opener) {
        s.opener = opener;
    }

    @Override
    public void close() throws InterruptedException {
        closing = true;
        Thread f = maintainer;
        if (f != null) {
            LockSupport.unpark(f);
            f.join();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.get(PluginSpec.SHUTDOWN_TIMEOUT_MS));
        long input = 0;
        long disk = 0;
        long last = 0;
        for (FileTarget t : targets) {
            t.close(deadline);
            input += t.inputBytes;
            disk += t.diskBytes;
            last = Math.max(last, t.lastWriteNanos);
        }
        if (log != null && input > 0 && last > firstDeliverNanos) {
            double secs = (last - firstDeliverNanos) / 1e9;
            log.info(String.format("%s: wrote %,d bytes of lines as %,d bytes in %.3f s = %.0f MB/s of input"
                    + " (first delivered to last written)", config.id(), input, disk, secs, input / 1e6 / secs));
        }
    }

    /** Replaces each ${date:LAYOUT} (a Go layout) in a path with the formatted date. */
    static String resolveDate(String template, LocalDateTime now) {
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (true) {
            int at = template.indexOf("${date:", i);
            if (at < 0) {
                return b.append(template, i, template.length()).toString();
            }
            int end = template.indexOf('}', at);
            if (end < 0) {
                throw new IllegalArgumentException("${date: without a closing }");
            }
            String layout = template.substring(at + 7, end);
            DateTimeFormatter f = LAYOUTS.computeIfAbsent(layout, l -> DateTimeFormatter.ofPattern(GoLayout.parse(l).javaPattern()));
            b.append(template, i, at).append(f.format(now));
            i = end + 1;
        }
    }
}
