package io.sluice.core.filter;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator;
import java.util.List;

/**
 * {@code filter.Any}: an OR of filters. The message passes as soon as one of AnyFilters lets it pass (later
 * ones are not asked); it is dropped if none does, or if the list is empty.
 */
public final class Any extends SimpleFilter {
    public static final Param<List<PluginConfig>> ANY_FILTERS = Param.modulators("AnyFilters",
            "Filters checked in order; the first that accepts the message lets it pass.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "filter.Any",
            "Accepts a message if any of its filters accepts it.")
            .params(params(ANY_FILTERS))
            .factory(Any::new);

    private final Modulator[] filters;

    public Any(PluginConfig config) {
        super(config);
        this.filters = Modulator.of(config.get(ANY_FILTERS));
    }

    @Override
    public Result modulate(Message m) {
        for (Modulator f : filters) {
            if (f.modulate(m) == Result.CONTINUE) {
                return Result.CONTINUE;
            }
        }
        return drop(m);
    }
}
