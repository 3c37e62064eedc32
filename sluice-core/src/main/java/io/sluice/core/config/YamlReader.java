package io.sluice.core.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Turns a config file's YAML into {@link Val}s with their lines, substituting {@code ${VAR}},
 * {@code ${VAR:-default}} and {@code ${VAR:?message}} (an error with that message when unset or empty) from the
 * environment, within bounds a hostile file cannot push past (nesting, alias
 * expansion). What the values mean is {@link ConfigLoader}'s business.
 */
final class YamlReader {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\\?)([^}]*))?}");
    /** Deepest nesting of values in a config; a Gollum config needs about five levels. */
    static final int MAX_DEPTH = 100;
    /** Most values in a config, counting each use of an alias anew. */
    static final int MAX_VALUES = 100_000;

    private final String file;
    private final Map<String, String> env;
    /** Values made so far from the file being read. */
    private int values;

    YamlReader(String file, Map<String, String> env) {
        this.file = file;
        this.env = env;
    }

    /** The document's root value (null raw for an empty document). */
    Val read(String text) {
        LoadSettings settings = LoadSettings.builder().setLabel(file).setAllowDuplicateKeys(false).build();
        try {
            checkNesting(settings, text);
            Optional<Node> node = new Compose(settings).composeString(text);
            values = 0;
            return node.map(n -> toVal(n, 0)).orElse(new Val(null, 1));
        } catch (MarkedYamlEngineException e) {
            int line = e.getProblemMark().map(m -> m.getLine() + 1).orElse(0);
            throw ConfigException.at(file, line, null, null, "invalid YAML: " + e.getProblem());
        } catch (YamlEngineException e) {
            throw ConfigException.at(file, 0, null, null, "invalid YAML: " + e.getMessage());
        }
    }

    /**
     * Refuses collections nested deeper than {@link #MAX_DEPTH} before they are composed: snakeyaml-engine's
     * composer recurses once per level and a few kilobytes of brackets overflow the stack. The parser's events
     * come one at a time without recursion, so counting them is safe; parse errors surface here as they would
     * in the composer.
     */
    private void checkNesting(LoadSettings settings, String text) {
        int depth = 0;
        for (Event e : new Parse(settings).parseString(text)) {
            Event.ID id = e.getEventId();
            if (id == Event.ID.SequenceStart || id == Event.ID.MappingStart) {
                if (++depth > MAX_DEPTH) {
                    throw ConfigException.at(file, e.getStartMark().map(m -> m.getLine() + 1).orElse(0), null, null,
                            "values nested deeper than " + MAX_DEPTH);
                }
            } else if (id == Event.ID.SequenceEnd || id == Event.ID.MappingEnd) {
                depth--;
            }
        }
    }

    private Val toVal(Node node, int depth) {
        int line = node.getStartMark().map(Mark::getLine).orElse(-1) + 1;
        // Aliases make the node graph a DAG or a cycle (&a [*a]): expanded into values, a cycle never ends and a
        // few nested aliases multiply (a "billion laughs" of fifty aliases is gigabytes). No config needs either.
        if (depth > MAX_DEPTH) {
            throw ConfigException.at(file, line, null, null, "values nested deeper than " + MAX_DEPTH
                    + " (or an alias that refers to itself)");
        }
        if (++values > MAX_VALUES) {
            throw ConfigException.at(file, line, null, null, "more than " + MAX_VALUES
                    + " values once aliases are expanded");
        }
        if (node instanceof ScalarNode) {
            ScalarNode s = (ScalarNode) node;
            String value = s.getValue();
            boolean plain = s.isPlain();
            if (plain && (value.isEmpty() || value.equals("~") || value.equals("null"))) {
                return new Val(null, line);
            }
            return new Val(substitute(value, line), line);
        }
        if (node instanceof SequenceNode) {
            return new Val(((SequenceNode) node).getValue().stream().map(n -> toVal(n, depth + 1)).toList(), line);
        }
        MappingNode m = (MappingNode) node;
        Map<String, Val> map = new LinkedHashMap<>();
        for (NodeTuple t : m.getValue()) {
            Node k = t.getKeyNode();
            if (!(k instanceof ScalarNode)) {
                throw ConfigException.at(file, line, null, null, "mapping keys must be plain names");
            }
            String key = ((ScalarNode) k).getValue();
            if (map.put(key, toVal(t.getValueNode(), depth + 1)) != null) {
                throw ConfigException.at(file, k.getStartMark().map(Mark::getLine).orElse(-1) + 1, null, key, "duplicate key");
            }
        }
        return new Val(map, line);
    }

    private String substitute(String value, int line) {
        if (value.indexOf("${") < 0) {
            return value;
        }
        Matcher m = VARIABLE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String v = env.get(name);
            boolean unset = v == null || (v.isEmpty() && m.group(2) != null);
            if (unset && ":?".equals(m.group(2))) {
                // ${VAR:?message}, as in a shell: the config cannot do without it, and says why
                throw ConfigException.at(file, line, null, null, "environment variable " + name + " is not set"
                        + (m.group(3).isEmpty() ? "" : ": " + m.group(3)));
            }
            if (unset) {
                v = m.group(3);
            }
            if (v == null) {
                throw ConfigException.at(file, line, null, null, "environment variable " + name
                        + " is not set (use ${" + name + ":-default} to give a default)");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(v));
        }
        m.appendTail(out);
        return out.toString();
    }
}
