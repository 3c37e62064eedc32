package io.sluice.core.buffer;

import io.sluice.core.pipeline.Log;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A disk buffer's directory: numbered segment files ({@code 00000000000000000042.seg}) and {@code ack.pos}, the
 * acknowledged position (segment, offset and their CRC32C), which says where a replay starts.
 */
final class SegmentFiles {
    /** Opens the buffer's files; tests put a failing channel in between. */
    interface Channels {
        FileChannel open(Path path, OpenOption... options) throws IOException;
    }

    private static final String SEGMENT_SUFFIX = ".seg";
    private static final String ACK_FILE = "ack.pos";
    private static final int ACK_BYTES = 20;

    private final Path dir;
    private final Log log;
    private final String id;
    private volatile Channels channels;
    private final FileChannel ackChannel;
    private final ByteBuffer ackBytes = ByteBuffer.allocate(ACK_BYTES);

    SegmentFiles(Path dir, Channels channels, Log log, String id) throws IOException {
        this.dir = dir;
        this.channels = channels;
        this.log = log;
        this.id = id;
        Files.createDirectories(dir);
        ackChannel = channels.open(dir.resolve(ACK_FILE), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
    }

    Path dir() {
        return dir;
    }

    /** Swaps how files are opened from now on. */
    void channels(Channels c) {
        this.channels = c;
    }

    /** Opens a file of the buffer through the current {@link Channels}. */
    FileChannel open(Path path, OpenOption... options) throws IOException {
        return channels.open(path, options);
    }

    /** Creates (or empties) segment {@code s} for appending. */
    FileChannel create(long s) throws IOException {
        return open(segment(s), StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    }

    Path segment(long s) {
        return dir.resolve(String.format("%020d%s", s, SEGMENT_SUFFIX));
    }

    /** Where a buffer opened on these files resumes. */
    record Start(long ackSegment, long ackPosition, long pendingBytes, long writeSegment) {
    }

    /**
     * Reads where the last run stopped: the acknowledged position, the bytes after it (what is replayed), and the
     * segment to append to. Segments wholly behind the position are deleted.
     */
    Start start() throws IOException {
        List<Long> segments = list();
        long[] ack = readAck(segments);
        long pending = 0;
        for (long s : segments) {
            if (s < ack[0]) {
                Files.deleteIfExists(segment(s));
            } else {
                pending += Files.size(segment(s)) - (s == ack[0] ? ack[1] : 0);
            }
        }
        // Appending after a torn tail would hide new records behind garbage: always start a fresh segment.
        long write = segments.isEmpty() ? Math.max(0, ack[0]) : Math.max(ack[0], segments.get(segments.size() - 1) + 1);
        return new Start(ack[0], ack[1], pending, write);
    }

    /** The segment numbers present, oldest first; stray files are logged and left alone. */
    private List<Long> list() throws IOException {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + SEGMENT_SUFFIX)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                try {
                    out.add(Long.parseLong(name.substring(0, name.length() - SEGMENT_SUFFIX.length())));
                } catch (NumberFormatException e) {
                    log.warn(id + ": ignoring unexpected file " + p + " in the disk buffer");
                }
            }
        }
        Collections.sort(out);
        return out;
    }

    /**
     * The saved acknowledged position as {segment, offset}: the oldest segment's start when there is none, when it is
     * damaged (logged: some events may be delivered twice) or when it points before the oldest segment.
     */
    private long[] readAck(List<Long> segments) throws IOException {
        long[] ack = {segments.isEmpty() ? 0 : segments.get(0), 0};
        if (ackChannel.size() < ACK_BYTES) {
            return ack;
        }
        ByteBuffer b = ByteBuffer.allocate(ACK_BYTES);
        ackChannel.read(b, 0);
        b.flip();
        long seg = b.getLong();
        long pos = b.getLong();
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, 16);
        if ((int) crc.getValue() != b.getInt()) {
            log.warn(id + ": " + dir.resolve(ACK_FILE) + " is damaged; replaying the buffer from its oldest segment"
                    + " (some events may be delivered twice)");
            return ack;
        }
        if (segments.isEmpty() || seg >= segments.get(0)) {
            ack[0] = seg;
            ack[1] = segments.contains(seg) ? Math.min(pos, Files.size(segment(seg))) : 0;
        }
        return ack;
    }

    /** Saves the acknowledged position, synced with {@code force}. */
    void writeAck(long segment, long position, boolean force) throws IOException {
        ackBytes.clear();
        ackBytes.putLong(segment).putLong(position);
        CRC32C crc = new CRC32C();
        crc.update(ackBytes.array(), 0, 16);
        ackBytes.putInt((int) crc.getValue());
        ackBytes.flip();
        ackChannel.write(ackBytes, 0);
        if (force) {
            ackChannel.force(false);
        }
    }

    /** Syncs (with {@code force}) and closes {@code ack.pos}. */
    void closeAck(boolean force) throws IOException {
        if (force) {
            ackChannel.force(false);
        }
        ackChannel.close();
    }
}
