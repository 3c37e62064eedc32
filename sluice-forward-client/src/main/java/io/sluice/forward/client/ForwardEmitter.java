package io.sluice.forward.client;

import io.sluice.forward.codec.ChunkIdGenerator;
import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.codec.ForwardEncoder;
import io.sluice.forward.codec.ForwardMode;
import io.sluice.forward.codec.Gzip;
import io.sluice.forward.codec.KeyCache;
import io.sluice.forward.codec.MsgPackWriter;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An asynchronous Fluent Forward emitter: {@code emit} encodes the event into a per-tag chunk in
 * memory and returns at once; a background thread sends chunks when they reach
 * {@link Builder#chunkBytes} or are older than {@link Builder#flushInterval}.
 *
 * <p><b>Bounded.</b> All chunks not yet delivered (open, queued, in flight) share a budget of
 * {@link Builder#bufferCapacity} bytes. When an event does not fit, {@code emit} returns
 * {@code false} and the event is not kept: the caller decides whether to drop, wait or spill. Memory
 * never grows without end.
 *
 * <p><b>Acks.</b> With {@link ForwardConfig#requireAck()} each chunk carries a chunk id, and up to
 * {@link Builder#ackWindow} chunks are in flight at once (pipelined, not stop-and-wait). A chunk's
 * bytes are released only when its ack arrives. If an ack is late beyond
 * {@link ForwardConfig#ackTimeout()}, or the connection fails, the emitter reconnects and resends
 * every unacknowledged chunk in order with its original chunk id (so the server may drop
 * duplicates): at-least-once delivery. Without acks a chunk is released once written to the socket.
 *
 * <p>{@link #close()} flushes everything and waits, up to {@link Builder#closeTimeout}, until all is
 * delivered. Thread-safe: emit from any thread.
 */
public final class ForwardEmitter implements Closeable {
    private static final int POOL_MAX = 16;

    private final ForwardConfig cfg;
    private final ForwardMode mode;
    private final long capacity;
    private final int chunkBytes;
    private final long flushNanos;
    private final int ackWindow;
    private final Duration closeTimeout;
    private final KeyCache keys = new KeyCache();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Condition released = lock.newCondition();
    private final Map<String, Chunk> open = new HashMap<>();
    private final ArrayDeque<Chunk> ready = new ArrayDeque<>();
    private final LinkedHashMap<String, Chunk> inFlight = new LinkedHashMap<>();
    private final ArrayDeque<EventBatch> pool = new ArrayDeque<>();
    private long usedBytes;
    private boolean closing;
    private boolean stopped;
    private boolean connectionFailed;

    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong resent = new AtomicLong();
    private final Thread sender;
    private final Sender senderState;

    private ForwardEmitter(Builder b) {
        cfg = b.cfg;
        mode = b.mode;
        capacity = b.bufferCapacity;
        chunkBytes = b.chunkBytes;
        flushNanos = b.flushInterval.toNanos();
        ackWindow = b.ackWindow;
        closeTimeout = b.closeTimeout;
        senderState = new Sender();
        sender = new Thread(senderState, b.threadName);
        sender.setDaemon(true);
        sender.start();
    }

    /**
     * @param cfg where and how to send
     * @return a builder for an emitter using {@code cfg}
     */
    public static Builder builder(ForwardConfig cfg) {
        return new Builder(cfg);
    }

    /** A chunk: events for one tag, then its id and send time once sent. */
    private static final class Chunk {
        final String tag;
        final EventBatch batch;
        final long openedNanos;
        String id;
        long sentNanos;

        Chunk(String tag, EventBatch batch, long openedNanos) {
            this.tag = tag;
            this.batch = batch;
            this.openedNanos = openedNanos;
        }
    }

    /**
     * Buffers an event timed now.
     *
     * @param tag    the tag
     * @param record the record
     * @return true if buffered; false if the buffer is full or the emitter is closed
     */
    public boolean emit(String tag, Map<String, ?> record) {
        return emit(tag, Instant.now(), record);
    }

    /**
     * Buffers an event.
     *
     * @param tag    the tag
     * @param time   event time
     * @param record the record
     * @return true if buffered; false if the buffer is full or the emitter is closed
     */
    public boolean emit(String tag, Instant time, Map<String, ?> record) {
        return append(tag, time.getEpochSecond(), time.getNano(), record, null);
    }

    /**
     * Buffers an event.
     *
     * @param tag        the tag
     * @param epochNanos event time in nanoseconds since the epoch
     * @param record     the record
     * @return true if buffered; false if the buffer is full or the emitter is closed
     */
    public boolean emit(String tag, long epochNanos, Map<String, ?> record) {
        return append(tag, Math.floorDiv(epochNanos, 1_000_000_000L),
                (int) Math.floorMod(epochNanos, 1_000_000_000L), record, null);
    }

    /**
     * Buffers an event whose record is already msgpack (one map), copied as is.
     *
     * @param tag        the tag
     * @param epochNanos event time in nanoseconds since the epoch
     * @param record     msgpack bytes of the record
     * @return true if buffered; false if the buffer is full or the emitter is closed
     */
    public boolean emitRaw(String tag, long epochNanos, byte[] record) {
        return append(tag, Math.floorDiv(epochNanos, 1_000_000_000L),
                (int) Math.floorMod(epochNanos, 1_000_000_000L), null, Objects.requireNonNull(record));
    }

    private boolean append(String tag, long seconds, int nanos, Map<String, ?> record, byte[] raw) {
        lock.lock();
        try {
            if (closing) {
                return false;
            }
            Chunk c = open.get(tag);
            if (c == null) {
                c = new Chunk(tag, takeBatch(), System.nanoTime());
                open.put(tag, c);
            }
            if (!encode(c, seconds, nanos, record, raw)) {
                rejected.incrementAndGet();
                return false;
            }
            if (c.batch.sizeBytes() >= chunkBytes) {
                seal(c);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Encodes into the chunk, then undoes it if it broke the budget (size is known only after). */
    private boolean encode(Chunk c, long seconds, int nanos, Map<String, ?> record, byte[] raw) {
        int size = c.batch.sizeBytes();
        int count = c.batch.count();
        boolean ok = false;
        try {
            if (raw != null) {
                c.batch.addRaw(seconds, nanos, raw, 0, raw.length);
            } else {
                c.batch.add(seconds, nanos, record);
            }
            long added = c.batch.sizeBytes() - size;
            ok = usedBytes + added <= capacity;
            if (ok) {
                usedBytes += added;
            }
            return ok;
        } finally {
            if (!ok) {
                c.batch.truncate(size, count);
                if (c.batch.isEmpty()) {
                    open.remove(c.tag);
                    recycle(c.batch);
                }
            }
        }
    }

    private EventBatch takeBatch() {
        EventBatch b = pool.poll();
        return b != null ? b : new EventBatch(cfg.timeFormat(), keys, Math.min(chunkBytes + 1024, 64 * 1024));
    }

    private void recycle(EventBatch b) {
        // Keep a few buffers of working size; let outsized ones (one huge event) be collected.
        if (pool.size() < POOL_MAX && b.capacity() <= 2 * chunkBytes + 64 * 1024) {
            b.clear();
            pool.add(b);
        }
    }

    private void seal(Chunk c) {
        open.remove(c.tag);
        ready.add(c);
        work.signal();
    }

    /** Asks the sender to send all open chunks now, without waiting for it. */
    public void flush() {
        lock.lock();
        try {
            sealAll();
        } finally {
            lock.unlock();
        }
    }

    private void sealAll() {
        for (Chunk c : List.copyOf(open.values())) {
            seal(c);
        }
    }

    /** @return bytes of events accepted but not yet delivered (acknowledged, in ack mode) */
    public long bufferedBytes() {
        lock.lock();
        try {
            return usedBytes;
        } finally {
            lock.unlock();
        }
    }

    /** @return chunks sent and awaiting their ack */
    public int inFlightChunks() {
        lock.lock();
        try {
            return inFlight.size();
        } finally {
            lock.unlock();
        }
    }

    /** @return events refused because the buffer was full */
    public long rejectedEvents() {
        return rejected.get();
    }

    /** @return chunks put back in the queue to be sent again after a failure or a missing ack */
    public long resentChunks() {
        return resent.get();
    }

    /**
     * Flushes, waits up to the configured close timeout for everything to be delivered, then stops.
     * Events not delivered by then are dropped.
     */
    @Override
    public void close() {
        close(closeTimeout);
    }

    /**
     * Flushes, waits up to {@code timeout} for everything to be delivered, then stops.
     *
     * @param timeout how long to wait for delivery
     * @return true if every accepted event was delivered
     */
    public boolean close(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean drained;
        lock.lock();
        try {
            closing = true;
            sealAll();
            drained = awaitDrained(deadline);
            stopped = true;
            work.signalAll();
            released.signalAll(); // ends a retry backoff early
        } finally {
            lock.unlock();
        }
        senderState.closeConnection();
        joinSender(deadline);
        return drained;
    }

    private boolean awaitDrained(long deadline) {
        while (usedBytes > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                released.awaitNanos(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private void joinSender(long deadline) {
        try {
            sender.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()) + 1000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void release(Chunk c) {
        usedBytes -= c.batch.sizeBytes();
        recycle(c.batch);
        released.signalAll();
    }

    /** Called by the ack reader. */
    private void onAck(String id) {
        lock.lock();
        try {
            Chunk c = inFlight.remove(id);
            if (c != null) {
                release(c);
                work.signal(); // the window has room again
            }
        } finally {
            lock.unlock();
        }
    }

    /** The background thread: owns the connection, frames and writes chunks, watches ack timeouts. */
    private final class Sender implements Runnable {
        private final ForwardEncoder encoder = new ForwardEncoder(cfg.timeFormat(), new Gzip());
        private final MsgPackWriter frame = new MsgPackWriter(64 * 1024);
        private final ChunkIdGenerator ids = new ChunkIdGenerator();
        private volatile Connection conn;
        private int failures;

        @Override
        public void run() {
            try {
                while (true) {
                    List<Chunk> batch = nextToSend();
                    if (batch == null) {
                        return;
                    }
                    sendAll(batch);
                }
            } finally {
                closeConnection();
                encoder.close();
            }
        }

        /** Waits for work; returns chunks to write now (possibly none), or null to stop. */
        private List<Chunk> nextToSend() {
            lock.lock();
            try {
                while (true) {
                    if (stopped) {
                        return null;
                    }
                    long now = System.nanoTime();
                    sealExpired(now);
                    if (connectionFailed || ackOverdue(now)) {
                        connectionFailed = false;
                        return failAndRequeue(null);
                    }
                    List<Chunk> out = takeReady(now);
                    if (!out.isEmpty()) {
                        return out;
                    }
                    awaitWork();
                }
            } finally {
                lock.unlock();
            }
        }

        private void sealExpired(long now) {
            for (Iterator<Chunk> it = open.values().iterator(); it.hasNext(); ) {
                Chunk c = it.next();
                if (now - c.openedNanos >= flushNanos) {
                    it.remove();
                    ready.add(c);
                }
            }
        }

        private boolean ackOverdue(long now) {
            if (inFlight.isEmpty()) {
                return false;
            }
            Chunk oldest = inFlight.values().iterator().next();
            return now - oldest.sentNanos > cfg.ackTimeout().toNanos();
        }

        /** Moves chunks to send out of the queue; in ack mode registers them as in flight first. */
        private List<Chunk> takeReady(long now) {
            List<Chunk> out = new ArrayList<>();
            while (!ready.isEmpty() && (!cfg.requireAck() || inFlight.size() < ackWindow)) {
                Chunk c = ready.poll();
                if (cfg.requireAck()) {
                    if (c.id == null) {
                        c.id = ids.next();
                    }
                    c.sentNanos = now;
                    inFlight.put(c.id, c); // before writing: the ack may beat the write's return
                }
                out.add(c);
            }
            return out;
        }

        private void awaitWork() {
            // Wake at least this often to seal aged chunks and notice overdue acks.
            long tick = Math.max(TimeUnit.MILLISECONDS.toNanos(1),
                    Math.min(flushNanos, cfg.ackTimeout().toNanos()) / 4);
            try {
                work.awaitNanos(tick);
            } catch (InterruptedException e) {
                stopped = true;
            }
        }

        private void sendAll(List<Chunk> chunks) {
            for (int i = 0; i < chunks.size(); i++) {
                Chunk c = chunks.get(i);
                try {
                    write(c);
                } catch (IOException e) {
                    lock.lock();
                    try {
                        failAndRequeue(chunks.subList(i, chunks.size()));
                    } finally {
                        lock.unlock();
                    }
                    return;
                }
                if (!cfg.requireAck()) {
                    lock.lock();
                    try {
                        release(c);
                    } finally {
                        lock.unlock();
                    }
                }
            }
            if (!chunks.isEmpty()) {
                failures = 0; // a whole batch went out: the connection works again
            }
        }

        private void write(Chunk c) throws IOException {
            Connection k = connection();
            frame.clear();
            encoder.frame(mode, frame, c.tag, c.batch, c.id);
            k.write(frame.array(), 0, frame.size());
        }

        private Connection connection() throws IOException {
            Connection k = conn;
            if (k == null || !k.isOpen()) {
                k = Connection.open(cfg, true); // whole chunks: nothing to coalesce
                conn = k;
                if (cfg.requireAck()) {
                    startAckReader(k);
                }
            }
            return k;
        }

        private void startAckReader(Connection k) {
            Thread t = new Thread(() -> readAcks(k), sender.getName() + "-acks");
            t.setDaemon(true);
            t.start();
        }

        private void readAcks(Connection k) {
            try {
                while (true) {
                    String id = k.readAck(0);
                    if (id != null) {
                        onAck(id);
                    }
                }
            } catch (IOException e) {
                lock.lock();
                try {
                    if (k == conn && !stopped) {
                        connectionFailed = true; // the sender reconnects and resends
                        work.signal();
                    }
                } finally {
                    lock.unlock();
                }
            }
        }

        /**
         * Under the lock: drops the connection, puts unacknowledged and unsent chunks back at the
         * head of the queue in their original order, and backs off before the next attempt.
         */
        private List<Chunk> failAndRequeue(List<Chunk> unsent) {
            closeConnection();
            List<Chunk> back = new ArrayList<>(inFlight.values());
            inFlight.clear();
            if (unsent != null) {
                for (Chunk c : unsent) {
                    if (!back.contains(c)) {
                        back.add(c);
                    }
                }
            }
            for (int i = back.size() - 1; i >= 0; i--) {
                ready.addFirst(back.get(i));
            }
            resent.addAndGet(back.size());
            backoff();
            return List.of();
        }

        private void backoff() {
            long delay = Math.min(cfg.retryBackoff().toNanos() << Math.min(failures++, 20),
                    cfg.maxRetryBackoff().toNanos());
            long deadline = System.nanoTime() + delay;
            try {
                // Waiting on the condition releases the lock, so emit() is not blocked meanwhile.
                while (!stopped && deadline - System.nanoTime() > 0) {
                    released.awaitNanos(deadline - System.nanoTime());
                }
            } catch (InterruptedException e) {
                stopped = true;
            }
        }

        void closeConnection() {
            Connection k = conn;
            conn = null;
            if (k != null) {
                k.close();
            }
        }
    }

    /** Builds a {@link ForwardEmitter}. */
    public static final class Builder {
        private final ForwardConfig cfg;
        private ForwardMode mode = ForwardMode.PACKED_FORWARD;
        private long bufferCapacity = 64L << 20;
        private int chunkBytes = 1 << 20;
        private Duration flushInterval = Duration.ofMillis(500);
        private int ackWindow = 8;
        private Duration closeTimeout = Duration.ofSeconds(10);
        private String threadName = "forward-emitter";

        private Builder(ForwardConfig cfg) {
            this.cfg = Objects.requireNonNull(cfg);
        }

        /**
         * @param mode FORWARD, PACKED_FORWARD (default) or COMPRESSED_PACKED_FORWARD
         * @return this
         */
        public Builder mode(ForwardMode mode) {
            if (mode == ForwardMode.MESSAGE) {
                throw new IllegalArgumentException("the emitter sends chunks; use ForwardClient for Message mode");
            }
            this.mode = Objects.requireNonNull(mode);
            return this;
        }

        /**
         * @param bytes most bytes of events held before {@code emit} returns false (default 64 MiB)
         * @return this
         */
        public Builder bufferCapacity(long bytes) {
            this.bufferCapacity = bytes;
            return this;
        }

        /**
         * @param bytes a chunk is sent once its events reach this size (default 1 MiB)
         * @return this
         */
        public Builder chunkBytes(int bytes) {
            this.chunkBytes = bytes;
            return this;
        }

        /**
         * @param interval a chunk is sent at the latest this long after its first event (default 500 ms)
         * @return this
         */
        public Builder flushInterval(Duration interval) {
            this.flushInterval = interval;
            return this;
        }

        /**
         * @param chunks most chunks awaiting acks at once, in ack mode (default 8)
         * @return this
         */
        public Builder ackWindow(int chunks) {
            if (chunks < 1) {
                throw new IllegalArgumentException("ackWindow must be >= 1");
            }
            this.ackWindow = chunks;
            return this;
        }

        /**
         * @param timeout how long {@link ForwardEmitter#close()} waits for delivery (default 10 s)
         * @return this
         */
        public Builder closeTimeout(Duration timeout) {
            this.closeTimeout = timeout;
            return this;
        }

        /**
         * @param name name of the background thread
         * @return this
         */
        public Builder threadName(String name) {
            this.threadName = name;
            return this;
        }

        /** @return a started emitter; it connects when it first has something to send */
        public ForwardEmitter build() {
            return new ForwardEmitter(this);
        }
    }
}
