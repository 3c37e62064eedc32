package io.sluice.core.router;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import java.util.concurrent.ThreadLocalRandom;

/** Sends each message to one producer of the stream chosen at random. */
public final class Random extends SpreadingRouter {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.ROUTER, "router.Random",
            "Sends each message to one producer of the stream chosen at random.")
            .factory(Random::new);

    public Random(PluginConfig config) {
        super(config);
    }

    @Override
    int first(int size, int producers) {
        return 0;
    }

    @Override
    int target(int first, int i, int producers) {
        return ThreadLocalRandom.current().nextInt(producers);
    }
}
