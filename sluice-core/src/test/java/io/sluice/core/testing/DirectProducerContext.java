package io.sluice.core.testing;

import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.ProducerContext;

/**
 * A producer's context without a pipeline, for starting one producer by hand and calling its deliver directly: a
 * log of the test's choosing and real counters ({@link ProducerContext#stats()}) the test can read, as /metrics
 * would.
 */
public final class DirectProducerContext {
    private DirectProducerContext() {
    }

    /** A context for producer {@code id} of {@code type} that logs into {@code log}; no message was generated. */
    public static ProducerContext of(String id, String type, Log log) {
        return ProducerContext.of(log, new PluginStats(id, type), () -> 0);
    }
}
