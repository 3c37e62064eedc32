package io.sluice.core;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import java.util.List;

/** The plugins built into sluice-core. */
public final class CorePlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(
                io.sluice.core.consumer.Profiler.SPEC,
                io.sluice.core.consumer.ConsoleConsumer.SPEC,
                io.sluice.core.producer.Benchmark.SPEC,
                io.sluice.core.producer.ConsoleProducer.SPEC,
                io.sluice.core.producer.Null.SPEC,
                io.sluice.core.router.Broadcast.SPEC,
                io.sluice.core.router.RoundRobin.SPEC,
                io.sluice.core.router.Random.SPEC,
                io.sluice.core.router.Distribute.SPEC,
                io.sluice.core.format.Envelope.SPEC,
                io.sluice.core.format.Timestamp.SPEC);
    }
}
