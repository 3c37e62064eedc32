package io.sluice.core.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One declared parameter of a plugin: its name (as in Gollum), type, default and documentation.
 * The same declaration drives parsing, validation errors and {@code sluice list}.
 *
 * <p>Typed parameters check their values where they are declared instead of in plugin constructors:
 * {@link #choice} (a set of words, listed by {@code list} and suggested on a typo), {@link #millis} and
 * {@link #seconds} ({@code 500ms}, {@code 30s}; a bare number keeps the key's unit), {@link #size} and
 * {@link #sizeInt} ({@code 64KiB}, {@code 2MiB}), and {@link #between} for ranges. A key renamed for a typed
 * one stays readable: declare the old key {@link #deprecatedFor} the new one, and {@link PluginConfig#get}
 * of the new key returns the old key's value when only that is set.
 *
 * @param <T> the Java type of the converted value
 */
public final class Param<T> {
    private final String name;
    private final ParamType type;
    private final T defaultValue;
    private final String doc;
    private final boolean required;
    private final String replacedBy;
    /** CHOICE: the words allowed, in their declared spelling. */
    private final List<String> choices;
    /** The Java type of the value where the ParamType has several (a size as Integer or Long; an enum). */
    private final Class<?> valueClass;
    /** DURATION: the unit of a bare number, in milliseconds. */
    private final long bareUnitMillis;
    private final Comparable<?> min;
    private final Comparable<?> max;
    /** CHOICE: other spellings read as a choice (lower case → the choice), not listed. */
    private final Map<String, String> aliases;

    private Param(String name, ParamType type, T defaultValue, String doc, boolean required) {
        this(name, type, defaultValue, doc, required, null, List.of(), null, 1, null, null, Map.of());
    }

    private Param(String name, ParamType type, T defaultValue, String doc, boolean required, String replacedBy,
                  List<String> choices, Class<?> valueClass, long bareUnitMillis, Comparable<?> min, Comparable<?> max,
                  Map<String, String> aliases) {
        this.name = Objects.requireNonNull(name);
        this.type = type;
        this.defaultValue = defaultValue;
        this.doc = doc;
        this.required = required;
        this.replacedBy = replacedBy;
        this.choices = choices;
        this.valueClass = valueClass;
        this.bareUnitMillis = bareUnitMillis;
        this.min = min;
        this.max = max;
        this.aliases = aliases;
    }

    private Param<T> copy(String newDoc, String newReplacedBy, Comparable<?> newMin, Comparable<?> newMax) {
        return new Param<>(name, type, defaultValue, newDoc, required, newReplacedBy, choices, valueClass, bareUnitMillis,
                newMin, newMax, aliases);
    }

    /**
     * This choice parameter also reading {@code spelling} (case-insensitively) as {@code choice}: a spelling older
     * configs or other tools use ({@code optional} for {@code request}, {@code TLSv1.2} for {@code 1.2}). Not listed.
     */
    public Param<T> alias(String spelling, String choice) {
        if (type != ParamType.CHOICE || !choices.contains(choice)) {
            throw new IllegalArgumentException(name + ": '" + choice + "' is not one of " + choices);
        }
        Map<String, String> more = new java.util.HashMap<>(aliases);
        more.put(spelling.toLowerCase(java.util.Locale.ROOT), choice);
        return new Param<>(name, type, defaultValue, doc, required, replacedBy, choices, valueClass, bareUnitMillis, min,
                max, Map.copyOf(more));
    }

    /**
     * This parameter under an old name kept for one release: it reads the same, {@code list} marks it, and
     * {@link PluginConfig#deprecations()} names the replacement so that the pipeline warns when it is set.
     * When the replacement has the same Java type, {@link PluginConfig#get} of the replacement falls back to it.
     */
    public Param<T> deprecatedFor(Param<?> replacement) {
        return copy("Deprecated: use " + replacement.name() + ". " + doc, replacement.name(), min, max);
    }

    /**
     * This parameter limited to {@code [min, max]} (either may be null for no bound): a value outside is a config
     * error naming the range. For INT, DURATION and SIZE parameters.
     */
    public Param<T> between(T min, T max) {
        if (!(min == null || min instanceof Comparable) || !(max == null || max instanceof Comparable)) {
            throw new IllegalArgumentException(name + ": bounds must be comparable");
        }
        return copy(doc, replacedBy, (Comparable<?>) min, (Comparable<?>) max);
    }

    /** This parameter with a lower bound only. */
    public Param<T> atLeast(T min) {
        return between(min, null);
    }

    /**
     * A parameter that takes one of {@code choices} (matched case-insensitively, read back in the declared
     * spelling); {@code list} shows them and a typo gets "did you mean".
     */
    public static Param<String> choice(String name, String defaultValue, String doc, String... choices) {
        List<String> allowed = List.of(choices);
        if (defaultValue != null && !defaultValue.isEmpty() && !allowed.contains(defaultValue)) {
            throw new IllegalArgumentException(name + ": default '" + defaultValue + "' is not one of " + allowed);
        }
        return new Param<>(name, ParamType.CHOICE, defaultValue, doc, false, null, allowed, String.class, 1, null, null, Map.of());
    }

    /**
     * A parameter that takes one of an enum's constants, spelt as their {@code toString()} (override it for
     * spellings such as {@code drop_newest}); matched case-insensitively.
     */
    public static <E extends Enum<E>> Param<E> choice(String name, E defaultValue, String doc) {
        Class<E> type = defaultValue.getDeclaringClass();
        List<String> allowed = Arrays.stream(type.getEnumConstants()).map(E::toString).toList();
        return new Param<>(name, ParamType.CHOICE, defaultValue, doc, false, null, allowed, type, 1, null, null,
                Map.of());
    }

    /**
     * A duration read as whole milliseconds, for the {@code …Ms} keys Gollum and older configs write as integers:
     * {@code 2500} still means 2500 ms, and {@code 2.5s} now means the same.
     */
    public static Param<Integer> millis(String name, int defaultMillis, String doc) {
        return new Param<>(name, ParamType.DURATION, defaultMillis, doc, false, null, List.of(), Integer.class, 1,
                null, null, Map.of());
    }

    /** A duration read as whole seconds, for the {@code …Sec} keys: a bare number is seconds, {@code 500ms} rounds down. */
    public static Param<Integer> seconds(String name, int defaultSeconds, String doc) {
        return new Param<>(name, ParamType.DURATION, defaultSeconds, doc, false, null, List.of(), Integer.class, 1000,
                null, null, Map.of());
    }

    /** A byte size ({@code 65536}, {@code 64KiB}, {@code 2MiB}, {@code 10MB}). */
    public static Param<Long> size(String name, long defaultBytes, String doc) {
        return new Param<>(name, ParamType.SIZE, defaultBytes, doc, false, null, List.of(), Long.class, 1, null, null, Map.of());
    }

    /** A byte size that fits an int (buffers, request bodies). */
    public static Param<Integer> sizeInt(String name, int defaultBytes, String doc) {
        return new Param<>(name, ParamType.SIZE, defaultBytes, doc, false, null, List.of(), Integer.class, 1, null,
                null, Map.of());
    }

    /**
     * Converts a value written in a config to this parameter's Java type, for the typed kinds (CHOICE, DURATION,
     * SIZE), and checks its range.
     *
     * @throws IllegalArgumentException with a message fit for a config error
     */
    Object convertTyped(String text) {
        Object value = switch (type) {
            case CHOICE -> matchChoice(text.trim());
            case DURATION -> {
                Duration d = Units.parseDuration(text, bareUnitMillis);
                yield narrow(bareUnitMillis == 1 ? d.toMillis() : d.toSeconds());
            }
            case SIZE -> narrow(Units.parseSize(text));
            default -> throw new IllegalStateException(type + " is not typed");
        };
        checkRange(value);
        return value;
    }

    private Object matchChoice(String text) {
        String aliased = aliases.get(text.toLowerCase(java.util.Locale.ROOT));
        if (aliased != null) {
            text = aliased;
        }
        for (int i = 0; i < choices.size(); i++) {
            if (choices.get(i).equalsIgnoreCase(text)) {
                return valueClass.isEnum() ? valueClass.getEnumConstants()[i] : choices.get(i);
            }
        }
        throw new IllegalArgumentException("expected one of " + String.join(", ", choices) + ", found '" + text + "'"
                + Suggest.didYouMean(text, choices));
    }

    private Object narrow(long n) {
        if (valueClass == Integer.class) {
            if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("value " + n + " is out of range for an integer");
            }
            return (int) n;
        }
        return n;
    }

    /**
     * Checks a converted value against {@link #between} bounds.
     *
     * @throws IllegalArgumentException naming the range
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    void checkRange(Object value) {
        if (value == null || (min == null && max == null)) {
            return;
        }
        Comparable v = (Comparable) value;
        if ((min != null && v.compareTo(min) < 0) || (max != null && v.compareTo(max) > 0)) {
            throw new IllegalArgumentException("value " + show(value) + " is out of range: " + rangeText());
        }
    }

    private String rangeText() {
        if (max == null) {
            return "at least " + show(min);
        }
        if (min == null) {
            return "at most " + show(max);
        }
        return "from " + show(min) + " to " + show(max);
    }

    /** A value as a user would write it for this parameter. */
    private String show(Object value) {
        return switch (type) {
            case DURATION -> Units.formatDuration(Duration.ofMillis(((Number) value).longValue() * bareUnitMillis));
            case SIZE -> Units.formatSize(((Number) value).longValue());
            default -> String.valueOf(value);
        };
    }

    /** The name that replaces this deprecated parameter, or null when it is current. */
    public String replacedBy() {
        return replacedBy;
    }

    /** An integer parameter. */
    public static Param<Integer> integer(String name, int defaultValue, String doc) {
        return new Param<>(name, ParamType.INT, defaultValue, doc, false);
    }

    /** A boolean parameter. */
    public static Param<Boolean> bool(String name, boolean defaultValue, String doc) {
        return new Param<>(name, ParamType.BOOL, defaultValue, doc, false);
    }

    /** A string parameter. */
    public static Param<String> string(String name, String defaultValue, String doc) {
        return new Param<>(name, ParamType.STRING, defaultValue, doc, false);
    }

    /** A string parameter that must be set. */
    public static Param<String> requiredString(String name, String doc) {
        return new Param<>(name, ParamType.STRING, null, doc, true);
    }

    /** A list-of-strings parameter (a single string is a list of one). */
    public static Param<List<String>> strings(String name, List<String> defaultValue, String doc) {
        return new Param<>(name, ParamType.STRING_LIST, List.copyOf(defaultValue), doc, false);
    }

    /** A string-to-string mapping parameter. */
    public static Param<Map<String, String>> stringMap(String name, String doc) {
        return new Param<>(name, ParamType.STRING_MAP, Map.of(), doc, false);
    }

    /** A mapping of names to lists of strings (a single string is a list of one), in the order written. */
    public static Param<Map<String, List<String>>> stringListMap(String name, String doc) {
        return new Param<>(name, ParamType.STRING_LIST_MAP, Map.of(), doc, false);
    }

    /** The Modulators parameter: a list of modulator configs. */
    public static Param<List<PluginConfig>> modulators(String name, String doc) {
        return new Param<>(name, ParamType.MODULATORS, List.of(), doc, false);
    }

    public String name() {
        return name;
    }

    public ParamType type() {
        return type;
    }

    public T defaultValue() {
        return defaultValue;
    }

    /** The documentation, with the choices, units or range the type adds, as {@code list} and the docs show it. */
    public String doc() {
        StringBuilder b = new StringBuilder(doc == null ? "" : doc);
        if (type == ParamType.CHOICE) {
            b.append(b.length() > 0 ? " " : "").append("One of: ").append(String.join(", ", choices)).append('.');
        } else if (type == ParamType.DURATION) {
            b.append(" Takes 500ms, 30s, 5m; a bare number is ").append(bareUnitMillis == 1 ? "milliseconds" : "seconds")
                    .append('.');
        } else if (type == ParamType.SIZE) {
            b.append(" Takes 64KiB, 2MiB.");
        }
        if (min != null || max != null) {
            b.append(" Range: ").append(rangeText()).append('.');
        }
        return b.toString();
    }

    public boolean required() {
        return required;
    }

    /** The default as a user would write it in YAML, for docs and {@code sluice list}. */
    public String defaultText() {
        if (required) {
            return "(required)";
        }
        if (defaultValue == null) {
            return "\"\"";
        }
        if (defaultValue instanceof String) {
            return '"' + ((String) defaultValue).replace("\n", "\\n").replace("\t", "\\t") + '"';
        }
        return type == ParamType.SIZE ? show(defaultValue) : String.valueOf(defaultValue);
    }

    @Override
    public String toString() {
        return name + " (" + type + ")";
    }
}
