package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;

/** {@code format.Override} (named so as not to hide {@link java.lang.Override}): sets Target (the payload by default) to a fixed Value. */
public final class OverrideValue extends SimpleFormatter {
    public static final Param<String> VALUE = Param.string("Value", "", "The value to set.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Override",
            "Sets a given value to a metadata field or the payload.")
            .params(params(VALUE))
            .factory(OverrideValue::new);

    private final byte[] value;

    public OverrideValue(PluginConfig config) {
        super(config);
        this.value = config.get(VALUE).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    protected Result apply(Message m) {
        target.write(m, value, 0, value.length, Metadata.STRING);
        return Result.CONTINUE;
    }
}
