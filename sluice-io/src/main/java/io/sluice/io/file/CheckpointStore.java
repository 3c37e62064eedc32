package io.sluice.io.file;

import io.sluice.core.pipeline.Log;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The checkpoints of {@link FileConsumer}: per file, the acknowledged offset ({@link TailedFile#committed()}),
 * in {@code OffsetFilePath/NAME.offset} or in Gollum's single {@code OffsetFile}. A checkpoint holds
 * {@code "OFFSET\nKEY\nFINGERPRINT\n"}: the key is the file's identity (device and inode), so a file renamed by
 * rotation keeps its offset, and the {@link Fingerprint} of its first bytes tells when the same file now holds other
 * content (copied and truncated, or its inode reused, while Sluice was down). Checkpoints of older versions have
 * no fingerprint and are trusted as they are; Gollum's files hold the offset alone and are matched by the file's name.
 */
final class CheckpointStore {
    private static final String SUFFIX = ".offset";

    private final String id;
    private final Path dir;
    private final Path single;
    /** The name {@link #single}'s offset belongs to (the one File configured). */
    private final String singleName;
    private final Fingerprint fingerprints;
    private final Map<String, TailedFile.Position> byKey = new HashMap<>();
    private final Map<String, Long> byName = new HashMap<>();
    private Log log;

    /**
     * @param dir        OffsetFilePath, or null
     * @param single     OffsetFile, or null
     * @param singleName the file name {@code single} is for
     * @param fingerprints the reader thread's, which opens the files
     */
    CheckpointStore(String id, Path dir, Path single, String singleName, Fingerprint fingerprints) {
        this.id = id;
        this.dir = dir;
        this.single = single;
        this.singleName = singleName;
        this.fingerprints = fingerprints;
    }

    /** Reads every checkpoint there is (creating OffsetFilePath when missing); problems are logged, not thrown. */
    void load(Log log) {
        this.log = log;
        if (single != null) {
            read(single, singleName);
        }
        if (dir == null) {
            return;
        }
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                log.error(id + ": cannot create OffsetFilePath " + dir + ": " + e);
            }
            return;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                read(p, name.substring(0, name.length() - SUFFIX.length()));
            }
        } catch (IOException e) {
            log.error(id + ": cannot read checkpoints in " + dir + ": " + e);
        }
    }

    private void read(Path p, String name) {
        try {
            if (!Files.exists(p)) {
                return;
            }
            String[] parts = Files.readString(p, StandardCharsets.UTF_8).trim().split("\n", 3);
            long offset = Long.parseLong(parts[0].trim());
            if (parts.length > 1 && !parts[1].isBlank()) {
                long fingerprint = parts.length > 2 ? Fingerprint.parse(parts[2].trim()) : Fingerprint.NONE;
                byKey.put(parts[1].trim(), new TailedFile.Position(offset, fingerprint));
            } else {
                byName.put(name, offset);
            }
        } catch (IOException | NumberFormatException e) {
            log.warn(id + ": ignoring unreadable checkpoint " + p + ": " + e);
        }
    }

    /**
     * Where to start reading a file just opened: its checkpoint when it has one within its {@code size} and the file
     * still starts with the bytes fingerprinted (the fingerprint is then {@code f}'s), the start when its checkpoint
     * is past its end or its first bytes changed (the file was replaced), else {@code size} when {@code fromEnd},
     * else 0.
     */
    long startOffset(TailedFile f, long size, boolean fromEnd) throws IOException {
        TailedFile.Position position = byKey.get(f.keyText);
        Long saved = position == null ? null : position.offset();
        if (saved != null && saved <= size) {
            long fingerprint = fingerprints.verify(f.channel, position.fingerprint());
            if (fingerprint != Fingerprint.MISMATCH) {
                f.fingerprint(fingerprint);
                return saved;
            }
            log.warn(id + ": " + f.path + " no longer starts with the bytes its checkpoint was taken of; the file was "
                    + "replaced, reading from the start");
            return 0;
        }
        Long legacy = byName.get(f.path.getFileName().toString());
        if (saved == null && legacy != null && legacy <= size) {
            return legacy;
        }
        if (saved != null || legacy != null) {
            log.warn(id + ": checkpoint of " + f.path + " is past its end; the file was replaced, reading from the start");
            return 0;
        }
        return fromEnd ? size : 0;
    }

    /**
     * Writes the checkpoint of each file whose acknowledged offset moved. Called by the reader and, after shutdown
     * began, by the producer threads completing batches: hence synchronized.
     */
    synchronized void writeDue(List<TailedFile> files) {
        if (dir == null && single == null) {
            return;
        }
        for (TailedFile f : files) {
            if (f.checkpointDue()) {
                TailedFile.Position position = f.position();
                long offset = position.offset();
                Path target = single != null ? single : dir.resolve(f.path.getFileName() + SUFFIX);
                try {
                    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
                    Files.writeString(tmp, offset + "\n" + f.keyText + "\n" + Fingerprint.format(position.fingerprint())
                            + "\n", StandardCharsets.UTF_8);
                    // Rename is atomic: a crash leaves the old checkpoint or the new one, never half of one.
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    f.markCheckpointed(offset);
                } catch (IOException e) {
                    log.error(id + ": cannot write checkpoint " + target + ": " + e);
                }
            }
        }
    }
}
