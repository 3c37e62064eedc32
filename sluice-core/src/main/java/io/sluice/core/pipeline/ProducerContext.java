package io.sluice.core.pipeline;

import java.util.function.LongSupplier;

/** What the pipeline offers a producer. */
public interface ProducerContext {
    /** {@link System#nanoTime()} when the first message of this run was generated, or 0 if none yet. */
    long firstGeneratedNanos();

    /** The pipeline's log. */
    Log log();

    /** This producer's counters: report retries, connections and buffered bytes here. */
    PluginStats stats();

    /**
     * A context logging into {@code log}, counting into {@code stats} (null: none), and whose first generated
     * message's time {@code firstGenerated} tells: the pipeline's, and a producer's outside a pipeline.
     */
    static ProducerContext of(Log log, PluginStats stats, LongSupplier firstGenerated) {
        return new ProducerContext() {
            @Override
            public long firstGeneratedNanos() {
                return firstGenerated.getAsLong();
            }

            @Override
            public Log log() {
                return log;
            }

            @Override
            public PluginStats stats() {
                return stats;
            }
        };
    }
}
