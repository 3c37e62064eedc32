package io.sluice.core.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A YAML value (null, String, list or mapping) with the line it came from. */
final class Val {
    final Object raw;
    final int line;

    Val(Object raw, int line) {
        this.raw = raw;
        this.line = line;
    }

    /** Wraps a Java value written in code, so code configs validate exactly like files. */
    static Val ofJava(Object v) {
        if (v instanceof Map) {
            Map<String, Val> m = new LinkedHashMap<>();
            ((Map<?, ?>) v).forEach((k, x) -> m.put(String.valueOf(k), ofJava(x)));
            return new Val(m, 0);
        }
        if (v instanceof List) {
            return new Val(((List<?>) v).stream().map(Val::ofJava).toList(), 0);
        }
        return new Val(v == null ? null : String.valueOf(v), 0);
    }

    /** The value without its lines: String, List, Map (in the file's order) or null. */
    Object toJava() {
        if (raw instanceof Map) {
            Map<String, Object> m = new LinkedHashMap<>();
            ((Map<?, ?>) raw).forEach((k, v) -> m.put((String) k, ((Val) v).toJava()));
            return m;
        }
        if (raw instanceof List) {
            return ((List<?>) raw).stream().map(v -> ((Val) v).toJava()).toList();
        }
        return raw;
    }

    String asString(ConfigLoader loader, String id, String key) {
        if (raw instanceof String) {
            return (String) raw;
        }
        if (raw == null) {
            return "";
        }
        throw ConfigException.at(loader.file(), line, id, key, "expected a single value, found " + describe());
    }

    @SuppressWarnings("unchecked")
    List<Val> asList() {
        return (List<Val>) raw;
    }

    @SuppressWarnings("unchecked")
    Map<String, Val> asMap(ConfigLoader loader, String id, String key) {
        if (raw instanceof Map) {
            return (Map<String, Val>) raw;
        }
        if (raw == null) {
            return new LinkedHashMap<>();
        }
        throw ConfigException.at(loader.file(), line, id, key, "expected a mapping of names to settings, found " + describe());
    }

    String describe() {
        if (raw == null) {
            return "nothing";
        }
        if (raw instanceof List) {
            return "a list";
        }
        if (raw instanceof Map) {
            return "a mapping";
        }
        return "'" + raw + "'";
    }
}
