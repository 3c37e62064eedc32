package io.sluice.core.format;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonStrings;
import io.sluice.core.json.JsonWriter;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One parsed {@code format.ProcessJSON} directive, applied to the fields of one object. Over 400 lines because it
 * holds Gollum's twelve directive actions, each a few lines over the shared {@link Work} scratch; splitting them
 * per action would spread one switch over twelve classes.
 */
final class Directive {
    enum Action { RENAME, REMOVE, SPLIT, PICK, TIME, UNIXTIMESTAMP, REPLACE, TRIM, FLATTEN, AGENT, IP, GEOIP }

    /** Per-instance scratch state the directives share. */
    static final class Work {
        final Metadata values;
        final JsonScanner scanner;
        final JsonFields fields = new JsonFields();
        final JsonWriter writer = new JsonWriter();
        final Splitter splitter = new Splitter();
        byte[] scratch = new byte[128];

        Work(Metadata values, JsonScanner scanner) {
            this.values = values;
            this.scanner = scanner;
        }

        byte[] scratch(int n) {
            if (scratch.length < n) {
                scratch = new byte[Math.max(n, scratch.length * 2)];
            }
            return scratch;
        }
    }

    private final byte[] key;
    private final String keyText;
    private final Action action;
    private final String[] params;
    private final byte[][] paramBytes;
    /** The key and the parameters as prepared metadata keys (rename and split name fields with them). */
    private final Metadata.Key prepared;
    private final Metadata.Key[] paramKeys;
    private DateTimeFormatter from;
    private DateTimeFormatter to;
    private int fromLength;

    private Directive(String key, Action action, String[] params) {
        this.keyText = key;
        this.key = bytes(key);
        this.action = action;
        this.params = params;
        this.paramBytes = new byte[params.length][];
        this.prepared = new Metadata.Key(key);
        this.paramKeys = new Metadata.Key[params.length];
        for (int i = 0; i < params.length; i++) {
            paramBytes[i] = bytes(params[i]);
            paramKeys[i] = new Metadata.Key(params[i]);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Parses {@code key:action:params}, with {@code \:} standing for a colon, as Gollum does. */
    static Directive parse(String text) {
        String[] parts = text.replace("\\:", "\r").split(":", -1);
        Arrays.setAll(parts, i -> parts[i].replace('\r', ':'));
        if (parts.length < 2) {
            throw new IllegalArgumentException("expected key:action[:parameters]");
        }
        Action action;
        try {
            action = Action.valueOf(parts[1].toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown action '" + parts[1] + "' (known: "
                    + Arrays.toString(Action.values()).toLowerCase(Locale.ROOT) + ")");
        }
        String[] params = Arrays.stream(parts, 2, parts.length).map(Escapes::expand).toArray(String[]::new);
        Directive d = new Directive(parts[0], action, params);
        d.check();
        return d;
    }

    /** Rejects at start-up what Gollum would have panicked on or silently ignored. */
    private void check() {
        int n = params.length;
        boolean ok = switch (action) {
            case RENAME -> n == 1;
            case REPLACE -> n == 2;
            case SPLIT -> n >= 2 && !params[0].isEmpty();
            case PICK -> n == 2 && params[0].matches("-?\\d+");
            case TIME -> n == 2;
            case UNIXTIMESTAMP -> n == 2 && (params[0].equals("s") || params[0].equals("ms") || params[0].equals("ns"));
            case TRIM, FLATTEN -> n <= 1;
            default -> true;
        };
        if (!ok) {
            throw new IllegalArgumentException("wrong parameters for " + action.name().toLowerCase(Locale.ROOT));
        }
        if (action == Action.TIME) {
            from = DateTimeFormatter.ofPattern(GoLayout.parse(params[0]).javaPattern(), Locale.ENGLISH);
            fromLength = paramBytes[0].length;
            to = DateTimeFormatter.ofPattern(GoLayout.parse(params[1]).javaPattern(), Locale.ENGLISH);
        } else if (action == Action.UNIXTIMESTAMP) {
            to = DateTimeFormatter.ofPattern(GoLayout.parse(params[1]).javaPattern(), Locale.ENGLISH)
                    .withZone(ZoneId.systemDefault());
        }
    }

    void apply(Work w) {
        int i = w.values.indexOf(prepared);
        if (i < 0) {
            return;
        }
        switch (action) {
            case RENAME -> w.values.rename(i, paramKeys[0]);
            case REMOVE -> remove(w, i);
            case SPLIT -> split(w, i);
            case PICK -> pick(w, i);
            case FLATTEN -> flatten(w, i);
            case IP -> ip(w, i);
            case GEOIP -> { } // no database: Gollum does nothing either
            case AGENT -> agent(w, i);
            default -> text(w, i);
        }
    }

    private void remove(Work w, int i) {
        if (params.length == 0) {
            w.values.remove(i);
            return;
        }
        rewriteArray(w, i, false);
    }

    /**
     * Rewrites the array in field {@code i}: without {@code ipOnly} it drops strings equal to a parameter, with
     * it strings that are not IP addresses. A single string becomes a one-element array first (ip only).
     */
    private void rewriteArray(Work w, int i, boolean ipOnly) {
        Metadata v = w.values;
        byte[] a = v.arena();
        int vo = v.valueOffset(i);
        int vl = v.valueLength(i);
        boolean single = ipOnly && v.kind(i) == Metadata.STRING;
        if (!single && (v.kind(i) != Metadata.JSON || !w.scanner.scanArray(a, vo, vo + vl, w.fields))) {
            return;
        }
        w.writer.reset().beginArray();
        if (single) {
            if (IpLiteral.isValid(new String(a, vo, vl, StandardCharsets.UTF_8))) {
                w.writer.string(a, vo, vl);
            }
        } else {
            for (int e = 0; e < w.fields.size(); e++) {
                if (keep(w, a, e, ipOnly)) {
                    int eo = w.fields.valueOffset(e);
                    int el = w.fields.valueLength(e);
                    if (w.fields.kind(e) == JsonFields.STRING) {
                        w.writer.rawString(a, eo, el);
                    } else {
                        w.writer.raw(a, eo, el);
                    }
                }
            }
        }
        w.writer.endArray();
        v.set(key, 0, key.length, w.writer.buffer(), 0, w.writer.length(), Metadata.JSON);
    }

    private boolean keep(Work w, byte[] a, int e, boolean ipOnly) {
        if (w.fields.kind(e) != JsonFields.STRING) {
            return true;
        }
        String s = elementString(w, a, e);
        if (ipOnly) {
            return IpLiteral.isValid(s);
        }
        for (String p : params) {
            if (p.equals(s)) {
                return false;
            }
        }
        return true;
    }

    private static String elementString(Work w, byte[] a, int e) {
        int eo = w.fields.valueOffset(e);
        int el = w.fields.valueLength(e);
        if (!w.fields.valueEscaped(e)) {
            return new String(a, eo, el, StandardCharsets.UTF_8);
        }
        byte[] s = w.scratch(el);
        return new String(s, 0, JsonStrings.unescape(a, eo, el, s, 0), StandardCharsets.UTF_8);
    }

    private void split(Work w, int i) {
        Metadata v = w.values;
        if (v.kind(i) != Metadata.STRING) {
            return;
        }
        boolean raw = v.isRawJson(i) && !v.isEscaped(i);
        int vo = v.valueOffset(i);
        int vl = v.valueLength(i);
        byte[] token = paramBytes[0];
        int max = params.length - 1;
        // With two or more target keys, a split into fewer than two parts means the delimiter is absent: no
        // separate search for it first.
        if (max < 2 && Splitter.indexOf(v.arena(), vo, vo + vl, token) < 0) {
            return;
        }
        int n = w.splitter.split(v.arena(), vo, vl, token, max);
        if (max >= 2 && n < 2) {
            return;
        }
        for (int p = 0; p < n; p++) {
            v.setKeyRange(paramKeys[p + 1], w.splitter.start(p), w.splitter.length(p), Metadata.STRING, raw);
        }
    }

    private void pick(Work w, int i) {
        Metadata v = w.values;
        byte[] a = v.arena();
        int vo = v.valueOffset(i);
        int vl = v.valueLength(i);
        if (v.kind(i) != Metadata.JSON || !w.scanner.scanArray(a, vo, vo + vl, w.fields)) {
            return;
        }
        int index = Integer.parseInt(params[0]);
        if (index < 0) {
            index += w.fields.size(); // Gollum computed len - index here, which is always out of bounds
        }
        if (index < 0 || index >= w.fields.size()) {
            return;
        }
        setFromElement(w, a, index, paramBytes[1]);
    }

    /** Sets field {@code name} to element/member {@code e} of the last scan over {@code a}. */
    private static void setFromElement(Work w, byte[] a, int e, byte[] name) {
        int eo = w.fields.valueOffset(e);
        int el = w.fields.valueLength(e);
        if (w.fields.valueEscaped(e)) {
            byte[] s = w.scratch(el);
            w.values.set(name, 0, name.length, s, 0, JsonStrings.unescape(a, eo, el, s, 0), Metadata.STRING);
        } else {
            w.values.set(name, 0, name.length, a, eo, el, Kinds.toMetadata(w.fields.kind(e)));
        }
    }

    private void flatten(Work w, int i) {
        Metadata v = w.values;
        byte[] a = v.arena();
        int vo = v.valueOffset(i);
        int vl = v.valueLength(i);
        boolean object = vl > 0 && a[vo] == '{';
        if (v.kind(i) != Metadata.JSON || !(object ? w.scanner.scanObject(a, vo, vo + vl, w.fields)
                : w.scanner.scanArray(a, vo, vo + vl, w.fields))) {
            return;
        }
        String delimiter = params.length == 1 ? params[0] : ".";
        List<byte[]> names = new ArrayList<>(w.fields.size());
        for (int e = 0; e < w.fields.size(); e++) {
            String sub = object ? memberName(w, a, e) : Integer.toString(e);
            names.add(bytes(keyText + delimiter + sub));
        }
        v.remove(i);
        for (int e = 0; e < names.size(); e++) {
            setFromElement(w, a, e, names.get(e));
        }
    }

    private static String memberName(Work w, byte[] a, int e) {
        int ko = w.fields.keyOffset(e);
        int kl = w.fields.keyLength(e);
        if (!w.fields.keyEscaped(e)) {
            return new String(a, ko, kl, StandardCharsets.UTF_8);
        }
        byte[] s = new byte[kl];
        return new String(s, 0, JsonStrings.unescape(a, ko, kl, s, 0), StandardCharsets.UTF_8);
    }

    private void ip(Work w, int i) {
        rewriteArray(w, i, true);
    }

    private void agent(Work w, int i) {
        if (w.values.kind(i) != Metadata.STRING) {
            return;
        }
        UserAgent ua = UserAgent.parse(w.values.value(i));
        String[] wanted = params.length > 0 ? params : UserAgent.FIELDS;
        for (String field : wanted) {
            String value = ua.field(field);
            if (value != null) {
                w.values.setString(keyText + "_" + field, value);
            }
        }
    }

    /** The string directives: time, unixtimestamp, replace, trim. These work on Strings and allocate. */
    private void text(Work w, int i) {
        Metadata v = w.values;
        byte kind = v.kind(i);
        String result;
        if (action == Action.UNIXTIMESTAMP) {
            result = kind == Metadata.NUMBER ? unixTime(v.value(i)) : null;
        } else if (kind != Metadata.STRING) {
            return;
        } else if (action == Action.TIME) {
            result = time(v, i);
        } else if (action == Action.REPLACE) {
            result = v.value(i).replace(params[0], params[1]);
        } else {
            result = trim(v.value(i), params.length == 0 ? " \t" : params[0]);
        }
        if (result != null) {
            byte[] b = bytes(result);
            v.set(key, 0, key.length, b, 0, b.length, Metadata.STRING);
        }
    }

    /** Parses the first len(layout) bytes with the from layout (UTC unless it names a zone), formats with to. */
    private String time(Metadata v, int i) {
        int vl = v.valueLength(i);
        if (vl < fromLength) {
            return null;
        }
        String text = new String(v.arena(), v.valueOffset(i), fromLength, StandardCharsets.UTF_8);
        try {
            TemporalAccessor t = from.parse(text);
            ZonedDateTime z = t.isSupported(ChronoField.OFFSET_SECONDS) ? ZonedDateTime.from(t)
                    : LocalDateTime.from(t).atZone(ZoneOffset.UTC);
            return to.format(z);
        } catch (RuntimeException e) {
            return null; // Gollum logs a warning and leaves the value
        }
    }

    private String unixTime(String number) {
        long n;
        try {
            n = (long) Double.parseDouble(number);
        } catch (NumberFormatException e) {
            return null;
        }
        return to.format(switch (params[0]) {
            case "s" -> Instant.ofEpochSecond(n);
            case "ms" -> Instant.ofEpochMilli(n);
            default -> Instant.ofEpochSecond(0, n);
        });
    }

    /** Go's strings.Trim: removes every leading and trailing code point found in the cutset. */
    static String trim(String s, String cutset) {
        int start = 0;
        int end = s.length();
        while (start < end && cutset.indexOf(s.codePointAt(start)) >= 0) {
            start += Character.charCount(s.codePointAt(start));
        }
        while (end > start && cutset.indexOf(s.codePointBefore(end)) >= 0) {
            end -= Character.charCount(s.codePointBefore(end));
        }
        return s.substring(start, end);
    }
}
