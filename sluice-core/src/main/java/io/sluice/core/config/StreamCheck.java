package io.sluice.core.config;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Refuses a config that writes to a stream nobody reads: such messages would vanish silently. */
final class StreamCheck {
    static final String TARGET_STREAMS = "TargetStreams";
    static final String WILDCARD = "*";

    private StreamCheck() {
    }

    static void check(List<PluginConfig> plugins) {
        Set<String> read = new HashSet<>();
        for (PluginConfig p : plugins) {
            if (!p.get(PluginSpec.ENABLE)) {
                continue;
            }
            if (p.spec().kind() == PluginKind.PRODUCER) {
                read.addAll(p.get(PluginSpec.STREAMS));
            } else if (p.spec().kind() == PluginKind.ROUTER && p.spec().params().containsKey(TARGET_STREAMS)) {
                read.add(p.get(PluginSpec.STREAM));
            }
        }
        boolean wildcard = read.contains(WILDCARD);
        for (PluginConfig p : plugins) {
            if (!p.get(PluginSpec.ENABLE)) {
                continue;
            }
            switch (p.spec().kind()) {
                case CONSUMER -> {
                    p.get(PluginSpec.STREAMS).forEach(s -> requireReader(p, PluginSpec.STREAMS, s, read, wildcard));
                }
                case ROUTER -> {
                    requireReader(p, PluginSpec.STREAM, p.get(PluginSpec.STREAM), read, wildcard);
                    if (p.spec().params().containsKey(TARGET_STREAMS)) {
                        @SuppressWarnings("unchecked")
                        Param<List<String>> targets = (Param<List<String>>) p.spec().params().get(TARGET_STREAMS);
                        p.get(targets).forEach(s -> requireReader(p, targets, s, read, wildcard));
                    }
                }
            }
            String fallback = p.spec().params().containsKey(PluginSpec.FALLBACK_STREAM.name())
                    ? p.get(PluginSpec.FALLBACK_STREAM) : PluginSpec.DROPPED_STREAM;
            requireReader(p, PluginSpec.FALLBACK_STREAM, fallback, read, wildcard);
        }
    }

    private static void requireReader(PluginConfig p, Param<?> key, String stream, Set<String> read, boolean wildcard) {
        // _DROPPED_ may go unread: what lands there is counted and discarded, as in Gollum.
        if (stream.equals(PluginSpec.DROPPED_STREAM) || read.contains(stream)) {
            return;
        }
        if (wildcard && !io.sluice.core.message.Streams.isInternal(stream)) {
            return;
        }
        throw ConfigException.at(p.file(), p.lineOf(key.name()), p.id(), key.name(),
                "stream '" + stream + "' is written but no producer reads it; add it to a producer's Streams");
    }
}
