package io.sluice.core.router;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Router;

/**
 * Base of the routers that send each message to exactly one producer of the stream ({@code router.RoundRobin},
 * {@code router.Random}): a batch is split by moving its messages into one part per chosen producer, never copied.
 * Subclasses only choose the producer.
 */
abstract class SpreadingRouter extends Router {
    SpreadingRouter(PluginConfig config) {
        super(config);
    }

    @Override
    public final void distribute(Batch batch) throws InterruptedException {
        int n = targetCount();
        if (n == 1) {
            send(0, batch);
            return;
        }
        Batch[] parts = new Batch[n];
        int first = first(batch.size(), n);
        for (int i = 0; i < batch.size(); i++) {
            int t = target(first, i, n);
            if (parts[t] == null) {
                parts[t] = derive(batch);
            }
            batch.moveTo(i, parts[t]);
        }
        batch.release();
        for (int t = 0; t < n; t++) {
            if (parts[t] != null) {
                send(t, parts[t]);
            }
        }
    }

    /** Called once per batch of {@code size} messages before {@link #target}: what it needs to know of the batch. */
    abstract int first(int size, int producers);

    /** The producer (0 to {@code producers-1}) of message {@code i} of the batch. */
    abstract int target(int first, int i, int producers);
}
