package io.sluice.core.admin;

import io.sluice.core.json.JsonWriter;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginInfo;
import io.sluice.core.pipeline.PluginStats;
import java.util.List;

/** The live graph and counters as JSON, for {@code /api/plugins} and {@code sluice top}. */
final class PluginsJson {
    private PluginsJson() {
    }

    static String render(Pipeline pipeline) {
        JsonWriter w = new JsonWriter(1024).beginObject();
        w.name("ready").bool(pipeline.isReady())
                .name("uptimeNanos").number(pipeline.runNanos())
                .name("unroutedDiscarded").number(pipeline.unroutedDiscarded())
                .name("plugins").beginArray();
        pipeline.plugins().forEach(p -> plugin(w, p));
        return w.endArray().endObject().toString();
    }

    private static void plugin(JsonWriter w, PluginInfo p) {
        PluginStats s = p.stats();
        w.beginObject().name("id").string(p.id())
                .name("type").string(p.type())
                .name("kind").string(p.kind())
                .name("ready").bool(p.ready());
        strings(w.name("streams"), p.streams());
        strings(w.name("modulators"), p.modulators());
        w.name("in").number(s.in())
                .name("out").number(s.out())
                .name("dropped").number(s.dropped())
                .name("discarded").number(s.discarded())
                .name("failed").number(s.failed())
                .name("retried").number(s.retried())
                .name("bytesOut").number(s.bytesOut());
        if (p.queue() != null) {
            w.name("queueDepth").number(p.queue().depth())
                    .name("queueCapacity").number(p.queue().capacity());
        }
        w.endObject();
    }

    /** Writes a JSON array of strings. */
    static void strings(JsonWriter w, List<String> items) {
        w.beginArray();
        items.forEach(w::string);
        w.endArray();
    }
}
