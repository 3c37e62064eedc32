package io.sluice.core.pipeline;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginSpec;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/** A running consumer or producer as operators see it: config, counters, queue and readiness. */
public final class PluginInfo {
    private final PluginConfig config;
    private final PluginStats stats;
    private final io.sluice.core.buffer.ProducerBuffer queue;
    private final BooleanSupplier ready;

    PluginInfo(PluginConfig config, PluginStats stats, io.sluice.core.buffer.ProducerBuffer queue, BooleanSupplier ready) {
        this.config = config;
        this.stats = stats;
        this.queue = queue;
        this.ready = ready;
    }

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

    public PluginStats stats() {
        return stats;
    }

    /** The producer's buffer (queue depth in messages, or disk bytes), or null for a consumer. */
    public io.sluice.core.buffer.ProducerBuffer queue() {
        return queue;
    }

    public boolean ready() {
        return ready.getAsBoolean();
    }
}
