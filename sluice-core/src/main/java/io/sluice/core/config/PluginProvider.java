package io.sluice.core.config;

import java.util.List;

/**
 * Contributes plugin declarations; found with {@link java.util.ServiceLoader}, so a module (Forward, HEC, Kafka)
 * adds its plugins by being on the class path.
 */
public interface PluginProvider {
    /** The plugins this module offers. */
    List<PluginSpec> plugins();
}
