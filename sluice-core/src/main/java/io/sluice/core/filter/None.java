package io.sluice.core.filter;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;

/** {@code filter.None}: drops every message. */
public final class None extends SimpleFilter {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "filter.None",
            "Blocks all messages.")
            .params(params())
            .factory(None::new);

    public None(PluginConfig config) {
        super(config);
    }

    @Override
    public Result modulate(Message m) {
        return drop(m);
    }
}
