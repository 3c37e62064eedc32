package io.sluice.forward.consumer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The {@code chunk} ids consumer.Forward has recently accepted, shared by all connections, so that a chunk a
 * client sends again (its ack was lost: the connection broke, or the ack came too late) is acknowledged without
 * being delivered a second time.
 *
 * <p>A chunk id is <em>in flight</em> from the moment its frame starts decoding until every producer has taken its
 * events; then it is <em>accepted</em>. A copy that arrives while the first is in flight waits for it: it is acked
 * when the first copy is accepted, and dropped with it if the first copy never is (its client then sends it once
 * more). A copy of an accepted chunk is acked at once.
 *
 * <p><b>Bounds.</b> At most {@code capacity} accepted ids are remembered, each for at most {@code window}: the
 * oldest is forgotten first. A copy that comes back after its id was forgotten is delivered again (the protocol's
 * at-least-once), so the bound is a trade of memory for the time a resend is recognised: at 3,000 chunks/s
 * (3M events/s in chunks of 1,000) the default 65,536 ids cover about 20 s; at one chunk per event they cover
 * much less. The accepted ids live in flat arrays allocated once ({@value #MAX_ID_CHARS} bytes per id, about
 * 60 bytes with its time and index slots: about 4 MB for 65,536 ids), so remembering one allocates nothing. Ids
 * longer than {@value #MAX_ID_CHARS} characters or not ASCII (no client known to us sends such ids: Fluent Bit,
 * Fluentd, fluency and Sluice send 24 or 25 characters of base64) are not remembered: their copies are delivered
 * again. In-flight ids (one small map entry each) are bounded by what the pipeline holds: its bounded queues and
 * each connection's {@code ReadAhead} groups.
 *
 * <p>Thread-safe: one lock, taken twice per frame that carries a chunk id (claimed, then accepted).
 */
final class RecentChunks {
    /** Longest chunk id remembered, in characters (ASCII). */
    static final int MAX_ID_CHARS = 40;

    /** What a frame's chunk id turned out to be. */
    enum Claim {
        /** Not seen (or forgotten): the caller decodes and delivers the frame, then calls accepted or abandoned. */
        NEW,
        /** Already accepted: ack it at once, deliver nothing. */
        ACCEPTED,
        /** A first copy is in flight: deliver nothing; the waiter is called when the first copy is accepted. */
        IN_FLIGHT
    }

    /** Someone to tell that an in-flight chunk was accepted: a connection that received a copy of it. */
    interface Waiter {
        void acked(String chunk);
    }

    private final int capacity;
    private final long windowNanos;
    private final LongSupplier clock;

    // Accepted ids: a ring in acceptance order (oldest at head), and an open-addressing index into it.
    private final byte[] ids;
    private final byte[] lengths;
    private final long[] acceptedAt;
    private final int[] hashes;
    private int head;
    private int size;
    private final int[] index; // ring position + 1; 0 is empty
    private final int mask;

    /** In-flight ids → the connections waiting for them ({@link #NONE} while none waits). */
    private final HashMap<String, List<Waiter>> inFlight = new HashMap<>();
    private static final List<Waiter> NONE = List.of();

    RecentChunks(int capacity, long windowNanos, LongSupplier clock) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive");
        }
        this.capacity = capacity;
        this.windowNanos = windowNanos;
        this.clock = clock;
        this.ids = new byte[capacity * MAX_ID_CHARS];
        this.lengths = new byte[capacity];
        this.acceptedAt = new long[capacity];
        this.hashes = new int[capacity];
        int slots = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1; // power of two ≥ 2 × capacity
        this.index = new int[slots];
        this.mask = slots - 1;
    }

    /**
     * Looks a frame's chunk id up before its events are decoded. {@link Claim#NEW} registers it as in flight (the
     * caller must end that with {@link #accepted} or {@link #abandoned}); {@link Claim#IN_FLIGHT} registers
     * {@code waiter}.
     */
    synchronized Claim claim(String chunk, Waiter waiter) {
        if (!rememberable(chunk)) {
            return Claim.NEW;
        }
        List<Waiter> waiting = inFlight.get(chunk);
        if (waiting != null) {
            if (waiting == NONE) {
                waiting = new ArrayList<>(1);
                inFlight.put(chunk, waiting);
            }
            waiting.add(waiter);
            return Claim.IN_FLIGHT;
        }
        if (find(chunk, clock.getAsLong()) >= 0) {
            return Claim.ACCEPTED;
        }
        inFlight.put(chunk, NONE);
        return Claim.NEW;
    }

    /**
     * Every producer took the events of the first copy: remembers the id as accepted and returns the connections
     * that received copies meanwhile (they must ack it too).
     */
    synchronized List<Waiter> accepted(String chunk) {
        if (!rememberable(chunk)) {
            return List.of();
        }
        List<Waiter> waiting = inFlight.remove(chunk);
        // Not looked up first: a chunk is claimed NEW only when it is not accepted (or past the window), and the
        // in-flight entry keeps a second NEW claim out until now.
        add(chunk, clock.getAsLong());
        return waiting == null ? NONE : waiting;
    }

    /** The first copy was not delivered (bad frame, connection gone before publishing, shutdown): forgets it. */
    synchronized void abandoned(String chunk) {
        if (rememberable(chunk)) {
            inFlight.remove(chunk);
        }
    }

    /** Accepted ids remembered now (some may be past the window until the next insert pushes them out). */
    synchronized int size() {
        return size;
    }

    synchronized int inFlight() {
        return inFlight.size();
    }

    static boolean rememberable(String chunk) {
        int n = chunk.length();
        if (n == 0 || n > MAX_ID_CHARS) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (chunk.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    private static int hash(String chunk) {
        int h = 0x9747b28c;
        for (int i = 0; i < chunk.length(); i++) {
            h = (h ^ chunk.charAt(i)) * 0x01000193;
        }
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        return h;
    }

    /** Ring position of an accepted id still within the window, or -1. */
    private int find(String chunk, long now) {
        int h = hash(chunk);
        for (int slot = h & mask; ; slot = (slot + 1) & mask) {
            int e = index[slot];
            if (e == 0) {
                return -1;
            }
            int p = e - 1;
            // An expired copy may still sit in the ring before a newer one of the same id: keep looking.
            if (hashes[p] == h && now - acceptedAt[p] <= windowNanos && equalsAt(p, chunk)) {
                return p;
            }
        }
    }

    private boolean equalsAt(int p, String chunk) {
        int n = chunk.length();
        if (lengths[p] != n) {
            return false;
        }
        int base = p * MAX_ID_CHARS;
        for (int i = 0; i < n; i++) {
            if (ids[base + i] != (byte) chunk.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private void add(String chunk, long now) {
        // Forget what is past the window, and the oldest when full.
        while (size > 0 && (size == capacity || now - acceptedAt[head] > windowNanos)) {
            removeOldest();
        }
        int p = (head + size) % capacity;
        int n = chunk.length();
        int base = p * MAX_ID_CHARS;
        for (int i = 0; i < n; i++) {
            ids[base + i] = (byte) chunk.charAt(i);
        }
        lengths[p] = (byte) n;
        acceptedAt[p] = now;
        int h = hash(chunk);
        hashes[p] = h;
        int slot = h & mask;
        while (index[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        index[slot] = p + 1;
        size++;
    }

    private void removeOldest() {
        int p = head;
        int slot = hashes[p] & mask;
        while (index[slot] != p + 1) {
            slot = (slot + 1) & mask;
        }
        // Backward-shift deletion keeps every probe chain unbroken without tombstones.
        int hole = slot;
        for (int j = (hole + 1) & mask; index[j] != 0; j = (j + 1) & mask) {
            int home = hashes[index[j] - 1] & mask;
            boolean stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
            if (!stays) {
                index[hole] = index[j];
                hole = j;
            }
        }
        index[hole] = 0;
        head = (head + 1) % capacity;
        size--;
    }
}
