package io.sluice.forward.consumer;

import io.sluice.core.message.Streams;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Maps a Forward tag to a stream id with Fluentd's match patterns, first match wins: tags are dot-separated
 * parts; {@code *} matches one part (or any characters inside a part, as in {@code app*}), {@code **} zero or
 * more parts, {@code {a,b}} either alternative. A tag no pattern matches goes to the stream named like the tag,
 * or, when {@code fallbackToConsumerStreams} is set, keeps the consumer's own Streams (reported as
 * {@link Streams#WILDCARD}, which the pipeline replaces with them).
 *
 * <p>Results are cached per tag (a bounded number of distinct tags), so routing costs one map lookup per frame.
 * Thread-safe.
 */
final class TagRoutes {
    private static final int MAX_CACHED_TAGS = 10_000;

    private final List<Route> routes = new ArrayList<>();
    private final boolean fallbackToConsumerStreams;
    private final ConcurrentHashMap<String, Integer> cache = new ConcurrentHashMap<>();

    private record Route(String[] parts, Pattern[] globs, int stream) {
    }

    /**
     * @param patterns                  tag pattern to stream name, in the order to try
     * @param fallbackToConsumerStreams true: unmatched tags keep the consumer's Streams; false: the tag is the
     *                                  stream name
     */
    TagRoutes(Map<String, String> patterns, boolean fallbackToConsumerStreams) {
        this.fallbackToConsumerStreams = fallbackToConsumerStreams;
        for (Map.Entry<String, String> e : patterns.entrySet()) {
            String[] parts = e.getKey().split("\\.", -1);
            Pattern[] globs = new Pattern[parts.length];
            for (int i = 0; i < parts.length; i++) {
                if (!parts[i].equals("**")) {
                    globs[i] = Pattern.compile(glob(parts[i]));
                }
            }
            routes.add(new Route(parts, globs, Streams.id(e.getValue())));
        }
    }

    /** Checks a pattern's syntax; returns null when valid, else the problem. */
    static String check(String pattern) {
        if (pattern.isEmpty()) {
            return "an empty tag pattern matches nothing";
        }
        int depth = 0;
        for (char c : pattern.toCharArray()) {
            depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            if (depth < 0 || depth > 1) {
                return "unbalanced or nested braces in '" + pattern + "'";
            }
        }
        return depth == 0 ? null : "unbalanced braces in '" + pattern + "'";
    }

    /** The stream for a tag: a matched route's stream, the tag's own stream, or {@link Streams#WILDCARD}. */
    int streamFor(String tag) {
        Integer cached = cache.get(tag);
        if (cached != null) {
            return cached;
        }
        int id = resolve(tag);
        if (cache.size() < MAX_CACHED_TAGS) {
            cache.put(tag, id);
        }
        return id;
    }

    private int resolve(String tag) {
        String[] parts = tag.split("\\.", -1);
        for (Route r : routes) {
            if (matches(r.parts, r.globs, 0, parts, 0)) {
                return r.stream;
            }
        }
        return fallbackToConsumerStreams ? Streams.WILDCARD : Streams.id(tag);
    }

    private static boolean matches(String[] p, Pattern[] globs, int pi, String[] t, int ti) {
        if (pi == p.length) {
            return ti == t.length;
        }
        if (p[pi].equals("**")) {
            for (int k = ti; k <= t.length; k++) {
                if (matches(p, globs, pi + 1, t, k)) {
                    return true;
                }
            }
            return false;
        }
        return ti < t.length && globs[pi].matcher(t[ti]).matches() && matches(p, globs, pi + 1, t, ti + 1);
    }

    /** One tag part's glob as a regex: {@code *} within the part, {@code {a,b}} alternatives. */
    private static String glob(String part) {
        StringBuilder re = new StringBuilder();
        StringBuilder literal = new StringBuilder();
        boolean inBraces = false;
        for (char c : part.toCharArray()) {
            if (c == '*' || c == '{' || c == '}' || (c == ',' && inBraces)) {
                if (literal.length() > 0) {
                    re.append(Pattern.quote(literal.toString()));
                    literal.setLength(0);
                }
                switch (c) {
                    case '*' -> re.append("[^.]*");
                    case '{' -> {
                        re.append("(?:");
                        inBraces = true;
                    }
                    case '}' -> {
                        re.append(')');
                        inBraces = false;
                    }
                    default -> re.append('|');
                }
            } else {
                literal.append(c);
            }
        }
        if (literal.length() > 0) {
            re.append(Pattern.quote(literal.toString()));
        }
        return re.toString();
    }
}
