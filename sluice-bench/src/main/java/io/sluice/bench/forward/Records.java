package io.sluice.bench.forward;

import java.util.LinkedHashMap;
import java.util.Map;

/** The event every Forward benchmark sends: 12 key/value pairs, as in fluent-forward-go's bm (seed 003). */
final class Records {
    static final String TAG = "bench.forward";
    static final Map<String, Object> RECORD;

    static {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("first", "Sir");
        m.put("last", "Gawain");
        m.put("enemy", "Green Knight");
        m.put("equipment", "sword");
        m.put("weapon", "axe");
        m.put("location", "Camelot");
        m.put("quest", "find the Green Chapel");
        m.put("companion", "Gringolet");
        m.put("age", 27);
        m.put("level", 42);
        m.put("score", 1234567L);
        m.put("ok", true);
        RECORD = java.util.Collections.unmodifiableMap(m);
    }

    private Records() {
    }
}
