package io.sluice.otlp;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import java.util.List;

/** The OpenTelemetry plugins: {@code consumer.OTLP} and {@code producer.OTLP}. */
public final class OtlpPlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(io.sluice.otlp.consumer.OtlpConsumer.SPEC, io.sluice.otlp.producer.OtlpProducer.SPEC);
    }
}
