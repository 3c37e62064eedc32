package io.sluice.kafka;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import java.util.List;

/** The Kafka plugins: found by the core's {@link java.util.ServiceLoader} when this module is on the class path. */
public final class KafkaPlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(io.sluice.kafka.consumer.KafkaConsumer.SPEC, io.sluice.kafka.producer.KafkaProducer.SPEC);
    }
}
