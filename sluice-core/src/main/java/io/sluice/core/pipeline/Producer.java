package io.sluice.core.pipeline;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;

/**
 * Delivers batches outside. The pipeline calls {@link #deliver} from one worker thread at a time unless
 * {@link #concurrent()} says the producer copes with several; after {@code deliver} returns, the batch goes
 * back to its pool, so a producer that keeps data must copy it (into its own reused buffers).
 */
public abstract class Producer {
    protected final PluginConfig config;

    protected Producer(PluginConfig config) {
        this.config = config;
    }

    /** Called once before the first batch. */
    public void start(ProducerContext ctx) throws Exception {
    }

    /** Delivers every message of the batch, or throws; a thrown batch goes to the fallback stream. */
    public abstract void deliver(Batch batch) throws Exception;

    /** Flushes what is buffered and releases resources; called once after the last batch. */
    public void close() throws Exception {
    }

    /** Whether the producer can deliver now (its server is reachable); {@code /ready} reports it. */
    public boolean isReady() {
        return true;
    }

    /** Whether {@link #deliver} may run on several threads at once. */
    public boolean concurrent() {
        return false;
    }

    /**
     * How many worker threads a {@link #concurrent()} producer wants at least (a network producer: one per
     * connection it may keep busy); the runner starts {@code max(1, ModulatorRoutines, workers())}.
     */
    public int workers() {
        return 1;
    }

    public PluginConfig config() {
        return config;
    }
}
