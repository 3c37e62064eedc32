package io.sluice.forward.client;

import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.codec.KeyCache;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The chunks of a {@link ForwardEmitter}, under one lock: open (one per tag, filling), ready (sealed, to be sent),
 * in flight (sent, awaiting their ack), all within one budget of bytes; and what its {@link ChunkSender} asks of
 * them: the next chunks to write, a failure (everything unacknowledged goes back to the head of the queue, in
 * order, after a backoff), an ack, a write done.
 */
final class ChunkBuffer {
    private static final int POOL_MAX = 16;

    /** A chunk: events for one tag, then its id and send time once sent. */
    static final class Chunk {
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

    private final ForwardConfig cfg;
    private final long capacity;
    private final int chunkBytes;
    private final long flushNanos;
    private final int ackWindow;
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
    private ChunkSender sender;

    ChunkBuffer(ForwardConfig cfg, long capacity, int chunkBytes, long flushNanos, int ackWindow) {
        this.cfg = cfg;
        this.capacity = capacity;
        this.chunkBytes = chunkBytes;
        this.flushNanos = flushNanos;
        this.ackWindow = ackWindow;
    }

    /** The sender that drains this buffer (set once, before it starts). */
    void sender(ChunkSender sender) {
        this.sender = sender;
    }

    /** Encodes the event into its tag's open chunk; false (counted) when the buffer is full or closing. */
    boolean append(String tag, long seconds, int nanos, Map<String, ?> record, byte[] raw) {
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

    /** Seals every open chunk, so the sender sends it now. */
    void flush() {
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

    /** Bytes of events accepted but not yet delivered (acknowledged, in ack mode). */
    long usedBytes() {
        lock.lock();
        try {
            return usedBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Chunks sent and awaiting their ack. */
    int inFlightChunks() {
        lock.lock();
        try {
            return inFlight.size();
        } finally {
            lock.unlock();
        }
    }

    /** Events refused because the buffer was full. */
    long rejected() {
        return rejected.get();
    }

    /** Chunks put back in the queue to be sent again. */
    long resent() {
        return resent.get();
    }

    /**
     * Refuses new events, seals every chunk, waits until {@code deadline} for all to be delivered, then tells the
     * sender to stop (ending a retry backoff early).
     *
     * @return true if every accepted event was delivered
     */
    boolean closeAndDrain(long deadline) {
        lock.lock();
        try {
            closing = true;
            sealAll();
            boolean drained = awaitDrained(deadline);
            stopped = true;
            work.signalAll();
            released.signalAll(); // ends a retry backoff early
            return drained;
        } finally {
            lock.unlock();
        }
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

    private void release(Chunk c) {
        usedBytes -= c.batch.sizeBytes();
        recycle(c.batch);
        released.signalAll();
    }

    /** Called by the ack reader. */
    void onAck(String id) {
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

    // ---- what the sender thread asks, under the lock ----

    /** Sender thread: waits for work; returns chunks to write now (possibly none), or null to stop. */
    List<Chunk> nextToSend() {
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
                    c.id = sender.ids.next();
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

    /** Sender thread: writing {@code unsent} (the first of them) failed. */
    void failed(List<Chunk> unsent) {
        lock.lock();
        try {
            failAndRequeue(unsent);
        } finally {
            lock.unlock();
        }
    }

    /** Sender thread, without acks: {@code c} is in the socket. */
    void written(Chunk c) {
        lock.lock();
        try {
            release(c);
        } finally {
            lock.unlock();
        }
    }

    /** Ack reader: the connection {@code k} broke. */
    void connectionLost(Connection k) {
        lock.lock();
        try {
            if (sender.isCurrent(k) && !stopped) {
                connectionFailed = true; // the sender reconnects and resends
                work.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: drops the connection, puts unacknowledged and unsent chunks back at the
     * head of the queue in their original order, and backs off before the next attempt.
     */
    private List<Chunk> failAndRequeue(List<Chunk> unsent) {
        sender.closeConnection();
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
        backoff(sender.nextBackoffNanos());
        return List.of();
    }

    private void backoff(long delay) {
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
}
