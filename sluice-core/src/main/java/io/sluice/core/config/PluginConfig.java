package io.sluice.core.config;

import java.util.Collections;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The validated settings of one plugin instance: values already converted to their declared types,
 * and where each came from, so that a plugin can still report an error at the right line.
 */
public final class PluginConfig {
    private final String id;
    private final PluginSpec spec;
    private final String file;
    private final int line;
    private final Map<String, Object> values;
    private final Map<String, Integer> lines;
    private final Map<String, Object> shared;

    PluginConfig(String id, PluginSpec spec, String file, int line, Map<String, Object> values,
                 Map<String, Integer> lines, Map<String, Object> shared) {
        this.id = id;
        this.spec = spec;
        this.file = file;
        this.line = line;
        this.values = Collections.unmodifiableMap(values);
        this.lines = Collections.unmodifiableMap(lines);
        this.shared = shared;
    }

    /** Builds a config in code (tests, embedded pipelines) from raw YAML-like values, validated like a file's. */
    public static PluginConfig of(String id, String type, Map<String, Object> settings) {
        return ConfigLoader.fromMap(id, type, settings, PluginRegistry.defaultRegistry());
    }

    /**
     * Builds a config of {@code spec} outside the plugin registry, validated like a file's: settings groups the
     * process itself uses (the admin endpoint's TLS/* keys).
     */
    public static PluginConfig of(String id, PluginSpec spec, Map<String, Object> settings) {
        return ConfigLoader.fromMap(id, spec.type(), settings, new PluginRegistry(java.util.List.of(spec)));
    }

    /**
     * These settings for {@code other}, a declaration of the same parameters ({@link PluginSpec#withFactory}), with
     * the {@code reset} ones back at their defaults: {@code sluice test} swaps a plugin for a stand-in that keeps
     * its streams and modulators.
     */
    public PluginConfig substitute(PluginSpec other, java.util.Collection<Param<?>> reset) {
        Map<String, Object> kept = new java.util.LinkedHashMap<>(values);
        reset.forEach(p -> kept.remove(p.name()));
        return new PluginConfig(id, other, file, line, kept, lines, shared);
    }

    public String id() {
        return id;
    }

    public PluginSpec spec() {
        return spec;
    }

    public String type() {
        return spec.type();
    }

    public String file() {
        return file;
    }

    public int line() {
        return line;
    }

    /** The value of a declared parameter, or its default when not set. */
    @SuppressWarnings("unchecked")
    public <T> T get(Param<T> param) {
        if (!spec.params().containsKey(param.name())) {
            throw new IllegalArgumentException(spec.type() + " does not declare " + param.name());
        }
        Object v = values.get(param.name());
        if (v == null) {
            v = fromDeprecated(param);
        }
        return v == null ? param.defaultValue() : (T) v;
    }

    /** The value set under a deprecated key that names {@code param} as its replacement, of the same Java type. */
    private Object fromDeprecated(Param<?> param) {
        for (Map.Entry<String, Object> e : values.entrySet()) {
            Param<?> old = spec.params().get(e.getKey());
            if (old != null && param.name().equals(old.replacedBy()) && old.defaultValue() != null
                    && param.defaultValue() != null && old.defaultValue().getClass() == param.defaultValue().getClass()) {
                return e.getValue();
            }
        }
        return null;
    }

    /** One warning per deprecated parameter the user set, naming its replacement. */
    public java.util.List<String> deprecations() {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String name : values.keySet()) {
            Param<?> p = spec.params().get(name);
            if (p != null && p.replacedBy() != null) {
                out.add(id + ": " + name + " is deprecated and goes in the next release; use " + p.replacedBy());
            }
        }
        return out;
    }

    /**
     * A setting of a shared group ({@code Retry/*}) that a plugin had under a key of its own, now deprecated for the
     * group's: {@code group} when set, else {@code own} (set, or its default), so that an unchanged config keeps the
     * plugin's own default rather than the group's.
     */
    public <T> T groupOrOwn(Param<T> group, Param<T> own) {
        return isSet(group) ? get(group) : get(own);
    }

    /** Whether the user set this parameter explicitly. */
    public boolean isSet(Param<?> param) {
        return values.containsKey(param.name());
    }

    /**
     * State shared by every instance built from this config (one per modulator routine), created once.
     * A rate filter, for instance, must count across all routines.
     */
    @SuppressWarnings("unchecked")
    public <T> T shared(String key, Supplier<T> create) {
        return (T) shared.computeIfAbsent(key, k -> create.get());
    }

    /** An error about one of this plugin's keys, for checks a plugin does itself (a bad regex, say). */
    public ConfigException error(Param<?> param, String what) {
        return ConfigException.at(file, lineOf(param.name()), id, param.name(), what);
    }

    /** The line a key was set on, or the plugin's line. */
    public int lineOf(String key) {
        Integer at = lines.get(key);
        return at == null ? line : at;
    }

    /**
     * Whether {@code other} configures the same plugin the same way: same id, type and values (modulators compared
     * by their own settings). Where a value came from (file, line) does not matter. A reload keeps a plugin running
     * untouched when this holds.
     */
    public boolean sameSettings(PluginConfig other) {
        return other != null && id.equals(other.id) && spec.type().equals(other.spec.type())
                && sameValue(values, other.values);
    }

    private static boolean sameValue(Object a, Object b) {
        if (a instanceof PluginConfig pa && b instanceof PluginConfig pb) {
            return pa.spec.type().equals(pb.spec.type()) && sameValue(pa.values, pb.values);
        }
        if (a instanceof java.util.List<?> la && b instanceof java.util.List<?> lb) {
            return la.size() == lb.size()
                    && java.util.stream.IntStream.range(0, la.size()).allMatch(i -> sameValue(la.get(i), lb.get(i)));
        }
        if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
            return ma.keySet().equals(mb.keySet())
                    && ma.entrySet().stream().allMatch(e -> sameValue(e.getValue(), mb.get(e.getKey())));
        }
        return java.util.Objects.equals(a, b);
    }

    @Override
    public String toString() {
        return id + " (" + spec.type() + ")";
    }
}
