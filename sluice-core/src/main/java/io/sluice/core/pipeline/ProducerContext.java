package io.sluice.core.pipeline;

/** What the pipeline offers a producer. */
public interface ProducerContext {
    /** {@link System#nanoTime()} when the first message of this run was generated, or 0 if none yet. */
    long firstGeneratedNanos();

    /** The pipeline's log. */
    Log log();

    /** This producer's counters: report retries, connections and buffered bytes here. */
    PluginStats stats();
}
