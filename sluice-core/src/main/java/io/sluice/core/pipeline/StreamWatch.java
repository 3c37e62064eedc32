package io.sluice.core.pipeline;

import io.sluice.core.message.Batch;

/**
 * Sees every batch as it reaches its stream, before the stream's router and its modulators run: what
 * {@code sluice test} asserts on when a test names a stream instead of a producer. A pipeline has at most one;
 * without one, routing pays a single volatile read per batch.
 */
@FunctionalInterface
public interface StreamWatch {
    /**
     * Called on the publishing thread (several at once in a pipeline with several inputs); the batch is only lent:
     * copy what you keep.
     */
    void reached(int stream, Batch batch);

    /** Installs {@code watch} on {@code pipeline} (null removes it); call before {@link Pipeline#start()}. */
    static void install(Pipeline pipeline, StreamWatch watch) {
        pipeline.dispatcher().watch(watch);
    }
}
