package io.sluice.core.format;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;

/** {@code format.Delete}: clears the payload (Target empty) or removes the metadata field Target. */
public final class Delete extends SimpleFormatter {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Delete",
            "Erases the payload, or deletes the metadata field named by Target.")
            .params(params())
            .factory(Delete::new);

    public Delete(PluginConfig config) {
        super(config);
    }

    @Override
    protected Result apply(Message m) {
        target.clear(m);
        return Result.CONTINUE;
    }
}
