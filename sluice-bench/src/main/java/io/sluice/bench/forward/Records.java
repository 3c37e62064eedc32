package io.sluice.bench.forward;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The event every Forward benchmark sends: 12 key/value pairs, as in fluent-forward-go's bm (seed 003). */
final class Records {
    static final String TAG = "bench.forward";
    static final Map<String, Object> RECORD = ordered("first", "Sir", "last", "Gawain", "enemy", "Green Knight",
            "equipment", "sword", "weapon", "axe", "location", "Camelot", "quest", "find the Green Chapel",
            "companion", "Gringolet", "age", 27, "level", 42, "score", 1234567L, "ok", true);

    private Records() {
    }

    /** Keys and values in turn, kept in that order (the order the senders encode them in). */
    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return Collections.unmodifiableMap(m);
    }
}
