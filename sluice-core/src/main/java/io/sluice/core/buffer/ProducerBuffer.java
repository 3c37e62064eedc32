package io.sluice.core.buffer;

import io.sluice.core.message.Batch;
import java.util.concurrent.TimeUnit;

/**
 * Where batches wait for a producer: in memory (a bounded queue) or on disk (segment files that survive a
 * crash). {@link #put} takes a batch from upstream; {@link #poll} hands one to a producer worker;
 * {@link #delivered} tells the buffer the producer is done with it.
 */
public interface ProducerBuffer {
    /**
     * Takes a batch, waiting up to {@code timeoutNanos} for room (0 or less waits without end).
     * On success the buffer owns the batch (a disk buffer writes and releases it at once: the upstream
     * acknowledgement then means "on disk"). A disk buffer that cannot write refuses the batch itself: it
     * fails it ({@link Batch#fail()}: its source is told, never acknowledged) and returns true.
     *
     * @return false when it timed out or the buffer is closed; the caller still owns the batch
     */
    boolean put(Batch batch, long timeoutNanos) throws InterruptedException;

    /** The next batch to deliver, or null after the timeout or once closed and drained. */
    Batch poll(long timeout, TimeUnit unit) throws InterruptedException;

    /** The producer delivered (or dead-lettered) a batch from {@link #poll}; the caller then releases it. */
    void delivered(Batch batch);

    /** Stops accepting batches; {@link #poll} drains what is left. */
    void close();

    /**
     * Releases what the buffer holds once its readers are gone: a disk buffer syncs and closes its files (what was
     * not delivered stays for the next start). Closes the buffer first if it is not closed.
     */
    default void shutdown() {
        close();
    }

    /** What {@link #depth()} means once a stop could not drain the buffer, for the warning that says so. */
    default String leftBehind() {
        return depth() + " messages were not delivered";
    }

    /** Messages (memory) or bytes (disk) waiting now. */
    long depth();

    /** The bound of {@link #depth()}. */
    long capacity();

    /** Whether the buffer can take batches now (a disk buffer that cannot write cannot); {@code /ready} reports it. */
    default boolean isReady() {
        return true;
    }
}
