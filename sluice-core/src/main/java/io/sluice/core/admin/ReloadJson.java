package io.sluice.core.admin;

import io.sluice.core.json.JsonWriter;
import io.sluice.core.pipeline.ReloadResult;

/** A reload's outcome as JSON, the answer of {@code POST /api/reload}. */
final class ReloadJson {
    private ReloadJson() {
    }

    static String render(ReloadResult r) {
        JsonWriter w = new JsonWriter(256).beginObject();
        w.name("ok").bool(r.ok()).name("changed").bool(r.changed());
        PluginsJson.strings(w.name("added"), r.added());
        PluginsJson.strings(w.name("replaced"), r.replaced());
        PluginsJson.strings(w.name("removed"), r.removed());
        w.name("kept").number(r.kept());
        if (r.error() != null) {
            w.name("error").string(r.error());
        }
        return w.name("summary").string(r.summary()).endObject().toString() + "\n";
    }

}
