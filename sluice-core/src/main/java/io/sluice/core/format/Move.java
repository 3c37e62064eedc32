package io.sluice.core.format;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;

/**
 * {@code format.Move}: moves data from Source to Target; the target is created or overwritten, the source is
 * removed (the payload is cleared). A missing source field moves as an empty string, as in Gollum. Moving a
 * field to another field is a rename: the value is not copied. Source equal to Target changes nothing.
 */
public final class Move extends SimpleFormatter {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Move",
            "Moves data from Source to Target; a payload source is cleared, a metadata source removed.")
            .params(params())
            .factory(Move::new);

    private final boolean same;

    public Move(PluginConfig config) {
        super(config);
        this.same = source.name().equals(target.name());
    }

    @Override
    protected Result apply(Message m) {
        if (same) {
            return Result.CONTINUE;
        }
        int i = source.index(m);
        if (i >= 0 && !target.isPayload()) {
            m.metadata().rename(i, target.prepared());
            return Result.CONTINUE;
        }
        source.read(m);
        target.write(m, source.buf, source.off, source.len, target.isPayload() ? Metadata.STRING : source.kind);
        source.clear(m);
        return Result.CONTINUE;
    }
}
