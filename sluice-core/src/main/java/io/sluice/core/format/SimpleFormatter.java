package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator;
import java.util.ArrayList;
import java.util.List;

/**
 * Gollum's {@code core.SimpleFormatter}: every formatter reads from {@code Source} and writes to {@code Target}
 * (each the payload when empty, else a metadata field); {@code ApplyTo} sets both at once when neither is
 * set; {@code SkipIfEmpty} leaves messages alone whose source is empty or missing.
 */
abstract class SimpleFormatter implements Modulator {
    static final Param<String> SOURCE = Param.string("Source", "",
            "Where the data is read from: \"\" is the payload, anything else a metadata field.");
    static final Param<String> TARGET = Param.string("Target", "",
            "Where the result is stored: \"\" is the payload, anything else a metadata field.");
    static final Param<Boolean> SKIP_IF_EMPTY = Param.bool("SkipIfEmpty", false,
            "When true, messages whose source is empty (or, for metadata, not set) are left unchanged.");

    protected final Slot source;
    protected final Slot target;
    private final boolean skipIfEmpty;

    SimpleFormatter(PluginConfig config) {
        String src = config.get(SOURCE);
        String dst = config.get(TARGET);
        String applyTo = config.get(PluginSpec.APPLY_TO);
        if (!applyTo.isEmpty() && src.isEmpty() && dst.isEmpty()) {
            src = applyTo;
            dst = applyTo;
        }
        this.source = new Slot(src);
        this.target = new Slot(dst);
        this.skipIfEmpty = config.get(SKIP_IF_EMPTY);
    }

    /** The common parameters followed by a formatter's own, for {@code PluginSpec.Builder.params}. */
    static Param<?>[] params(Param<?>... own) {
        List<Param<?>> all = new ArrayList<>(List.of(SOURCE, TARGET, PluginSpec.APPLY_TO, SKIP_IF_EMPTY));
        all.addAll(List.of(own));
        return all.toArray(new Param<?>[0]);
    }

    @Override
    public final Result modulate(Message m) {
        // A pending payload is never empty: no need to write it just to find that out.
        if (skipIfEmpty && !(source.isPayload() && m.pending() != null) && (!source.read(m) || source.len == 0)) {
            return Result.CONTINUE;
        }
        return apply(m);
    }

    /** Formats one message; runs on the hot path, so it must not allocate. */
    protected abstract Result apply(Message m);
}
