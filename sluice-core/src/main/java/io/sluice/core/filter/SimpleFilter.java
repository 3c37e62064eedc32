package io.sluice.core.filter;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Modulator;
import java.util.ArrayList;
import java.util.List;

/**
 * What every filter shares. A filtered message is {@link Modulator.Result#DROP}ped: the pipeline sends it to the
 * filter's FilteredStream when set (as in Gollum), else to the plugin's FallbackStream ({@code _DROPPED_} unless
 * configured), and counts it.
 */
abstract class SimpleFilter implements Modulator {
    static final Param<String> FILTERED_STREAM = Param.string("FilteredStream", "",
            "Stream filtered messages go to; empty means the plugin's FallbackStream.");

    private final int filteredStream;

    SimpleFilter(PluginConfig config) {
        String name = config.get(FILTERED_STREAM);
        this.filteredStream = name.isEmpty() ? -1 : Streams.id(name);
    }

    /** Drops a message, to FilteredStream when one is set (the pipeline keeps a stream a filter chose). */
    protected final Result drop(Message m) {
        if (filteredStream >= 0) {
            m.setStream(filteredStream);
        }
        return Result.DROP;
    }

    /** The common parameters followed by a filter's own. */
    static Param<?>[] params(Param<?>... own) {
        List<Param<?>> all = new ArrayList<>(List.of(own));
        all.add(FILTERED_STREAM);
        return all.toArray(new Param<?>[0]);
    }
}
