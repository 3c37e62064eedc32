package io.sluice.core.router;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Router;

/** Sends each message to one producer of the stream, taking them in turn. */
public final class RoundRobin extends Router {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.ROUTER, "router.RoundRobin",
            "Sends each message to exactly one producer of the stream, in turn, so load spreads evenly.")
            .factory(RoundRobin::new);

    private int next;

    public RoundRobin(PluginConfig config) {
        super(config);
    }

    @Override
    public void distribute(Batch batch) throws InterruptedException {
        int n = targetCount();
        if (n == 1) {
            send(0, batch);
            return;
        }
        Batch[] parts = new Batch[n];
        int start;
        synchronized (this) {
            start = next;
            next = (next + batch.size()) % n;
        }
        for (int i = 0; i < batch.size(); i++) {
            int t = (start + i) % n;
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
}
