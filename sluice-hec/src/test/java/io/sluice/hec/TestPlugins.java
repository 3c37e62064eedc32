package io.sluice.hec;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import java.util.List;

/** Registers the test-only plugins. */
public final class TestPlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(Capture.SPEC, Feed.SPEC);
    }
}
