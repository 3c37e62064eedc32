package io.sluice.otlp.consumer;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import java.util.List;

/** Registers consumer.OTLP's test-only plugins. */
public final class ConsumerTestPlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(Capture.SPEC);
    }
}
