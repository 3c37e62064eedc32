package io.sluice.core.admin;

import io.sluice.core.pipeline.JsonText;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginInfo;
import io.sluice.core.pipeline.PluginStats;
import java.util.List;

/** The live graph and counters as JSON, for {@code /api/plugins} and {@code sluice top}. */
final class PluginsJson {
    private PluginsJson() {
    }

    static String render(Pipeline pipeline) {
        StringBuilder b = new StringBuilder(1024);
        b.append("{\"ready\":").append(pipeline.isReady())
                .append(",\"uptimeNanos\":").append(pipeline.runNanos())
                .append(",\"unroutedDiscarded\":").append(pipeline.unroutedDiscarded())
                .append(",\"plugins\":[");
        List<PluginInfo> plugins = pipeline.plugins();
        for (int i = 0; i < plugins.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            plugin(b, plugins.get(i));
        }
        return b.append("]}").toString();
    }

    private static void plugin(StringBuilder b, PluginInfo p) {
        PluginStats s = p.stats();
        b.append("{\"id\":").append(JsonText.quote(p.id()))
                .append(",\"type\":").append(JsonText.quote(p.type()))
                .append(",\"kind\":").append(JsonText.quote(p.kind()))
                .append(",\"ready\":").append(p.ready())
                .append(",\"streams\":");
        strings(b, p.streams());
        b.append(",\"modulators\":");
        strings(b, p.modulators());
        b.append(",\"in\":").append(s.in())
                .append(",\"out\":").append(s.out())
                .append(",\"dropped\":").append(s.dropped())
                .append(",\"discarded\":").append(s.discarded())
                .append(",\"failed\":").append(s.failed())
                .append(",\"retried\":").append(s.retried())
                .append(",\"bytesOut\":").append(s.bytesOut());
        if (p.queue() != null) {
            b.append(",\"queueDepth\":").append(p.queue().depth())
                    .append(",\"queueCapacity\":").append(p.queue().capacity());
        }
        b.append('}');
    }

    private static void strings(StringBuilder b, List<String> items) {
        b.append('[');
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            JsonText.string(b, items.get(i));
        }
        b.append(']');
    }
}
