package io.sluice.core.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads a Gollum 0.5/0.6 YAML config: plugin id → {@code Type} plus settings, {@code Aggregate} with
 * {@code Plugins}, modulators as names or name → settings mappings; {@code YamlReader} parses the YAML and
 * substitutes variables. A config may come in pieces, several files or a directory, merged into one pipeline
 * ({@link #loadPaths}). Every error names the file, line, plugin id and key, and is raised before anything starts.
 * <p>About 460 lines: the conversion of a value for every {@link ParamType} is one switch, kept next to the
 * assembly of plugins so that every error is collected with its line in one place.
 */
public final class ConfigLoader {
    private static final String TYPE = "Type";
    private static final String AGGREGATE = "Aggregate";
    private static final String PLUGINS = "Plugins";
    /** The one top-level key that is a process setting, not a plugin: the memory budget, as {@code --memory-limit}. */
    public static final String MEMORY_LIMIT = "MemoryLimit";

    private final PluginRegistry registry;
    private final Map<String, String> env;
    private String file;
    /** The top-level {@value #MEMORY_LIMIT} of the config being loaded, and the piece that set it; null when none did. */
    private ConfigPieces.Setting memoryLimit;
    /** Errors found so far in the files being loaded: all are reported together, not only the first. */
    private final List<ConfigException> errors = new ArrayList<>();

    /** A loader over the given plugins, substituting variables from {@code env}. */
    public ConfigLoader(PluginRegistry registry, Map<String, String> env) {
        this.registry = registry;
        this.env = env;
    }

    /** Loads and validates a config file, or a directory of them, with the process environment. */
    public static List<PluginConfig> load(Path path) {
        return load(List.of(path));
    }

    /** Loads and validates a config given in pieces (see {@link #loadPaths}) with the process environment. */
    public static List<PluginConfig> load(List<Path> paths) {
        return new ConfigLoader(PluginRegistry.defaultRegistry(), System.getenv()).loadPaths(paths);
    }

    /**
     * Reads YAML as configs are read (variables substituted from {@code env}, the same bounds on nesting and
     * aliases) into plain values: String, List, Map (in the file's order) and null. For files next to configs
     * that are not configs themselves ({@code sluice test}'s test files).
     */
    public static Object readYaml(String text, String name, Map<String, String> env) {
        return new YamlReader(name, env).read(text).toJava();
    }

    /** Loads and validates a file, or a directory of them (see {@link #loadPaths}). */
    public List<PluginConfig> loadFile(Path path) {
        return loadPaths(List.of(path));
    }

    /**
     * Loads and validates one pipeline made of the given files and directories, read anew on every call (a
     * reload re-reads the same paths): a directory stands for its {@code *.yaml} and {@code *.yml} files sorted by
     * name, not recursively. The pieces are read in order and merged; a plugin id defined in two of them, or a
     * top-level setting ({@value #MEMORY_LIMIT}) given two different values, is an error naming both files.
     * Streams are checked across the pieces, so a consumer in one file may feed a producer in another. Of several
     * pieces, one with nothing in it (commented out) is skipped.
     */
    public List<PluginConfig> loadPaths(List<Path> paths) {
        List<Path> files = ConfigPieces.expand(paths);
        begin();
        List<PluginConfig> result = new ArrayList<>();
        for (Path f : files) {
            try {
                readPiece(ConfigPieces.read(f), f.toString(), files.size() == 1, result);
            } catch (ConfigException bad) {
                errors.add(bad); // the other pieces are still read, so that one run reports every error
            }
        }
        if (result.isEmpty() && errors.isEmpty() && memoryLimit == null) {
            throw new ConfigException(paths + ": the config is empty: define at least one consumer and one producer");
        }
        return finish(result);
    }

    /** Loads and validates YAML text; {@code name} is used in error messages. */
    public List<PluginConfig> loadString(String text, String name) {
        begin();
        List<PluginConfig> result = new ArrayList<>();
        readPiece(text, name, true, result);
        return finish(result);
    }

    /** Forgets the last load: a reload that drops a setting must not keep its old value. */
    private void begin() {
        errors.clear();
        memoryLimit = null;
    }

    /**
     * Reads one file's plugins into {@code result}, collecting their errors; YAML that cannot be parsed ends
     * the file at once. An empty document is an error when {@code emptyIsError}, and contributes nothing otherwise.
     */
    private void readPiece(String text, String name, boolean emptyIsError, List<PluginConfig> result) {
        this.file = name;
        Val root = new YamlReader(file, env).read(text);
        if (root.raw == null) {
            if (emptyIsError) {
                throw ConfigException.at(file, 0, null, null, "the config is empty: define at least one consumer and one producer");
            }
            return;
        }
        for (Map.Entry<String, Val> e : root.asMap(this, null, null).entrySet()) {
            try {
                loadEntry(e, result);
            } catch (ConfigException bad) {
                errors.add(bad);
            }
        }
    }

    /** Checks what only the whole set shows (ids defined twice, streams nobody reads) and reports every error. */
    private List<PluginConfig> finish(List<PluginConfig> result) {
        errors.addAll(ConfigPieces.duplicateIds(result));
        throwErrors();
        StreamCheck.check(result);
        return result;
    }

    /** Reports every error collected while loading, in one exception; nothing when there were none. */
    private void throwErrors() {
        if (errors.isEmpty()) {
            return;
        }
        if (errors.size() == 1) {
            throw errors.remove(0);
        }
        StringBuilder b = new StringBuilder(errors.size() + " errors:");
        for (ConfigException e : errors) {
            b.append("\n  ").append(e.getMessage());
        }
        errors.clear();
        throw new ConfigException(b.toString());
    }

    private void loadEntry(Map.Entry<String, Val> e, List<PluginConfig> result) {
        String id = e.getKey();
        if (id.equals(MEMORY_LIMIT)) {
            String size = e.getValue().asString(this, null, MEMORY_LIMIT);
            long bytes;
            try {
                bytes = io.sluice.core.message.MemoryBudget.parseSize(size);
            } catch (IllegalArgumentException bad) {
                throw ConfigException.at(file, e.getValue().line, null, null, MEMORY_LIMIT + ": " + bad.getMessage());
            }
            memoryLimit = ConfigPieces.agree(memoryLimit,
                    new ConfigPieces.Setting(MEMORY_LIMIT, bytes, size, file, e.getValue().line));
            return;
        }
        Map<String, Val> settings = e.getValue().asMap(this, id, null);
        Val type = settings.get(TYPE);
        if (type == null) {
            throw ConfigException.at(file, e.getValue().line, id, TYPE,
                    "missing: every plugin needs a Type, e.g. Type: consumer.Profiler");
        }
        String typeName = type.asString(this, id, TYPE);
        if (AGGREGATE.equals(typeName)) {
            expandAggregate(id, settings, result);
        } else {
            result.add(build(id, typeName, settings, e.getValue().line, true));
        }
    }

    /** The top-level {@code MemoryLimit} of the last config loaded, in bytes, or null when it set none. */
    public Long memoryLimit() {
        return memoryLimit == null ? null : (Long) memoryLimit.value();
    }

    static PluginConfig fromMap(String id, String type, Map<String, Object> settings, PluginRegistry registry) {
        ConfigLoader loader = new ConfigLoader(registry, Map.of());
        loader.file = "<code>";
        Map<String, Val> vals = new LinkedHashMap<>();
        settings.forEach((k, v) -> vals.put(k, Val.ofJava(v)));
        return loader.build(id, type, vals, 0, false);
    }

    private void expandAggregate(String id, Map<String, Val> settings, List<PluginConfig> out) {
        Val plugins = settings.get(PLUGINS);
        if (plugins == null) {
            throw ConfigException.at(file, 0, id, PLUGINS, "missing: an Aggregate lists its plugins under Plugins");
        }
        for (Map.Entry<String, Val> sub : plugins.asMap(this, id, PLUGINS).entrySet()) {
            Map<String, Val> merged = new LinkedHashMap<>(settings);
            merged.remove(PLUGINS);
            merged.remove(TYPE);
            merged.putAll(sub.getValue().asMap(this, sub.getKey(), null));
            Val type = merged.get(TYPE);
            if (type == null) {
                throw ConfigException.at(file, sub.getValue().line, sub.getKey(), TYPE, "missing in Aggregate '" + id + "'");
            }
            out.add(build(sub.getKey(), type.asString(this, sub.getKey(), TYPE), merged, sub.getValue().line, true));
        }
    }

    private PluginConfig build(String id, String typeName, Map<String, Val> settings, int line, boolean topLevel) {
        PluginSpec spec = registry.find(typeName);
        if (spec == null) {
            Val t = settings.get(TYPE);
            throw ConfigException.at(file, t == null ? line : t.line, id, TYPE, "unknown plugin type '" + typeName + "'"
                    + Suggest.didYouMean(typeName, registry.typeNames()) + " (sluice list shows every type)");
        }
        if (topLevel && spec.kind() == PluginKind.MODULATOR) {
            throw ConfigException.at(file, line, id, TYPE, typeName + " is a modulator: list it under a plugin's Modulators");
        }
        settings = flattenGroups(spec, settings);
        Map<String, Object> values = new LinkedHashMap<>();
        Map<String, Integer> lines = new LinkedHashMap<>();
        int before = errors.size();
        for (Map.Entry<String, Val> s : settings.entrySet()) {
            String key = s.getKey();
            if (key.equals(TYPE)) {
                continue;
            }
            Param<?> param = findParam(spec, key);
            if (param == null) {
                List<String> names = new ArrayList<>(spec.params().keySet());
                errors.add(ConfigException.at(file, s.getValue().line, id, key, "unknown key for " + spec.type()
                        + Suggest.didYouMean(key, names) + " (known keys: " + String.join(", ", names) + ")"));
                continue;
            }
            try {
                values.put(param.name(), convert(id, param, s.getValue()));
            } catch (ConfigException bad) {
                errors.add(bad);
                continue;
            }
            lines.put(param.name(), s.getValue().line);
        }
        for (Param<?> p : spec.params().values()) {
            if (p.required() && !values.containsKey(p.name())
                    && settings.keySet().stream().noneMatch(k -> k.equalsIgnoreCase(p.name()))) {
                errors.add(ConfigException.at(file, line, id, p.name(), "missing: " + spec.type() + " needs " + p.name()
                        + " (" + p.doc() + ")"));
            }
        }
        if (errors.size() > before) {
            // This plugin's errors are collected; the caller goes on with the next one and reports them all.
            throw errors.remove(errors.size() - 1);
        }
        return new PluginConfig(id, spec, file, line, values, lines, new ConcurrentHashMap<>());
    }

    /**
     * Gollum writes grouped parameters either flat ({@code Batch/MaxCount: 128}) or nested
     * ({@code Batch: {MaxCount: 128}}); a nested group whose name prefixes declared "Group/Key" parameters
     * is turned into the flat keys, so both spellings reach the same declaration.
     */
    private static Map<String, Val> flattenGroups(PluginSpec spec, Map<String, Val> settings) {
        Map<String, Val> out = null;
        for (Map.Entry<String, Val> s : settings.entrySet()) {
            // a mapping under a scalar key of the same name is the group: keys match case-insensitively, so
            // producer.Forward's old boolean "Tls" must not swallow a "TLS:" group
            Param<?> same = findParam(spec, s.getKey());
            boolean takesMapping = same != null
                    && (same.type() == ParamType.STRING_MAP || same.type() == ParamType.MODULATORS);
            if (!(s.getValue().raw instanceof Map) || takesMapping || !hasGroup(spec, s.getKey())) {
                continue;
            }
            if (out == null) {
                out = new LinkedHashMap<>(settings);
            }
            out.remove(s.getKey());
            @SuppressWarnings("unchecked")
            Map<String, Val> group = (Map<String, Val>) s.getValue().raw;
            for (Map.Entry<String, Val> g : group.entrySet()) {
                out.put(s.getKey() + "/" + g.getKey(), g.getValue());
            }
        }
        return out == null ? settings : out;
    }

    private static boolean hasGroup(PluginSpec spec, String group) {
        String prefix = group.toLowerCase(Locale.ROOT) + "/";
        return spec.params().keySet().stream().anyMatch(name -> name.toLowerCase(Locale.ROOT).startsWith(prefix));
    }

    /** Gollum reads keys case-insensitively; the declared spelling wins. */
    private static Param<?> findParam(PluginSpec spec, String key) {
        Param<?> exact = spec.params().get(key);
        return exact != null ? exact
                : spec.params().values().stream().filter(p -> p.name().equalsIgnoreCase(key)).findFirst().orElse(null);
    }

    private Object convert(String id, Param<?> param, Val v) {
        Object value = convertType(id, param, v);
        try {
            param.checkRange(value);
        } catch (IllegalArgumentException e) {
            throw ConfigException.at(file, v.line, id, param.name(), e.getMessage());
        }
        return value;
    }

    private Object convertType(String id, Param<?> param, Val v) {
        String key = param.name();
        switch (param.type()) {
            case CHOICE, DURATION, SIZE:
                try {
                    return v.raw == null && param.type() == ParamType.CHOICE ? param.defaultValue()
                            : param.convertTyped(v.asString(this, id, key));
                } catch (IllegalArgumentException e) {
                    throw ConfigException.at(file, v.line, id, key, e.getMessage());
                }
            case INT: {
                long n = parseLong(id, key, v);
                if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
                    throw ConfigException.at(file, v.line, id, key, "value " + n + " is out of range for an integer");
                }
                return (int) n;
            }
            case BOOL: {
                String s = v.asString(this, id, key).trim().toLowerCase(Locale.ROOT);
                if (s.equals("true") || s.equals("yes") || s.equals("on")) {
                    return Boolean.TRUE;
                }
                if (s.equals("false") || s.equals("no") || s.equals("off")) {
                    return Boolean.FALSE;
                }
                throw wrongType(id, key, v, param);
            }
            case STRING:
                return v.raw == null ? "" : v.asString(this, id, key);
            case STRING_LIST:
                return stringList(id, key, v);
            case STRING_MAP: {
                Map<String, String> out = new LinkedHashMap<>();
                if (v.raw instanceof List) {
                    // A list of "Name: value" strings (or of one-entry mappings, which is what YAML makes of an
                    // unquoted "- Name: value"), as headers are often written.
                    for (Val item : v.asList()) {
                        if (item.raw instanceof Map) {
                            item.asMap(this, id, key).forEach((k, val) -> out.put(k, val.asString(this, id, key + "." + k)));
                            continue;
                        }
                        String s = item.asString(this, id, key);
                        int colon = s.indexOf(':');
                        if (colon <= 0) {
                            throw ConfigException.at(file, item.line, id, key, "expected 'Name: value', found '" + s + "'");
                        }
                        out.put(s.substring(0, colon).trim(), s.substring(colon + 1).trim());
                    }
                } else if (v.raw != null) {
                    v.asMap(this, id, key).forEach((k, val) -> out.put(k, val.asString(this, id, key + "." + k)));
                }
                return out;
            }
            case STRING_LIST_MAP: {
                if (v.raw != null && !(v.raw instanceof Map)) {
                    throw wrongType(id, key, v, param);
                }
                Map<String, List<String>> out = new LinkedHashMap<>();
                v.asMap(this, id, key).forEach((k, val) -> out.put(k, stringList(id, key + "." + k, val)));
                return Collections.unmodifiableMap(out);
            }
            case MODULATORS:
                return modulators(id, v);
            default:
                throw ConfigException.at(file, v.line, id, key, "not allowed here");
        }
    }

    /** A list of strings, or a single string as a list of one; nothing is an empty list. */
    private List<String> stringList(String id, String key, Val v) {
        if (v.raw instanceof List) {
            return v.asList().stream().map(item -> item.asString(this, id, key)).toList();
        }
        return v.raw == null ? List.of() : List.of(v.asString(this, id, key));
    }

    private List<PluginConfig> modulators(String id, Val v) {
        if (v.raw == null) {
            return List.of();
        }
        if (!(v.raw instanceof List)) {
            throw ConfigException.at(file, v.line, id, "Modulators", "expected " + ParamType.MODULATORS.description());
        }
        List<PluginConfig> out = new ArrayList<>();
        for (Val item : v.asList()) {
            String type;
            Map<String, Val> settings;
            if (item.raw instanceof Map) {
                Map<String, Val> m = item.asMap(this, id, "Modulators");
                if (m.size() != 1) {
                    throw ConfigException.at(file, item.line, id, "Modulators",
                            "each entry is a name or one name: settings mapping, found " + m.keySet());
                }
                Map.Entry<String, Val> only = m.entrySet().iterator().next();
                type = only.getKey();
                settings = only.getValue().raw == null ? new LinkedHashMap<>() : only.getValue().asMap(this, id, type);
            } else {
                type = item.asString(this, id, "Modulators");
                settings = new LinkedHashMap<>();
            }
            PluginSpec spec = registry.find(type);
            if (spec != null && spec.kind() != PluginKind.MODULATOR) {
                throw ConfigException.at(file, item.line, id, "Modulators", type + " is a " + spec.kind().name().toLowerCase(Locale.ROOT) + ", not a modulator");
            }
            out.add(build(id + "/" + type, type, settings, item.line, false));
        }
        return List.copyOf(out);
    }

    private long parseLong(String id, String key, Val v) {
        String s = v.asString(this, id, key).trim().replace("_", "");
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw ConfigException.at(file, v.line, id, key, "expected an integer, found '" + s + "'");
        }
    }

    private ConfigException wrongType(String id, String key, Val v, Param<?> param) {
        return ConfigException.at(file, v.line, id, key, "expected " + param.type().description() + ", found " + v.describe());
    }

    String file() {
        return file;
    }
}
