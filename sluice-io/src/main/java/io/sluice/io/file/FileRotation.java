package io.sluice.io.file;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.format.GoLayout;
import io.sluice.core.pipeline.Log;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link FileProducer}'s {@code Rotation/*} and {@code Prune/*} groups: when a file is rotated (by size, age or
 * time of day), Gollum's names for rotated files ({@code name_TIMESTAMP.ext}, {@code _N} added when taken, and a
 * {@code name_current.ext} symlink to the newest), and which rotated files are pruned (by count, age and total
 * size). Immutable: shared by every {@link FileTarget} of a producer.
 */
final class FileRotation {
    final boolean enabled;
    private final long maxBytes;
    private final long maxMillis;
    private final DateTimeFormatter stamp;
    private final int zeroPad;
    private final int atHour;
    /** -1: no daily rotation at a time of day. */
    private final int atMinute;
    private final int pruneCount;
    private final long pruneAfterMillis;
    private final long pruneTotalBytes;

    /** Reads the groups of a producer.File. @throws RuntimeException (a config error) naming a bad setting */
    FileRotation(PluginConfig config) {
        enabled = config.get(FileProducer.ROTATION_ENABLE);
        maxBytes = config.get(FileProducer.ROTATION_SIZE_MB) * 1024L * 1024L;
        maxMillis = TimeUnit.MINUTES.toMillis(config.get(FileProducer.ROTATION_TIMEOUT_MIN));
        stamp = DateTimeFormatter.ofPattern(GoLayout.parse(config.get(FileProducer.ROTATION_TIMESTAMP)).javaPattern());
        zeroPad = config.get(FileProducer.ROTATION_ZERO_PADDING);
        int hour = -1;
        int minute = -1;
        String at = config.get(FileProducer.ROTATION_AT);
        if (!at.isEmpty()) {
            String[] hm = at.split(":");
            try {
                hour = Integer.parseInt(hm[0].trim());
                minute = hm.length > 1 ? Integer.parseInt(hm[1].trim()) : 0;
            } catch (NumberFormatException e) {
                hour = -1;
            }
            if (hour < 0 || hour > 23 || minute < 0 || minute > 59) {
                throw config.error(FileProducer.ROTATION_AT, "expected hh:mm, found '" + at + "'");
            }
        }
        atHour = hour;
        atMinute = minute;
        pruneCount = config.get(FileProducer.PRUNE_COUNT);
        pruneAfterMillis = TimeUnit.HOURS.toMillis(config.get(FileProducer.PRUNE_AFTER_HOURS));
        pruneTotalBytes = config.get(FileProducer.PRUNE_TOTAL_SIZE_MB) * 1024L * 1024L;
    }

    /**
     * Whether a file with {@code fileBytes} on disk, opened at {@code openedMillis}, is due now.
     *
     * @param nextAtMillis when it is due by time of day ({@link #nextAt}), or 0
     */
    boolean due(long fileBytes, long openedMillis, long nextAtMillis) {
        if (!enabled) {
            return false;
        }
        long now = System.currentTimeMillis();
        return fileBytes >= maxBytes || now - openedMillis >= maxMillis || (nextAtMillis > 0 && now >= nextAtMillis);
    }

    /** The next {@code Rotation/At} time after {@code fromMillis}, or 0 when it is not set. */
    long nextAt(long fromMillis) {
        if (atMinute < 0) {
            return 0;
        }
        LocalDateTime now = LocalDateTime.ofInstant(Instant.ofEpochMilli(fromMillis), ZoneId.systemDefault());
        LocalDateTime at = now.withHour(atHour).withMinute(atMinute).withSecond(0).withNano(0);
        if (!at.isAfter(now)) {
            at = at.plusDays(1);
        }
        return at.atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
    }

    /** dir/name_TIMESTAMP.ext, with _N added when the name is taken (Gollum's rotation names). */
    Path rotatedName(Path base) {
        String[] parts = split(base.getFileName().toString());
        String time = stamp.format(LocalDateTime.now());
        Path dir = base.toAbsolutePath().getParent();
        Path p = dir.resolve(parts[0] + "_" + time + parts[1]);
        for (int n = 1; Files.exists(p, LinkOption.NOFOLLOW_LINKS); n++) {
            String num = zeroPad > 0 ? String.format("%0" + zeroPad + "d", n) : Integer.toString(n);
            p = dir.resolve(parts[0] + "_" + time + "_" + num + parts[1]);
        }
        return p;
    }

    /** dir/name_current.ext: the symlink to the newest rotated file. */
    static Path currentLink(Path base) {
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

    /** Points the {@code _current} symlink at {@code target}, replacing it atomically; a failure is logged. */
    static void link(Path target, Path linkPath, String id, Log log) {
        try {
            Path tmp = linkPath.resolveSibling(linkPath.getFileName() + ".tmp");
            Files.deleteIfExists(tmp);
            Files.createSymbolicLink(tmp, target.getFileName());
            Files.move(tmp, linkPath, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | UnsupportedOperationException e) {
            log.warn(id + ": cannot update " + linkPath + ": " + e);
        }
    }

    /**
     * Keeps the newest Prune/Count rotated files of {@code base}, none older than Prune/AfterHours, within
     * Prune/TotalSizeMB; {@code current} (the file being written) is never pruned.
     */
    void prune(Path base, Path current, String id, Log log) {
        if (pruneCount <= 0 && pruneAfterMillis <= 0 && pruneTotalBytes <= 0) {
            return;
        }
        String[] parts = split(base.getFileName().toString());
        String prefix = parts[0] + "_";
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(base.toAbsolutePath().getParent())) {
            for (Path p : ds) {
                String n = p.getFileName().toString();
                if (n.startsWith(prefix) && n.endsWith(parts[1]) && !n.equals(parts[0] + "_current" + parts[1])
                        && !Files.isSymbolicLink(p) && !p.equals(current)) {
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
                boolean tooMany = pruneCount > 0 && i >= pruneCount;
                boolean tooOld = pruneAfterMillis > 0 && now - modified(p).toMillis() > pruneAfterMillis;
                boolean tooBig = pruneTotalBytes > 0 && total > pruneTotalBytes;
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
}
