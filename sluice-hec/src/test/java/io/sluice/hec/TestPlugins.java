package io.sluice.hec;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import java.util.List;

/** Registers HEC's test-only plugin (consumer.Feed); the rest are core's {@code HarnessPlugins}. */
public final class TestPlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(Feed.SPEC);
    }
}
