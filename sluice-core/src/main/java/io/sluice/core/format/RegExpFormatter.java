package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code format.RegExp}: matches Expression against the content and replaces it with Template, in which
 * {@code $1}, {@code ${1}}, {@code $name} and {@code ${name}} refer to groups and {@code $$} is a dollar, as in
 * Go's {@code Regexp.Expand}. Without a match every reference expands to nothing. Go's {@code (?P<name>)} groups
 * are accepted. Java's regex engine is used: Posix (leftmost-longest) matching is not reproduced, and matching
 * works on a decoded String, so this formatter allocates per message.
 */
public final class RegExpFormatter extends SimpleFormatter {
    public static final Param<String> EXPRESSION = Param.string("Expression", "(.*)", "The regular expression.");
    public static final Param<String> TEMPLATE = Param.string("Template", "${1}",
            "The result; $n, ${n}, $name and ${name} insert groups.");
    public static final Param<Boolean> POSIX = Param.bool("Posix", true,
            "Accepted for Gollum compatibility; Java's (Perl-like) matching is used either way.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.RegExp",
            "Parses the data with a regular expression and formats the groups with a template.")
            .params(params(EXPRESSION, TEMPLATE, POSIX))
            .factory(RegExpFormatter::new);

    private final Matcher matcher;
    private final List<Object> template; // String literals, Integer group numbers, or group names as char[]

    public RegExpFormatter(PluginConfig config) {
        super(config);
        try {
            this.matcher = Pattern.compile(goSyntax(config.get(EXPRESSION))).matcher("");
        } catch (PatternSyntaxException e) {
            throw config.error(EXPRESSION, "is not a valid regular expression: " + e.getDescription());
        }
        this.template = parseTemplate(config.get(TEMPLATE));
    }

    /** Go writes named groups as (?P<name>...); Java as (?<name>...). */
    static String goSyntax(String expression) {
        return expression.replace("(?P<", "(?<");
    }

    @Override
    protected Result apply(Message m) {
        source.read(m);
        String content = new String(source.buf, source.off, source.len, StandardCharsets.UTF_8);
        matcher.reset(content);
        boolean found = matcher.find();
        StringBuilder out = new StringBuilder();
        for (Object part : template) {
            if (part instanceof String) {
                out.append((String) part);
            } else if (found) {
                appendGroup(out, part);
            }
        }
        byte[] bytes = out.toString().getBytes(StandardCharsets.UTF_8);
        target.write(m, bytes, 0, bytes.length, Metadata.STRING);
        return Result.CONTINUE;
    }

    private void appendGroup(StringBuilder out, Object ref) {
        String g = null;
        try {
            if (ref instanceof Integer) {
                int n = (Integer) ref;
                g = n <= matcher.groupCount() ? matcher.group(n) : null;
            } else {
                g = matcher.group(new String((char[]) ref));
            }
        } catch (IllegalArgumentException e) {
            g = null; // no group of that name: Go expands it to nothing
        }
        if (g != null) {
            out.append(g);
        }
    }

    /** Splits a Go template into literals and group references. */
    static List<Object> parseTemplate(String t) {
        List<Object> parts = new ArrayList<>();
        StringBuilder lit = new StringBuilder();
        int i = 0;
        while (i < t.length()) {
            char c = t.charAt(i);
            if (c != '$' || i + 1 >= t.length()) {
                lit.append(c);
                i++;
                continue;
            }
            if (t.charAt(i + 1) == '$') {
                lit.append('$');
                i += 2;
                continue;
            }
            boolean braced = t.charAt(i + 1) == '{';
            int start = braced ? i + 2 : i + 1;
            int end = start;
            while (end < t.length() && (Character.isLetterOrDigit(t.charAt(end)) || t.charAt(end) == '_')) {
                end++;
            }
            boolean closed = !braced || (end < t.length() && t.charAt(end) == '}');
            if (end == start || !closed) {
                lit.append(c); // not a valid reference: Go keeps the dollar as text
                i++;
                continue;
            }
            flush(parts, lit);
            String ref = t.substring(start, end);
            boolean number = ref.length() <= 9 && ref.chars().allMatch(d -> d >= '0' && d <= '9');
            parts.add(number ? (Object) Integer.parseInt(ref) : ref.toCharArray());
            i = braced ? end + 1 : end;
        }
        flush(parts, lit);
        return parts;
    }

    private static void flush(List<Object> parts, StringBuilder lit) {
        if (lit.length() > 0) {
            parts.add(lit.toString());
            lit.setLength(0);
        }
    }
}
