package io.sluice.cli;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.Suggest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One mapping of a {@code sluice test} file with where it sits ({@code hec-relay.test.yaml: test 'x', Expect[0]}),
 * read through typed getters that fail with that place: the test file's keys are checked like a config's.
 */
final class TestFileNode {
    private final Map<String, Object> map;
    private final String where;

    private TestFileNode(Map<String, Object> map, String where) {
        this.map = map;
        this.where = where;
    }

    /** {@code raw} as a mapping, or an error naming {@code where}. */
    @SuppressWarnings("unchecked")
    static TestFileNode of(Object raw, String where) {
        if (!(raw instanceof Map)) {
            throw new ConfigException(where + ": expected a mapping of keys, got " + describe(raw));
        }
        return new TestFileNode((Map<String, Object>) raw, where);
    }

    /** The same mapping, named {@code otherWhere} in errors (a test, once its name is known). */
    TestFileNode at(String otherWhere) {
        return new TestFileNode(map, otherWhere);
    }

    /** Fails on any key not in {@code allowed}, suggesting the closest one. */
    TestFileNode only(String... allowed) {
        List<String> names = List.of(allowed);
        for (String key : map.keySet()) {
            if (!names.contains(key)) {
                throw error("unknown key '" + key + "'" + Suggest.didYouMean(key, names)
                        + "; known: " + String.join(", ", names));
            }
        }
        return this;
    }

    boolean has(String key) {
        return map.get(key) != null;
    }

    /** The text at {@code key}, or null when missing. */
    String string(String key) {
        Object v = map.get(key);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        throw error(key + ": expected text, got " + describe(v));
    }

    /** The text at {@code key}; an error when missing. */
    String required(String key) {
        String v = string(key);
        if (v == null) {
            throw error("missing key '" + key + "'");
        }
        return v;
    }

    /** A whole number at least 0, or null when missing. */
    Integer count(String key) {
        String v = string(key);
        if (v == null) {
            return null;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below, with the key
        }
        throw error(key + ": expected a whole number, 0 or more, got '" + v + "'");
    }

    /** true or false, false when missing. */
    boolean flag(String key) {
        String v = string(key);
        if (v == null || v.equalsIgnoreCase("false")) {
            return false;
        }
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        throw error(key + ": expected true or false, got '" + v + "'");
    }

    /** A mapping of text to text (metadata, environment), empty when missing; a value left out ({@code ~}) is null. */
    Map<String, String> strings(String key) {
        Object v = map.get(key);
        if (v == null) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        of(v, where + ", " + key).map.forEach((k, x) -> {
            if (x instanceof Map || x instanceof List) {
                throw error(key + "." + k + ": expected text, got " + describe(x));
            }
            out.put(k, (String) x);
        });
        return out;
    }

    /** A list of text, or null when missing. */
    List<String> texts(String key) {
        Object v = map.get(key);
        if (v == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (Object x : asList(key, v)) {
            if (!(x instanceof String)) {
                throw error(key + ": expected a list of text, got " + describe(x) + " in it");
            }
            out.add((String) x);
        }
        return out;
    }

    /** The raw items of the list at {@code key} (a single value counts as a list of one), empty when missing. */
    List<Object> items(String key) {
        Object v = map.get(key);
        return v == null ? List.of() : asList(key, v);
    }

    private List<Object> asList(String key, Object v) {
        if (v instanceof List) {
            return new ArrayList<>((List<?>) v);
        }
        if (v instanceof Map) {
            return List.of(v);
        }
        throw error(key + ": expected a list, got " + describe(v));
    }

    /** Where this mapping is, for errors: file, test, key path. */
    String where() {
        return where;
    }

    ConfigException error(String what) {
        return new ConfigException(where + ": " + what);
    }

    private static String describe(Object v) {
        if (v == null) {
            return "nothing";
        }
        return v instanceof Map ? "a mapping" : v instanceof List ? "a list" : "'" + v + "'";
    }
}
