package io.sluice.core.format;

/** Gollum expands \n, \r and \t written literally in prefixes and postfixes (single-quoted YAML keeps them). */
final class Escapes {
    private Escapes() {
    }

    static String expand(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        return s.replace("\\n", "\n").replace("\\r", "\r").replace("\\t", "\t");
    }
}
