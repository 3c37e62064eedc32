package io.sluice.core.pipeline;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginSpec;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * A running consumer or producer as operators see it: config, counters, queue and readiness.
 *
 * @param queue the producer's buffer (queue depth in messages, or disk bytes), or null for a consumer
 */
public record PluginInfo(PluginConfig config, PluginStats stats, io.sluice.core.buffer.ProducerBuffer queue,
                         BooleanSupplier readiness) {

    public String id() {
        return config.id();
    }

    public String type() {
        return config.type();
    }

    /** "consumer" or "producer". */
    public String kind() {
        return config.spec().kind().name().toLowerCase(java.util.Locale.ROOT);
    }

    public List<String> streams() {
        return config.get(PluginSpec.STREAMS);
    }

    /** Modulator type names, in order. */
    public List<String> modulators() {
        return config.get(PluginSpec.MODULATORS).stream().map(PluginConfig::type).collect(Collectors.toList());
    }

    public boolean ready() {
        return readiness.getAsBoolean();
    }
}
