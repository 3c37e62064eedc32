package io.sluice.hec;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import java.util.List;

/** The Splunk HEC plugins: {@code producer.SplunkHEC} and {@code consumer.HEC}. */
public final class HecPlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(io.sluice.hec.producer.HecProducer.SPEC, io.sluice.hec.consumer.HecConsumer.SPEC);
    }
}
