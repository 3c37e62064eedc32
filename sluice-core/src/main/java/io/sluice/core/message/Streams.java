package io.sluice.core.message;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Stream names and their small integer ids. Messages carry the id, so routing is an array lookup.
 * The registry is process-wide and append-only, as in Gollum: a name always maps to the same id.
 */
public final class Streams {
    /** Id of the stream filtered messages go to by default. */
    public static final int DROPPED;
    /** Id of the wildcard stream: producers subscribed to it read every stream. */
    public static final int WILDCARD;

    private static final ConcurrentHashMap<String, Integer> IDS = new ConcurrentHashMap<>();
    private static final CopyOnWriteArrayList<String> NAMES = new CopyOnWriteArrayList<>();

    static {
        WILDCARD = id("*");
        DROPPED = id("_DROPPED_");
    }

    private Streams() {
    }

    /** The id of a stream name, registering it on first use. */
    public static int id(String name) {
        Integer id = IDS.get(name);
        if (id != null) {
            return id;
        }
        synchronized (NAMES) {
            return IDS.computeIfAbsent(name, n -> {
                NAMES.add(n);
                return NAMES.size() - 1;
            });
        }
    }

    /** The name of a stream id. */
    public static String name(int id) {
        return id >= 0 && id < NAMES.size() ? NAMES.get(id) : "<unset>";
    }

    /**
     * Whether a stream is internal (its name starts with '_', as {@code _DROPPED_}): wildcard ({@code "*"})
     * producers do not read it; only producers naming it do.
     */
    public static boolean isInternal(String name) {
        return name.startsWith("_");
    }

    /** How many ids exist so far. */
    public static int count() {
        return NAMES.size();
    }
}
