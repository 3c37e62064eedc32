package io.sluice.core.pipeline;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Message;
import java.util.List;

/**
 * A formatter (changes a message) or filter (decides whether it goes on), as in Gollum. Each modulator
 * routine gets its own instance, so an instance may keep scratch buffers without locking; state that must
 * be shared across routines goes through {@link io.sluice.core.config.PluginConfig#shared}.
 */
@FunctionalInterface
public interface Modulator {
    /** What happens to a message after a modulator saw it. */
    enum Result {
        /** Pass it on to the next modulator. */
        CONTINUE,
        /** Route it to the plugin's FallbackStream ({@code _DROPPED_} unless configured). */
        DROP,
        /** Remove it for good; counted as discarded. */
        DISCARD
    }

    /** Changes or judges one message. Runs on a hot path: must not allocate per message. */
    Result modulate(Message message);

    /** Builds the modulators {@code configs} declare, in order. */
    static Modulator[] of(List<PluginConfig> configs) {
        return configs.stream().map(c -> (Modulator) c.spec().create(c)).toArray(Modulator[]::new);
    }
}
