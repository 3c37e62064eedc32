package io.sluice.core.pipeline;

import io.sluice.core.message.Batch;

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
}
