package io.sluice.core.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** Every known plugin type, by its Gollum name. */
public final class PluginRegistry {
    private static volatile PluginRegistry defaultRegistry;

    private final Map<String, PluginSpec> specs = new TreeMap<>();

    /** A registry holding the given plugins. */
    public PluginRegistry(List<PluginSpec> plugins) {
        for (PluginSpec spec : plugins) {
            PluginSpec old = specs.put(spec.type(), spec);
            if (old != null) {
                throw new IllegalStateException("plugin type declared twice: " + spec.type());
            }
        }
    }

    /** The plugins of every module on the class path. */
    public static PluginRegistry defaultRegistry() {
        PluginRegistry r = defaultRegistry;
        if (r == null) {
            r = new PluginRegistry(ServiceLoader.load(PluginProvider.class, PluginRegistry.class.getClassLoader())
                    .stream().flatMap(p -> p.get().plugins().stream()).toList());
            defaultRegistry = r;
        }
        return r;
    }

    /** The declaration of a type, or null. Gollum accepts types with or without their package prefix case. */
    public PluginSpec find(String type) {
        return specs.get(type);
    }

    /** All declarations, sorted by type. */
    public List<PluginSpec> all() {
        return new ArrayList<>(specs.values());
    }

    /** Type names, for "did you mean" suggestions. */
    public List<String> typeNames() {
        return new ArrayList<>(specs.keySet());
    }
}
