package io.sluice.core.router;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Router;

/** Sends every message to every producer of the stream: N producers get N copies. The default router. */
public final class Broadcast extends Router {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.ROUTER, "router.Broadcast",
            "Sends every message to every producer reading the stream. Used for streams without a router.")
            .factory(Broadcast::new);

    public Broadcast(PluginConfig config) {
        super(config);
    }

    @Override
    public void distribute(Batch batch) throws InterruptedException {
        int n = targetCount();
        // Copies first: once the original is queued, a producer may already be changing it.
        for (int i = 1; i < n; i++) {
            send(i, copy(batch));
        }
        send(0, batch);
    }
}
