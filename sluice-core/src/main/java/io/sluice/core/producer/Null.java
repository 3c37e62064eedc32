package io.sluice.core.producer;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Producer;

/** Drops every message (they are still counted as delivered). */
public final class Null extends Producer {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "producer.Null",
            "Drops every message; useful to test consumers and modulators.")
            .factory(Null::new);

    public Null(PluginConfig config) {
        super(config);
    }

    @Override
    public void deliver(Batch batch) {
        // Nothing: dropping is the point.
    }

    @Override
    public boolean concurrent() {
        return true;
    }
}
