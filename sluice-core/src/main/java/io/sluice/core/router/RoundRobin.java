package io.sluice.core.router;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;

/** Sends each message to one producer of the stream, taking them in turn. */
public final class RoundRobin extends SpreadingRouter {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.ROUTER, "router.RoundRobin",
            "Sends each message to exactly one producer of the stream, in turn, so load spreads evenly.")
            .factory(RoundRobin::new);

    private int next;

    public RoundRobin(PluginConfig config) {
        super(config);
    }

    @Override
    synchronized int first(int size, int producers) {
        int start = next;
        next = (next + size) % producers;
        return start;
    }

    @Override
    int target(int first, int i, int producers) {
        return (first + i) % producers;
    }
}
