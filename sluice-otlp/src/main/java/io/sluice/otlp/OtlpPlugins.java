package io.sluice.otlp;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import io.sluice.otlp.consumer.OTLP;
import java.util.List;

/** The OpenTelemetry plugins: {@code consumer.OTLP} and {@code producer.OTLP}. */
public final class OtlpPlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(OTLP.SPEC);
    }
}
