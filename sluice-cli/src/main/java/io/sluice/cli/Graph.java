package io.sluice.cli;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Streams;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A pipeline as a graph: consumers → streams (with their routers) → producers, modulators in the plugin labels,
 * fallback streams as dashed edges. Rendered as DOT or Mermaid.
 */
final class Graph {
    /** A node: a plugin or a stream. */
    record Node(String id, String label, String shape) {
    }

    /** An edge; dashed for fallback routes. */
    record Edge(String from, String to, boolean dashed) {
    }

    /** By id, in the order first added. */
    final Map<String, Node> nodes = new LinkedHashMap<>();
    final List<Edge> edges = new ArrayList<>();

    static Graph of(List<PluginConfig> configs) {
        Graph g = new Graph();
        Set<String> readers = new LinkedHashSet<>();
        boolean wildcard = false;
        for (PluginConfig c : configs) {
            if (c.spec().kind() == PluginKind.PRODUCER) {
                readers.addAll(c.get(PluginSpec.STREAMS));
                wildcard |= c.get(PluginSpec.STREAMS).contains("*");
            }
        }
        for (PluginConfig c : configs) {
            if (!c.get(PluginSpec.ENABLE)) {
                continue;
            }
            switch (c.spec().kind()) {
                case CONSUMER -> {
                    g.plugin(c, "box");
                    c.get(PluginSpec.STREAMS).forEach(s -> g.edge(c.id(), g.stream(s), false));
                }
                case PRODUCER -> {
                    g.plugin(c, "box");
                    for (String s : c.get(PluginSpec.STREAMS)) {
                        if (!s.equals("*")) {
                            g.edge(g.stream(s), c.id(), false);
                        }
                    }
                }
                case ROUTER -> {
                    String stream = c.get(PluginSpec.STREAM);
                    g.plugin(c, "diamond");
                    g.edge(g.stream(stream), c.id(), false);
                    if (c.spec().params().containsKey("TargetStreams")) {
                        @SuppressWarnings("unchecked")
                        List<String> targets = c.get((io.sluice.core.config.Param<List<String>>) c.spec().params().get("TargetStreams"));
                        targets.forEach(t -> g.edge(c.id(), g.stream(t), false));
                    }
                }
            }
            String fallback = c.spec().params().containsKey(PluginSpec.FALLBACK_STREAM.name()) ? c.get(PluginSpec.FALLBACK_STREAM) : null;
            if (fallback != null && readers.contains(fallback)) {
                g.edge(c.id(), g.stream(fallback), true);
            }
        }
        if (wildcard) {
            for (PluginConfig c : configs) {
                if (c.spec().kind() == PluginKind.PRODUCER && c.get(PluginSpec.STREAMS).contains("*")) {
                    for (Node n : new ArrayList<>(g.nodes.values())) {
                        if (n.shape.equals("ellipse") && !Streams.isInternal(n.label)) {
                            g.edge(n.id, c.id(), false);
                        }
                    }
                }
            }
        }
        return g;
    }

    private void plugin(PluginConfig c, String shape) {
        StringBuilder label = new StringBuilder(c.id()).append("\\n").append(c.type());
        c.get(PluginSpec.MODULATORS).forEach(m -> label.append("\\n+ ").append(m.type()));
        nodes.putIfAbsent(c.id(), new Node(c.id(), label.toString(), shape));
    }

    private String stream(String name) {
        String id = "stream:" + name;
        nodes.putIfAbsent(id, new Node(id, name, "ellipse"));
        return id;
    }

    private void edge(String from, String to, boolean dashed) {
        edges.add(new Edge(from, to, dashed));
    }

    String dot() {
        StringBuilder b = new StringBuilder("digraph sluice {\n  rankdir=LR;\n");
        for (Node n : nodes.values()) {
            b.append("  \"").append(esc(n.id)).append("\" [label=\"").append(esc(n.label)).append("\", shape=").append(n.shape).append("];\n");
        }
        for (Edge e : edges) {
            b.append("  \"").append(esc(e.from)).append("\" -> \"").append(esc(e.to)).append('"')
                    .append(e.dashed ? " [style=dashed, label=\"fallback\"]" : "").append(";\n");
        }
        return b.append("}\n").toString();
    }

    String mermaid() {
        StringBuilder b = new StringBuilder("flowchart LR\n");
        for (Node n : nodes.values()) {
            String label = n.label.replace("\\n", "<br/>").replace("\"", "#quot;");
            String open = n.shape.equals("ellipse") ? "([\"" : n.shape.equals("diamond") ? "{\"" : "[\"";
            String close = n.shape.equals("ellipse") ? "\"])" : n.shape.equals("diamond") ? "\"}" : "\"]";
            b.append("  ").append(mid(n.id)).append(open).append(label).append(close).append('\n');
        }
        for (Edge e : edges) {
            b.append("  ").append(mid(e.from)).append(e.dashed ? " -. fallback .-> " : " --> ").append(mid(e.to)).append('\n');
        }
        return b.toString();
    }

    /** Mermaid ids allow letters, digits and underscores only. */
    static String mid(String id) {
        StringBuilder b = new StringBuilder("n_");
        for (char c : id.toCharArray()) {
            b.append(Character.isLetterOrDigit(c) ? String.valueOf(c) : "_" + Integer.toHexString(c) + "_");
        }
        return b.toString();
    }

    private static String esc(String s) {
        return s.replace("\"", "\\\"");
    }
}
