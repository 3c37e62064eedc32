package io.sluice.core.config;

/** The value types a plugin parameter can declare; each knows how to convert a YAML value. */
public enum ParamType {
    /** A 32-bit integer. */
    INT("an integer"),
    /** true or false. */
    BOOL("true or false"),
    /** A single string; numbers and booleans are accepted as their text. */
    STRING("a string"),
    /** One of a declared set of words, matched case-insensitively; {@code list} shows the set. */
    CHOICE("one of the listed values"),
    /** A duration: {@code 500ms}, {@code 30s}, {@code 1m30s}; a bare number is in the key's own unit. */
    DURATION("a duration such as 500ms or 30s"),
    /** A byte size: {@code 65536}, {@code 64KiB}, {@code 2MiB}, {@code 10MB}. */
    SIZE("a size such as 64KiB or 2MiB"),
    /** A list of strings; a single string is accepted as a list of one. */
    STRING_LIST("a string or a list of strings"),
    /** A mapping of strings to strings. */
    STRING_MAP("a mapping of names to strings"),
    /** A mapping of strings to lists of strings; a single string is accepted as a list of one. */
    STRING_LIST_MAP("a mapping of names to lists of strings"),
    /** A list of modulator names, or of name: settings mappings. */
    MODULATORS("a list of modulator names or name: settings mappings");

    private final String description;

    ParamType(String description) {
        this.description = description;
    }

    /** Human words for error messages: "expected {description}". */
    public String description() {
        return description;
    }
}
