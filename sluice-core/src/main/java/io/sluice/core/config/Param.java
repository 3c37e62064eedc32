package io.sluice.core.config;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One declared parameter of a plugin: its name (as in Gollum), type, default and documentation.
 * The same declaration drives parsing, validation errors and {@code sluice list}.
 *
 * @param <T> the Java type of the converted value
 */
public final class Param<T> {
    private final String name;
    private final ParamType type;
    private final T defaultValue;
    private final String doc;
    private final boolean required;
    private final String replacedBy;

    private Param(String name, ParamType type, T defaultValue, String doc, boolean required) {
        this(name, type, defaultValue, doc, required, null);
    }

    private Param(String name, ParamType type, T defaultValue, String doc, boolean required, String replacedBy) {
        this.name = Objects.requireNonNull(name);
        this.type = type;
        this.defaultValue = defaultValue;
        this.doc = doc;
        this.required = required;
        this.replacedBy = replacedBy;
    }

    /**
     * This parameter under an old name kept for one release: it reads the same, {@code list} marks it, and
     * {@link PluginConfig#deprecations()} names the replacement so that the pipeline warns when it is set.
     */
    public Param<T> deprecatedFor(Param<?> replacement) {
        return new Param<>(name, type, defaultValue, "Deprecated: use " + replacement.name() + ". " + doc, required,
                replacement.name());
    }

    /** The name that replaces this deprecated parameter, or null when it is current. */
    public String replacedBy() {
        return replacedBy;
    }

    /** An integer parameter. */
    public static Param<Integer> integer(String name, int defaultValue, String doc) {
        return new Param<>(name, ParamType.INT, defaultValue, doc, false);
    }

    /** A long integer parameter. */
    public static Param<Long> longValue(String name, long defaultValue, String doc) {
        return new Param<>(name, ParamType.LONG, defaultValue, doc, false);
    }

    /** A floating point parameter. */
    public static Param<Double> decimal(String name, double defaultValue, String doc) {
        return new Param<>(name, ParamType.DOUBLE, defaultValue, doc, false);
    }

    /** A boolean parameter. */
    public static Param<Boolean> bool(String name, boolean defaultValue, String doc) {
        return new Param<>(name, ParamType.BOOL, defaultValue, doc, false);
    }

    /** A string parameter. */
    public static Param<String> string(String name, String defaultValue, String doc) {
        return new Param<>(name, ParamType.STRING, defaultValue, doc, false);
    }

    /** A string parameter that must be set. */
    public static Param<String> requiredString(String name, String doc) {
        return new Param<>(name, ParamType.STRING, null, doc, true);
    }

    /** A list-of-strings parameter (a single string is a list of one). */
    public static Param<List<String>> strings(String name, List<String> defaultValue, String doc) {
        return new Param<>(name, ParamType.STRING_LIST, List.copyOf(defaultValue), doc, false);
    }

    /** A string-to-string mapping parameter. */
    public static Param<Map<String, String>> stringMap(String name, String doc) {
        return new Param<>(name, ParamType.STRING_MAP, Map.of(), doc, false);
    }

    /** A mapping of names to lists of strings (a single string is a list of one), in the order written. */
    public static Param<Map<String, List<String>>> stringListMap(String name, String doc) {
        return new Param<>(name, ParamType.STRING_LIST_MAP, Map.of(), doc, false);
    }

    /** The Modulators parameter: a list of modulator configs. */
    public static Param<List<PluginConfig>> modulators(String name, String doc) {
        return new Param<>(name, ParamType.MODULATORS, List.of(), doc, false);
    }

    /** The Plugins parameter of an Aggregate. */
    static Param<Map<String, Object>> plugins(String name, String doc) {
        return new Param<>(name, ParamType.PLUGINS, Map.of(), doc, false);
    }

    public String name() {
        return name;
    }

    public ParamType type() {
        return type;
    }

    public T defaultValue() {
        return defaultValue;
    }

    public String doc() {
        return doc;
    }

    public boolean required() {
        return required;
    }

    /** The default as a user would write it in YAML, for docs and {@code sluice list}. */
    public String defaultText() {
        if (required) {
            return "(required)";
        }
        if (defaultValue == null) {
            return "\"\"";
        }
        if (defaultValue instanceof String) {
            return '"' + ((String) defaultValue).replace("\n", "\\n").replace("\t", "\\t") + '"';
        }
        return String.valueOf(defaultValue);
    }

    @Override
    public String toString() {
        return name + " (" + type + ")";
    }
}
