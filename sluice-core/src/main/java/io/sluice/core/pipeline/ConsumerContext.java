package io.sluice.core.pipeline;

import io.sluice.core.message.Batch;
import io.sluice.core.message.MemoryBudget;

/**
 * What the pipeline offers a running consumer. Every method is safe to call from several threads at once
 * (a network consumer publishes from each connection's thread).
 */
public interface ConsumerContext {
    /** An empty batch to fill. */
    Batch newBatch();

    /**
     * Hands a batch to the pipeline: messages whose stream is unset get the consumer's Streams, the consumer's
     * modulators run, and the batch is routed. Blocks while the queues behind are full. The batch is the
     * pipeline's afterwards.
     */
    void publish(Batch batch) throws InterruptedException;

    /** False once shutdown began: the consumer should return. */
    boolean isActive();

    /** The pipeline's log. */
    Log log();

    /** This consumer's counters: network consumers report connections here. */
    PluginStats stats();

    /**
     * The process's memory budget: reserve before reading, inflating or decoding; attach the reservation to the
     * published batches ({@link Batch#holdMemory}) so it returns when they are delivered. A batch published
     * without a reservation is charged its messages' size by {@link #publish}, which waits for room.
     */
    MemoryBudget memory();

    /**
     * Counts a refusal on {@code /metrics} and logs it as a rate-limited WARN naming the peer.
     *
     * @param reason why it was refused
     * @param peer who sent it (an address), for the log line
     * @param detail what was refused, for the log line
     */
    default void reject(Rejection reason, Object peer, String detail) {
        stats().addRejected(reason);
        log().limited(Log.WARNING, stats().id() + ": rejected " + reason.label(),
                stats().id() + ": rejected (" + reason.label() + ") from " + peer + ": " + detail);
    }
}
