package io.sluice.forward;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import java.util.List;

/** Registers consumer.Forward and producer.Forward (found through {@link java.util.ServiceLoader}). */
public final class ForwardPlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(io.sluice.forward.consumer.ForwardConsumer.SPEC, io.sluice.forward.producer.ForwardProducer.SPEC);
    }
}
