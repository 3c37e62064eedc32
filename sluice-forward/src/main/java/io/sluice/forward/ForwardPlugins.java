package io.sluice.forward;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import java.net.InetAddress;
import java.util.List;

/** Registers consumer.Forward and producer.Forward (found through {@link java.util.ServiceLoader}). */
public final class ForwardPlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(io.sluice.forward.consumer.ForwardConsumer.SPEC, io.sluice.forward.producer.ForwardProducer.SPEC);
    }

    /** SelfHostname of either plugin: as configured, else this host's name ("localhost" when it has none). */
    public static String selfHostname(String configured) {
        if (!configured.isEmpty()) {
            return configured;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "localhost";
        }
    }
}
