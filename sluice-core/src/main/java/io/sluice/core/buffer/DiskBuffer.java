package io.sluice.core.buffer;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * A producer's disk buffer: append-only segment files of records, each {@code [magic][length][crc32c][body]}.
 * A batch is written (and synced per the {@link Fsync} policy) before {@link #put} returns, so an upstream
 * acknowledgement means the events are on disk. Delivery moves an acknowledged position, saved in
 * {@code ack.pos}; segments wholly behind it are deleted. On start, what was not delivered is replayed.
 * A corrupt or torn record is skipped and counted, its file and offset logged; start-up reads only
 * positions, never the whole buffer, and never refuses to run.
 *
 * <p>A batch that cannot be written (disk full, an I/O error) is refused, never half-kept: what reached the
 * segment is cut off again, the batch is failed (its source is told, so it does not acknowledge: HEC answers
 * 503, Forward withholds its ack) and counted ({@code sluice_buffer_write_errors_total}, the messages as
 * failed), an ERROR is logged (rate-limited), and {@link #isReady()} is false until a write succeeds again: the
 * next batch, or a probe file of the refused size written at most once a second while readiness is asked.
 */
public final class DiskBuffer implements ProducerBuffer {
    /** Opens the buffer's files; tests put a failing channel in between. */
    interface Channels {
        FileChannel open(Path path, OpenOption... options) throws IOException;
    }

    /** When to fsync appended records. */
    public enum Fsync { ALWAYS, INTERVAL, NEVER }

    /** What a full buffer does with a new batch. */
    public enum WhenFull { BLOCK, DROP_NEWEST }

    static final int MAGIC = 0x534C4231; // "SLB1"
    static final int HEADER = 12;
    static final int MAX_RECORD = 64 << 20;
    private static final String SEGMENT_SUFFIX = ".seg";
    private static final String ACK_FILE = "ack.pos";
    private static final int READ_CHUNK = 256 * 1024;
    private static final String PROBE_FILE = "write.probe";
    private static final long PROBE_INTERVAL_NANOS = 1_000_000_000L;

    private final Path dir;
    private final long maxBytes;
    private final long segmentBytes;
    private final WhenFull whenFull;
    private final Fsync fsync;
    private final long fsyncIntervalNanos;
    private final BatchPool pool;
    private final PluginStats stats;
    private final Log log;
    private final String id;
    private volatile Channels channels;
    private final AtomicLong writeErrors;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition dataAvailable = lock.newCondition();
    private final Condition spaceAvailable = lock.newCondition();
    private final Condition syncWake = lock.newCondition();
    private final ThreadLocal<ByteBuffer> encodeBuffers = ThreadLocal.withInitial(() -> ByteBuffer.allocate(256 * 1024));
    private final ThreadLocal<RecordCodec> codecs = ThreadLocal.withInitial(RecordCodec::new);
    private final ThreadLocal<CRC32C> crcs = ThreadLocal.withInitial(CRC32C::new);
    private final RecordCodec readCodec = new RecordCodec();
    private final CRC32C readCrc = new CRC32C();
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();

    private FileChannel writeChannel;
    private long writeSegment;
    private long writePosition;
    private boolean dirty;
    private long lastSync = System.nanoTime();

    private FileChannel readChannel;
    private long readSegment;
    private long readPosition;
    private ByteBuffer readBuffer = ByteBuffer.allocate(READ_CHUNK);
    private ByteBuffer readView = ByteBuffer.wrap(readBuffer.array());
    private long readBufferStart = -1;
    private long readLimitSegment = -1;
    private long readLimit;

    private final FileChannel ackChannel;
    private final ByteBuffer ackBytes = ByteBuffer.allocate(20);
    private long ackSegment;
    private long ackPosition;
    private long pendingBytes;
    private long corrupted;
    private boolean closed;
    private final Thread syncer;
    /** A write failed and none succeeded since: not ready. */
    private volatile boolean writeFailing;
    private volatile long writeFailingSince;
    private volatile long lastProbe;
    private volatile int refusedBytes;

    /** What one polled batch covers in the files. */
    private static final class InFlight {
        final Batch batch;
        final long endSegment;
        final long endPosition;
        final long bytes;
        boolean done;

        InFlight(Batch batch, long endSegment, long endPosition, long bytes) {
            this.batch = batch;
            this.endSegment = endSegment;
            this.endPosition = endPosition;
            this.bytes = bytes;
        }
    }

    /** Opens (or creates) the buffer in {@code dir}, replaying what was not delivered. */
    public DiskBuffer(Path dir, long maxBytes, long segmentBytes, WhenFull whenFull, Fsync fsync, long fsyncIntervalMillis,
                      BatchPool pool, PluginStats stats, Log log, String id) throws IOException {
        this(dir, maxBytes, segmentBytes, whenFull, fsync, fsyncIntervalMillis, pool, stats, log, id, FileChannel::open);
    }

    DiskBuffer(Path dir, long maxBytes, long segmentBytes, WhenFull whenFull, Fsync fsync, long fsyncIntervalMillis,
               BatchPool pool, PluginStats stats, Log log, String id, Channels channels) throws IOException {
        this.channels = channels;
        this.writeErrors = stats.counter("sluice_buffer_write_errors_total",
                "Disk buffer writes that failed (disk full, I/O error); each refused its batch.");
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.segmentBytes = segmentBytes;
        this.whenFull = whenFull;
        this.fsync = fsync;
        this.fsyncIntervalNanos = TimeUnit.MILLISECONDS.toNanos(fsyncIntervalMillis);
        this.pool = pool;
        this.stats = stats;
        this.log = log;
        this.id = id;
        Files.createDirectories(dir);
        ackChannel = channels.open(dir.resolve(ACK_FILE), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        Files.deleteIfExists(dir.resolve(PROBE_FILE));
        List<Long> segments = segments();
        readAck(segments);
        for (long s : segments) {
            if (s < ackSegment) {
                Files.deleteIfExists(segment(s));
            } else {
                pendingBytes += Files.size(segment(s)) - (s == ackSegment ? ackPosition : 0);
            }
        }
        // Appending after a torn tail would hide new records behind garbage: always start a fresh segment.
        writeSegment = segments.isEmpty() ? Math.max(0, ackSegment) : Math.max(ackSegment, segments.get(segments.size() - 1) + 1);
        writeChannel = channels.open(segment(writeSegment), StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        readSegment = ackSegment;
        readPosition = ackPosition;
        if (pendingBytes > 0) {
            log.info(id + ": disk buffer " + dir + " holds " + pendingBytes + " bytes not yet delivered; replaying them");
        }
        stats.setBufferedBytes(pendingBytes);
        syncer = fsync == Fsync.INTERVAL ? startSyncer() : null;
    }

    private Thread startSyncer() {
        Thread t = new Thread(() -> {
            while (true) {
                FileChannel toSync;
                lock.lock();
                try {
                    if (closed) {
                        return;
                    }
                    syncWake.await(Math.max(1, fsyncIntervalNanos / 1_000_000), TimeUnit.MILLISECONDS);
                    if (!dirty || System.nanoTime() - lastSync < fsyncIntervalNanos) {
                        continue;
                    }
                    toSync = writeChannel;
                    dirty = false;
                    lastSync = System.nanoTime();
                } catch (InterruptedException e) {
                    return;
                } finally {
                    lock.unlock();
                }
                // Outside the lock: writing back a second of appends can take as long again, and appends must go on.
                try {
                    toSync.force(false);
                } catch (java.nio.channels.ClosedChannelException rotated) {
                    // The segment was rotated meanwhile, and rotation syncs before it closes.
                } catch (IOException e) {
                    writeErrors.incrementAndGet();
                    log.limited(Log.ERROR, id + ": fsync", id + ": fsync of disk buffer failed: " + e);
                }
            }
        }, "disk-buffer-sync-" + id);
        t.setDaemon(true);
        t.start();
        return t;
    }

    // The log lines of put and poll are built here, not in them: the string concatenation would lengthen their
    // bytecode past HotSpot's limit for inlining a hot method (325 bytes; this module compiles concatenation to
    // StringBuilder calls, see its pom).
    private void warnFull(int messages) {
        log.limited(Log.WARNING, id + ": disk buffer full", id + ": disk buffer full (" + pendingBytes + " of "
                + maxBytes + " bytes), dropping " + messages + " newest messages (counted)");
    }

    private void readFailed(IOException e) {
        log.limited(Log.ERROR, id + ": read", id + ": cannot read disk buffer " + dir + ": " + e);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A batch that cannot be written is refused here: it is {@linkplain Batch#fail() failed} (its source is
     * told) and true is returned, as for a batch dropped by {@code drop_newest}: the buffer disposed of it.
     */
    @Override
    public boolean put(Batch batch, long timeoutNanos) throws InterruptedException {
        ByteBuffer records = encode(batch);
        int n = records.remaining();
        IOException failure = null;
        lock.lockInterruptibly();
        try {
            long left = timeoutNanos;
            while (pendingBytes + n > maxBytes && pendingBytes > 0 && !closed) {
                if (whenFull == WhenFull.DROP_NEWEST) {
                    stats.addDiscarded(batch.size());
                    warnFull(batch.size());
                    batch.release();
                    return true;
                }
                if (timeoutNanos <= 0) {
                    spaceAvailable.await();
                } else {
                    if (left <= 0) {
                        return false;
                    }
                    left = spaceAvailable.awaitNanos(left);
                }
            }
            if (closed) {
                return false;
            }
            try {
                append(records);
                dataAvailable.signalAll();
            } catch (IOException e) {
                failure = e;
                cutBack();
            }
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            refuse(batch, n, failure);
            return true;
        }
        if (writeFailing) {
            writeRecovered();
        }
        batch.release();
        return true;
    }

    /** Swaps how files are opened from now on (tests: a channel that fails like a full disk). */
    void channels(Channels c) {
        this.channels = c;
    }

    /** After a failed append: cuts what reached the segment off again, so no torn record is left behind. */
    private void cutBack() {
        try {
            if (writeChannel.isOpen() && writeChannel.size() > writePosition) {
                writeChannel.truncate(writePosition);
            }
        } catch (IOException e) {
            // Reading stops at writePosition anyway, and the next append overwrites what is beyond it.
            log.limited(Log.WARNING, id + ": disk buffer cut back", id + ": cannot cut " + segment(writeSegment)
                    + " back to " + writePosition + " bytes: " + e);
        }
    }

    /** Refuses a batch that could not be written: counted, logged, failed back to its source; not ready meanwhile. */
    private void refuse(Batch batch, int bytes, IOException e) {
        writeErrors.incrementAndGet();
        stats.addFailed(batch.size());
        refusedBytes = bytes;
        if (!writeFailing) {
            writeFailingSince = System.nanoTime();
            lastProbe = System.nanoTime();
            writeFailing = true;
        }
        String m = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        boolean full = m.contains("no space") || m.contains("quota");
        log.limited(Log.ERROR, id + ": disk buffer write failed", id + ": cannot write disk buffer " + dir + ": " + e
                + (full ? " (disk full?)" : "") + "; refusing " + batch.size() + " messages (their source is not"
                + " acknowledged and sends them again), /ready reports not ready until a write succeeds");
        batch.fail();
    }

    private void writeRecovered() {
        long since = writeFailingSince;
        writeFailing = false;
        log.info(id + ": disk buffer " + dir + " can be written again after "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since) + " ms");
    }

    /**
     * False while the last write failed. Asked while failing (by {@code /ready}), it writes a probe file of the
     * refused batch's size at most once a second: when that works, it is ready again and senders come back.
     */
    @Override
    public boolean isReady() {
        if (!writeFailing) {
            return true;
        }
        long now = System.nanoTime();
        if (now - lastProbe < PROBE_INTERVAL_NANOS) {
            return false;
        }
        lastProbe = now;
        Path probe = dir.resolve(PROBE_FILE);
        try {
            try (FileChannel ch = channels.open(probe, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer zeros = ByteBuffer.allocate(Math.max(1, Math.min(refusedBytes, 1 << 20)));
                while (zeros.hasRemaining()) {
                    ch.write(zeros);
                }
            }
        } catch (IOException e) {
            return false;
        } finally {
            try {
                Files.deleteIfExists(probe);
            } catch (IOException ignored) {
                // Deleted on the next start.
            }
        }
        if (writeFailing) {
            writeRecovered();
        }
        return true;
    }

    private ByteBuffer encode(Batch batch) {
        ByteBuffer buf = encodeBuffers.get();
        buf.clear();
        RecordCodec codec = codecs.get();
        CRC32C crc = crcs.get();
        for (int i = 0; i < batch.size(); i++) {
            int need = HEADER + RecordCodec.maxSize(batch.get(i));
            if (buf.remaining() < need) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + need));
                buf.flip();
                bigger.put(buf);
                buf = bigger;
                encodeBuffers.set(buf);
            }
            int start = buf.position();
            buf.position(start + HEADER);
            codec.encode(batch.get(i), buf);
            int len = buf.position() - start - HEADER;
            crc.reset();
            crc.update(buf.array(), start + HEADER, len);
            buf.putInt(start, MAGIC).putInt(start + 4, len).putInt(start + 8, (int) crc.getValue());
        }
        buf.flip();
        return buf;
    }

    /**
     * Appends the records; the positions move only once they are written (and synced under {@code always}), so a
     * failure leaves the buffer as it was: the caller cuts off what reached the file.
     */
    private void append(ByteBuffer records) throws IOException {
        if (writePosition > 0 && writePosition + records.remaining() > segmentBytes) {
            // The next segment is opened before the full one is closed: a failure keeps writing where it was.
            FileChannel next = channels.open(segment(writeSegment + 1), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
            FileChannel full = writeChannel;
            try {
                if (full.size() > writePosition) {
                    full.truncate(writePosition); // the tail of an earlier failed write
                }
                if (fsync != Fsync.NEVER) {
                    full.force(false);
                }
            } catch (IOException e) {
                next.close();
                throw e;
            }
            writeChannel = next;
            writeSegment++;
            writePosition = 0;
            try {
                full.close();
            } catch (IOException e) {
                log.limited(Log.WARNING, id + ": disk buffer close", id + ": closing a full disk buffer segment: " + e);
            }
        }
        int n = records.remaining();
        while (records.hasRemaining()) {
            writeChannel.write(records, writePosition + (n - records.remaining()));
        }
        if (fsync == Fsync.ALWAYS) {
            writeChannel.force(false);
            lastSync = System.nanoTime();
        } else {
            dirty = true;
        }
        writePosition += n;
        pendingBytes += n;
        stats.setBufferedBytes(pendingBytes);
    }

    @Override
    public Batch poll(long timeout, TimeUnit unit) throws InterruptedException {
        long left = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (!hasData()) {
                if (closed || left <= 0) {
                    return null;
                }
                left = dataAvailable.awaitNanos(left);
            }
            Batch batch = pool.acquire();
            long bytes = 0;
            while (batch.isEmpty() && hasData()) {
                long passed;
                try {
                    passed = read(batch);
                } catch (IOException e) {
                    readFailed(e);
                    break;
                }
                if (batch.isEmpty() && passed > 0) {
                    // Only corrupt records were passed over: account for them as delivered and read on.
                    InFlight skipped = new InFlight(null, readSegment, readPosition, passed);
                    skipped.done = true;
                    inFlight.addLast(skipped);
                    advanceAck();
                } else {
                    bytes += passed;
                }
                if (passed == 0) {
                    break;
                }
            }
            if (batch.isEmpty()) {
                batch.release();
                return null;
            }
            inFlight.addLast(new InFlight(batch, readSegment, readPosition, bytes));
            return batch;
        } finally {
            lock.unlock();
        }
    }

    private boolean hasData() {
        return readSegment < writeSegment || readPosition < writePosition;
    }

    /** Reads records into the batch until it is full or the written data ends; returns the bytes passed. */
    private long read(Batch batch) throws IOException {
        long passed = 0;
        while (!batch.isFull() && hasData()) {
            long limit = readSegment == writeSegment ? writePosition : closedSegmentSize();
            if (readPosition >= limit) {
                if (readSegment < writeSegment) {
                    nextSegment();
                    continue;
                }
                break;
            }
            if (limit - readPosition < HEADER) {
                passed += corrupt(limit - readPosition, "torn record header at the end of the segment");
                readPosition = limit;
                continue;
            }
            ByteBuffer header = view(readPosition, HEADER);
            int magic = header.getInt();
            int len = header.getInt();
            int crc = header.getInt();
            if (magic != MAGIC || len <= 0 || len > MAX_RECORD) {
                passed += skipToNextRecord(limit, "bad record header");
                continue;
            }
            if (readPosition + HEADER + len > limit) {
                // A torn tail, or a damaged length field: look for a valid record further on before giving up.
                passed += skipToNextRecord(limit, "record of " + len + " bytes announced, "
                        + (limit - readPosition - HEADER) + " present");
                continue;
            }
            ByteBuffer body = view(readPosition + HEADER, len);
            readCrc.reset();
            readCrc.update(body.array(), body.arrayOffset() + body.position(), len);
            if ((int) readCrc.getValue() != crc) {
                passed += skipToNextRecord(limit, "checksum mismatch");
                continue;
            }
            try {
                readCodec.decode(body, batch.add());
            } catch (RuntimeException e) {
                batch.truncate(batch.size() - 1);
                passed += corrupt(HEADER + len, "record does not decode: " + e.getMessage());
                readPosition += HEADER + len;
                continue;
            }
            readPosition += HEADER + len;
            passed += HEADER + len;
        }
        return passed;
    }

    /** Scans byte by byte for the next valid record header, counting what is skipped as one corruption. */
    private long skipToNextRecord(long limit, String reason) throws IOException {
        long start = readPosition;
        long p = readPosition + 1;
        while (p + HEADER <= limit) {
            ByteBuffer h = view(p, HEADER);
            if (h.getInt() == MAGIC) {
                int len = h.getInt();
                int crc = h.getInt();
                if (len > 0 && len <= MAX_RECORD && p + HEADER + len <= limit) {
                    ByteBuffer body = view(p + HEADER, len);
                    readCrc.reset();
                    readCrc.update(body.array(), body.arrayOffset() + body.position(), len);
                    if ((int) readCrc.getValue() == crc) {
                        break;
                    }
                }
            }
            p++;
        }
        if (p + HEADER > limit) {
            p = limit;
        }
        readPosition = start;
        long skipped = corrupt(p - start, reason);
        readPosition = p;
        return skipped;
    }

    private long corrupt(long bytes, String reason) {
        corrupted++;
        stats.addCorruptRecord();
        log.limited(Log.WARNING, id + ": corrupt disk buffer record", id + ": skipping " + bytes + " corrupt bytes in "
                + segment(readSegment) + " at offset " + readPosition + ": " + reason + " (counted)");
        return bytes;
    }

    /**
     * The bytes {@code [pos, pos + len)} of the read segment, served from a chunk read ahead: a reused buffer
     * positioned over them (valid until the next call), so reading records allocates nothing.
     */
    private ByteBuffer view(long pos, int len) throws IOException {
        if (readBufferStart < 0 || pos < readBufferStart || pos + len > readBufferStart + readBuffer.limit()) {
            if (readBuffer.capacity() < len) {
                readBuffer = ByteBuffer.allocate(Math.max(len, READ_CHUNK));
                readView = ByteBuffer.wrap(readBuffer.array());
            }
            readBuffer.clear();
            int n = 0;
            while (readBuffer.hasRemaining()) {
                int r = readChannel().read(readBuffer, pos + n);
                if (r <= 0) {
                    break;
                }
                n += r;
            }
            readBuffer.flip();
            readBufferStart = pos;
            if (readBuffer.limit() < len) {
                throw new IOException("short read at " + pos + " of " + segment(readSegment));
            }
        }
        int at = (int) (pos - readBufferStart);
        readView.limit(at + len).position(at);
        return readView;
    }

    private FileChannel readChannel() throws IOException {
        if (readChannel == null) {
            readChannel = channels.open(segment(readSegment), StandardOpenOption.READ);
        }
        return readChannel;
    }

    private void nextSegment() throws IOException {
        if (readChannel != null) {
            readChannel.close();
            readChannel = null;
        }
        readBufferStart = -1;
        readSegment++;
        while (readSegment < writeSegment && !Files.exists(segment(readSegment))) {
            readSegment++;
        }
        readPosition = 0;
    }

    /** Size of the read segment once the writer has moved on: it no longer changes, so it is read once, not per record. */
    private long closedSegmentSize() throws IOException {
        if (readLimitSegment != readSegment) {
            Path p = segment(readSegment);
            readLimit = Files.exists(p) ? Files.size(p) : 0;
            readLimitSegment = readSegment;
        }
        return readLimit;
    }

    @Override
    public void delivered(Batch batch) {
        lock.lock();
        try {
            for (InFlight f : inFlight) {
                if (f.batch == batch && !f.done) {
                    f.done = true;
                    break;
                }
            }
            advanceAck();
        } finally {
            lock.unlock();
        }
    }

    /** Moves the acknowledged position over every delivered batch at the head, in file order. */
    private void advanceAck() {
        long oldSegment = ackSegment;
        boolean moved = false;
        while (!inFlight.isEmpty() && inFlight.peekFirst().done) {
            InFlight f = inFlight.pollFirst();
            ackSegment = f.endSegment;
            ackPosition = f.endPosition;
            pendingBytes -= f.bytes;
            moved = true;
        }
        if (!moved) {
            return;
        }
        stats.setBufferedBytes(pendingBytes);
        try {
            writeAck();
            for (long s = oldSegment; s < ackSegment; s++) {
                Files.deleteIfExists(segment(s));
            }
        } catch (IOException e) {
            writeErrors.incrementAndGet();
            log.limited(Log.ERROR, id + ": ack", id + ": cannot save disk buffer position: " + e);
        }
        spaceAvailable.signalAll();
    }

    private void writeAck() throws IOException {
        ackBytes.clear();
        ackBytes.putLong(ackSegment).putLong(ackPosition);
        CRC32C crc = new CRC32C();
        crc.update(ackBytes.array(), 0, 16);
        ackBytes.putInt((int) crc.getValue());
        ackBytes.flip();
        ackChannel.write(ackBytes, 0);
        if (fsync == Fsync.ALWAYS) {
            ackChannel.force(false);
        }
    }

    private void readAck(List<Long> segments) throws IOException {
        ackSegment = segments.isEmpty() ? 0 : segments.get(0);
        ackPosition = 0;
        if (ackChannel.size() < 20) {
            return;
        }
        ByteBuffer b = ByteBuffer.allocate(20);
        ackChannel.read(b, 0);
        b.flip();
        long seg = b.getLong();
        long pos = b.getLong();
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, 16);
        if ((int) crc.getValue() != b.getInt()) {
            log.warn(id + ": " + dir.resolve(ACK_FILE) + " is damaged; replaying the buffer from its oldest segment"
                    + " (some events may be delivered twice)");
            return;
        }
        if (segments.isEmpty() || seg >= segments.get(0)) {
            ackSegment = seg;
            ackPosition = segments.contains(seg) ? Math.min(pos, Files.size(segment(seg))) : 0;
        }
    }

    private List<Long> segments() throws IOException {
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

    private Path segment(long s) {
        return dir.resolve(String.format("%020d%s", s, SEGMENT_SUFFIX));
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            dataAvailable.signalAll();
            spaceAvailable.signalAll();
            syncWake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Syncs and closes the files; what was not delivered stays for the next start. */
    @Override
    public void shutdown() {
        close();
        lock.lock();
        try {
            if (fsync != Fsync.NEVER) {
                writeChannel.force(false);
                ackChannel.force(false);
            }
            writeChannel.close();
            ackChannel.close();
            if (readChannel != null) {
                readChannel.close();
            }
        } catch (IOException e) {
            log.error(id + ": closing disk buffer " + dir + ": " + e);
        } finally {
            lock.unlock();
        }
        if (syncer != null) {
            syncer.interrupt();
        }
    }

    @Override
    public long depth() {
        lock.lock();
        try {
            return pendingBytes;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long capacity() {
        return maxBytes;
    }

    @Override
    public String leftBehind() {
        return depth() + " bytes stay in the disk buffer for the next start";
    }

    /** Records skipped as corrupt or torn since start. */
    public long corrupted() {
        lock.lock();
        try {
            return corrupted;
        } finally {
            lock.unlock();
        }
    }
}
