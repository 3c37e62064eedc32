package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator;
import java.nio.charset.StandardCharsets;

/** Wraps the payload (or a metadata field, with ApplyTo) in a prefix and a postfix. */
public final class Envelope implements Modulator {
    public static final Param<String> PREFIX = Param.string("Prefix", "", "Text put before the content; \\n \\r \\t are expanded.");
    public static final Param<String> POSTFIX = Param.string("Postfix", "\n", "Text put after the content; \\n \\r \\t are expanded.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Envelope",
            "Adds a prefix and a postfix to the payload.")
            .params(PluginSpec.APPLY_TO, PREFIX, POSTFIX)
            .factory(Envelope::new);

    private final byte[] prefix;
    private final byte[] postfix;
    private final Target target;

    public Envelope(PluginConfig config) {
        this.prefix = Escapes.expand(config.get(PREFIX)).getBytes(StandardCharsets.UTF_8);
        this.postfix = Escapes.expand(config.get(POSTFIX)).getBytes(StandardCharsets.UTF_8);
        this.target = new Target(config.get(PluginSpec.APPLY_TO));
    }

    @Override
    public Result modulate(Message m) {
        if (target.isPayload()) {
            if (prefix.length > 0) {
                m.prepend(prefix, 0, prefix.length);
            }
            if (postfix.length > 0) {
                m.append(postfix, 0, postfix.length);
            }
        } else {
            target.wrap(m, prefix, postfix);
        }
        return Result.CONTINUE;
    }
}
