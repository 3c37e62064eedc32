package io.sluice.hec.producer;

import io.sluice.core.message.Batch;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code FlushIntervalMs}: pipeline batches delivered on the producer's worker threads gather in an open
 * {@link Group} and are sent together. A batch's thread waits in {@link #join} until its group closes, which
 * happens when
 * <ul>
 *   <li>the group's events reach the size of a request (estimated before encoding),</li>
 *   <li>the interval has passed since the group opened (a lone event waits at most that long), or</li>
 *   <li>every delivering thread is inside the producer: no thread is left to bring another batch, so waiting
 *       longer would only add latency (under load groups close at once, as full as the threads allow).</li>
 * </ul>
 * The thread that closes a group sends it for all of its batches; the others wait in {@link #awaitDone} for the
 * outcome. So a batch, and the acknowledgement upstream, completes only after the requests carrying its events
 * were accepted, as without gathering. Each batch holds its worker thread while it waits, so at most as many
 * batches as there are delivering threads share a group.
 */
final class Accumulator {
    /** Batches sent together; the fields are guarded by the accumulator's lock until {@link #done}. */
    static final class Group {
        private Batch[] batches;
        private Exception[] outcome;
        private int count;
        private long bytes;
        private final long deadline;
        private boolean closed;
        private boolean done;
        private Thread sender;

        private Group(int capacity, long deadline) {
            this.batches = new Batch[capacity];
            this.outcome = new Exception[capacity];
            this.deadline = deadline;
        }

        /** Number of batches in the group. */
        int size() {
            return count;
        }

        /** Batch {@code k} of the group, in the order they joined. */
        Batch batch(int k) {
            return batches[k];
        }

        /** Sets what batch {@code k}'s delivery throws (null: delivered); only the sender calls this. */
        void setOutcome(int k, Exception e) {
            outcome[k] = e;
        }

        /** What {@code b}'s delivery throws, or null. */
        Exception outcomeOf(Batch b) {
            for (int k = 0; k < count; k++) {
                if (batches[k] == b) {
                    return outcome[k];
                }
            }
            throw new IllegalStateException("batch not in this group");
        }

        /** Whether the calling thread closed the group and so must send it. */
        boolean mustSend() {
            return sender == Thread.currentThread();
        }

        private void add(Batch b, long size) {
            if (count == batches.length) {
                batches = Arrays.copyOf(batches, count * 2);
                outcome = Arrays.copyOf(outcome, count * 2);
            }
            batches[count++] = b;
            bytes += size;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final long intervalNanos;
    private final long fullBytes;
    private final int threads;
    private Group open;
    /** Threads whose batch is in a group not yet done: they cannot bring another batch meanwhile. */
    private int inside;

    /**
     * @param intervalMillis longest wait of a group's first batch
     * @param fullBytes estimated event bytes that fill a request
     * @param threads how many threads deliver (the pipeline's workers for this producer)
     */
    Accumulator(long intervalMillis, long fullBytes, int threads) {
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.fullBytes = fullBytes;
        this.threads = threads;
    }

    /**
     * Adds the batch (of about {@code bytes} encoded bytes) to the open group and waits until that group closes.
     * If this thread closed it ({@link Group#mustSend()}), the caller sends it and must call {@link #done}, whatever
     * happens; otherwise it calls {@link #awaitDone}. Interrupted while the group is open, the thread closes it and
     * sends at once (a stopping pipeline interrupts its workers).
     */
    Group join(Batch batch, long bytes) {
        lock.lock();
        try {
            inside++;
            Group g = open;
            if (g == null) {
                g = new Group(threads, System.nanoTime() + intervalNanos);
                open = g;
            }
            g.add(batch, bytes);
            while (!g.closed) {
                long left = g.deadline - System.nanoTime();
                if (g.bytes >= fullBytes || inside >= threads || left <= 0) {
                    close(g);
                    break;
                }
                try {
                    changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    if (!g.closed) {
                        close(g);
                    }
                    break;
                }
            }
            return g;
        } finally {
            lock.unlock();
        }
    }

    private void close(Group g) {
        g.closed = true;
        g.sender = Thread.currentThread();
        open = null;
        changed.signalAll();
    }

    /**
     * The sender finished group {@code g}: every outcome is set; wakes its other threads. They count as free from
     * now on, so that the first of them back with a new batch waits for the others rather than finding every
     * thread "inside" and leaving alone.
     */
    void done(Group g) {
        lock.lock();
        try {
            g.done = true;
            inside -= g.count;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until group {@code g} was sent. Not interruptible: the sender is still using this thread's batch, which
     * must not go back to its pool before; an interrupt is kept for the caller.
     */
    void awaitDone(Group g) {
        lock.lock();
        try {
            while (!g.done) {
                changed.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }
}
