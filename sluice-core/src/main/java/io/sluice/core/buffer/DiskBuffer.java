package io.sluice.core.buffer;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A producer's disk buffer: append-only segment files of records, each {@code [magic][length][crc32c][body]}.
 * A batch is written (and synced per the {@link Fsync} policy) before {@link #put} returns, so an upstream
 * acknowledgement means the events are on disk. Delivery moves an acknowledged position, saved in
 * {@code ack.pos}; segments wholly behind it are deleted. On start, what was not delivered is replayed.
 * A corrupt or torn record is skipped and counted, its file and offset logged; start-up reads only
 * positions, never the whole buffer, and never refuses to run.
 *
 * <p>A batch that cannot be written (disk full, an I/O error) is refused, never half-kept: what reached the
 * segment is cut off again and the batch is failed, so its source does not acknowledge it (HEC answers 503,
 * Forward withholds its ack); see {@link WriteHealth} for the counting, logging and readiness that follow.
 *
 * <p>This class appends and hands out batches under one lock; the files ({@link SegmentFiles}), the records
 * ({@link RecordCodec}), the replay ({@link SegmentReader}) and when data reaches the disk ({@link SyncPolicy})
 * are the classes beside it.
 */
public final class DiskBuffer implements ProducerBuffer {
    /** When to fsync appended records. */
    public enum Fsync { ALWAYS, INTERVAL, NEVER }

    /** What a full buffer does with a new batch. */
    public enum WhenFull { BLOCK, DROP_NEWEST }

    private final long maxBytes;
    private final long segmentBytes;
    private final WhenFull whenFull;
    private final PluginStats stats;
    private final Log log;
    private final String id;
    private final BatchPool pool;
    private final SegmentFiles files;
    private final ThreadLocal<RecordCodec> codecs = ThreadLocal.withInitial(RecordCodec::new);
    private final SegmentReader reader;
    private final SyncPolicy sync;
    private final WriteHealth health;
    private final AtomicLong writeErrors;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition dataAvailable = lock.newCondition();
    private final Condition spaceAvailable = lock.newCondition();
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();

    private FileChannel writeChannel;
    private long writeSegment;
    private long writePosition;
    private long ackSegment;
    private long ackPosition;
    private long pendingBytes;
    private boolean closed;

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
               BatchPool pool, PluginStats stats, Log log, String id, SegmentFiles.Channels channels) throws IOException {
        this.writeErrors = stats.counter("sluice_buffer_write_errors_total",
                "Disk buffer writes that failed (disk full, I/O error); each refused its batch.");
        this.maxBytes = maxBytes;
        this.segmentBytes = segmentBytes;
        this.whenFull = whenFull;
        this.pool = pool;
        this.stats = stats;
        this.log = log;
        this.id = id;
        this.files = new SegmentFiles(dir, channels, log, id);
        this.health = new WriteHealth(files, writeErrors, stats, log, id);
        this.sync = new SyncPolicy(fsync, fsyncIntervalMillis, lock, writeErrors, log, id);
        SegmentFiles.Start start = files.start();
        ackSegment = start.ackSegment();
        ackPosition = start.ackPosition();
        pendingBytes = start.pendingBytes();
        writeSegment = start.writeSegment();
        writeChannel = files.create(writeSegment);
        reader = new SegmentReader(files, ackSegment, ackPosition, stats, log, id);
        if (pendingBytes > 0) {
            log.info(id + ": disk buffer " + dir + " holds " + pendingBytes + " bytes not yet delivered; replaying them");
        }
        stats.setBufferedBytes(pendingBytes);
        sync.start(() -> closed ? null : writeChannel);
    }

    // The log lines of put and poll are built here, not in them: the string concatenation would lengthen their
    // bytecode past HotSpot's limit for inlining a hot method (325 bytes; this module compiles concatenation to
    // StringBuilder calls, see its pom).
    private void warnFull(int messages) {
        log.limited(Log.WARNING, id + ": disk buffer full", id + ": disk buffer full (" + pendingBytes + " of "
                + maxBytes + " bytes), dropping " + messages + " newest messages (counted)");
    }

    private void readFailed(IOException e) {
        log.limited(Log.ERROR, id + ": read", id + ": cannot read disk buffer " + files.dir() + ": " + e);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A batch that cannot be written is refused here: it is {@linkplain Batch#fail() failed} (its source is
     * told) and true is returned, as for a batch dropped by {@code drop_newest}: the buffer disposed of it.
     */
    @Override
    public boolean put(Batch batch, long timeoutNanos) throws InterruptedException {
        ByteBuffer records = codecs.get().frame(batch);
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
            health.refuse(batch, n, failure);
            return true;
        }
        health.written();
        batch.release();
        return true;
    }

    /** Swaps how files are opened from now on (tests: a channel that fails like a full disk). */
    void channels(SegmentFiles.Channels c) {
        files.channels(c);
    }

    /** After a failed append: cuts what reached the segment off again, so no torn record is left behind. */
    private void cutBack() {
        try {
            if (writeChannel.isOpen() && writeChannel.size() > writePosition) {
                writeChannel.truncate(writePosition);
            }
        } catch (IOException e) {
            // Reading stops at writePosition anyway, and the next append overwrites what is beyond it.
            log.limited(Log.WARNING, id + ": disk buffer cut back", id + ": cannot cut " + files.segment(writeSegment)
                    + " back to " + writePosition + " bytes: " + e);
        }
    }

    /** {@inheritDoc} See {@link WriteHealth#isReady()}. */
    @Override
    public boolean isReady() {
        return health.isReady();
    }

    /**
     * Appends the records; the positions move only once they are written (and synced under {@code always}), so a
     * failure leaves the buffer as it was: the caller cuts off what reached the file.
     */
    private void append(ByteBuffer records) throws IOException {
        if (writePosition > 0 && writePosition + records.remaining() > segmentBytes) {
            // The next segment is opened before the full one is closed: a failure keeps writing where it was.
            FileChannel next = files.create(writeSegment + 1);
            FileChannel full = writeChannel;
            try {
                if (full.size() > writePosition) {
                    full.truncate(writePosition); // the tail of an earlier failed write
                }
                if (sync.syncsOnClose()) {
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
        sync.appended(writeChannel);
        writePosition += n;
        pendingBytes += n;
        stats.setBufferedBytes(pendingBytes);
    }

    @Override
    public Batch poll(long timeout, TimeUnit unit) throws InterruptedException {
        long left = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (!reader.hasData(writeSegment, writePosition)) {
                if (closed || left <= 0) {
                    return null;
                }
                left = dataAvailable.awaitNanos(left);
            }
            Batch batch = pool.acquire();
            long bytes = 0;
            while (batch.isEmpty() && reader.hasData(writeSegment, writePosition)) {
                long passed;
                try {
                    passed = reader.read(batch, writeSegment, writePosition);
                } catch (IOException e) {
                    readFailed(e);
                    break;
                }
                if (batch.isEmpty() && passed > 0) {
                    // Only corrupt records were passed over: account for them as delivered and read on.
                    InFlight skipped = new InFlight(null, reader.segment(), reader.position(), passed);
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
            inFlight.addLast(new InFlight(batch, reader.segment(), reader.position(), bytes));
            return batch;
        } finally {
            lock.unlock();
        }
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
            files.writeAck(ackSegment, ackPosition, sync.syncsEachWrite());
            for (long s = oldSegment; s < ackSegment; s++) {
                Files.deleteIfExists(files.segment(s));
            }
        } catch (IOException e) {
            writeErrors.incrementAndGet();
            log.limited(Log.ERROR, id + ": ack", id + ": cannot save disk buffer position: " + e);
        }
        spaceAvailable.signalAll();
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            dataAvailable.signalAll();
            spaceAvailable.signalAll();
            sync.wake();
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
            if (sync.syncsOnClose()) {
                writeChannel.force(false);
            }
            files.closeAck(sync.syncsOnClose());
            writeChannel.close();
            reader.close();
        } catch (IOException e) {
            log.error(id + ": closing disk buffer " + files.dir() + ": " + e);
        } finally {
            lock.unlock();
        }
        sync.stop();
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
}
