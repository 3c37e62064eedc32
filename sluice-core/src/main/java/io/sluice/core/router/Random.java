package io.sluice.core.router;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Router;
import java.util.concurrent.ThreadLocalRandom;

/** Sends each message to one producer of the stream chosen at random. */
public final class Random extends Router {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.ROUTER, "router.Random",
            "Sends each message to one producer of the stream chosen at random.")
            .factory(Random::new);

    public Random(PluginConfig config) {
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
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        for (int i = 0; i < batch.size(); i++) {
            int t = rnd.nextInt(n);
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
