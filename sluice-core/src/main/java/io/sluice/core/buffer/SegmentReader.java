package io.sluice.core.buffer;

import static io.sluice.core.buffer.RecordCodec.HEADER;

import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Reads a disk buffer's records back, from the acknowledged position on (a replay after a start) up to what the
 * writer has written. A record that is torn, damaged or does not decode is skipped, counted and logged with its
 * file and offset; reading resumes at the next valid record. Used under the buffer's lock, by one thread at a time.
 */
final class SegmentReader {
    private static final int READ_CHUNK = 256 * 1024;

    private final SegmentFiles files;
    private final PluginStats stats;
    private final Log log;
    private final String id;
    private final RecordCodec codec = new RecordCodec();
    private final CRC32C crc = new CRC32C();

    private FileChannel channel;
    private long segment;
    private long position;
    private ByteBuffer chunk = ByteBuffer.allocate(READ_CHUNK);
    private ByteBuffer view = ByteBuffer.wrap(chunk.array());
    private long chunkStart = -1;
    private long limitSegment = -1;
    private long limit;

    SegmentReader(SegmentFiles files, long segment, long position, PluginStats stats, Log log, String id) {
        this.files = files;
        this.segment = segment;
        this.position = position;
        this.stats = stats;
        this.log = log;
        this.id = id;
    }

    /** The segment the next record is read from. */
    long segment() {
        return segment;
    }

    /** The offset of the next record in {@link #segment()}. */
    long position() {
        return position;
    }

    /** Whether the writer, now at {@code writeSegment}/{@code writePosition}, has written beyond the read position. */
    boolean hasData(long writeSegment, long writePosition) {
        return segment < writeSegment || position < writePosition;
    }

    /** Reads records into the batch until it is full or the written data ends; returns the bytes passed. */
    long read(Batch batch, long writeSegment, long writePosition) throws IOException {
        long passed = 0;
        while (!batch.isFull() && hasData(writeSegment, writePosition)) {
            long end = segment == writeSegment ? writePosition : closedSegmentSize();
            if (position >= end) {
                if (segment < writeSegment) {
                    nextSegment(writeSegment);
                    continue;
                }
                break;
            }
            if (end - position < HEADER) {
                passed += corrupt(end - position, "torn record header at the end of the segment");
                position = end;
                continue;
            }
            ByteBuffer header = view(position, HEADER);
            int magic = header.getInt();
            int len = header.getInt();
            int sum = header.getInt();
            if (!RecordCodec.plausible(magic, len)) {
                passed += skipToNextRecord(end, "bad record header");
                continue;
            }
            if (position + HEADER + len > end) {
                // A torn tail, or a damaged length field: look for a valid record further on before giving up.
                passed += skipToNextRecord(end, "record of " + len + " bytes announced, "
                        + (end - position - HEADER) + " present");
                continue;
            }
            if (!checksumMatches(position + HEADER, len, sum)) {
                passed += skipToNextRecord(end, "checksum mismatch");
                continue;
            }
            try {
                codec.decode(view, batch.add());
            } catch (RuntimeException e) {
                batch.truncate(batch.size() - 1);
                passed += corrupt(HEADER + len, "record does not decode: " + e.getMessage());
                position += HEADER + len;
                continue;
            }
            position += HEADER + len;
            passed += HEADER + len;
        }
        return passed;
    }

    /** Whether the body at {@code pos} has checksum {@code sum}; leaves {@link #view} over the body. */
    private boolean checksumMatches(long pos, int len, int sum) throws IOException {
        ByteBuffer body = view(pos, len);
        crc.reset();
        crc.update(body.array(), body.arrayOffset() + body.position(), len);
        return (int) crc.getValue() == sum;
    }

    /** Scans byte by byte for the next valid record header, counting what is skipped as one corruption. */
    private long skipToNextRecord(long end, String reason) throws IOException {
        long start = position;
        long p = position + 1;
        while (p + HEADER <= end) {
            ByteBuffer h = view(p, HEADER);
            int magic = h.getInt();
            int len = h.getInt();
            int sum = h.getInt();
            if (RecordCodec.plausible(magic, len) && p + HEADER + len <= end && checksumMatches(p + HEADER, len, sum)) {
                break;
            }
            p++;
        }
        if (p + HEADER > end) {
            p = end;
        }
        long skipped = corrupt(p - start, reason);
        position = p;
        return skipped;
    }

    /** Counts and logs a corruption of {@code bytes} at the read position. */
    private long corrupt(long bytes, String reason) {
        stats.addCorruptRecord();
        log.limited(Log.WARNING, id + ": corrupt disk buffer record", id + ": skipping " + bytes + " corrupt bytes in "
                + files.segment(segment) + " at offset " + position + ": " + reason + " (counted)");
        return bytes;
    }

    /**
     * The bytes {@code [pos, pos + len)} of the read segment, served from a chunk read ahead: a reused buffer
     * positioned over them (valid until the next call), so reading records allocates nothing.
     */
    private ByteBuffer view(long pos, int len) throws IOException {
        if (chunkStart < 0 || pos < chunkStart || pos + len > chunkStart + chunk.limit()) {
            if (chunk.capacity() < len) {
                chunk = ByteBuffer.allocate(Math.max(len, READ_CHUNK));
                view = ByteBuffer.wrap(chunk.array());
            }
            chunk.clear();
            int n = 0;
            while (chunk.hasRemaining()) {
                int r = channel().read(chunk, pos + n);
                if (r <= 0) {
                    break;
                }
                n += r;
            }
            chunk.flip();
            chunkStart = pos;
            if (chunk.limit() < len) {
                throw new IOException("short read at " + pos + " of " + files.segment(segment));
            }
        }
        int at = (int) (pos - chunkStart);
        view.limit(at + len).position(at);
        return view;
    }

    private FileChannel channel() throws IOException {
        if (channel == null) {
            channel = files.open(files.segment(segment), StandardOpenOption.READ);
        }
        return channel;
    }

    private void nextSegment(long writeSegment) throws IOException {
        close();
        chunkStart = -1;
        segment++;
        while (segment < writeSegment && !Files.exists(files.segment(segment))) {
            segment++;
        }
        position = 0;
    }

    /** Size of the read segment once the writer has moved on: it no longer changes, so it is read once, not per record. */
    private long closedSegmentSize() throws IOException {
        if (limitSegment != segment) {
            Path p = files.segment(segment);
            limit = Files.exists(p) ? Files.size(p) : 0;
            limitSegment = segment;
        }
        return limit;
    }

    /** Closes the segment being read, if any. */
    void close() throws IOException {
        if (channel != null) {
            channel.close();
            channel = null;
        }
    }
}
