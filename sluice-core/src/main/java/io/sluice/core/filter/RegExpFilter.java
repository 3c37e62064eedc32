package io.sluice.core.filter;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code filter.RegExp}: drops messages matching FilterExpressionNot, then drops messages not matching
 * FilterExpression (an empty expression is not checked). A match may be anywhere in the content (the payload,
 * or the field ApplyTo; a missing field is empty). Gollum's code names the expressions Expression and
 * ExpressionNot, its docs FilterExpression and FilterExpressionNot: both are accepted. ASCII content is matched
 * through a view on its bytes, without decoding it to a String.
 */
public final class RegExpFilter extends SimpleFilter {
    public static final Param<String> FILTER_EXPRESSION = Param.string("FilterExpression", "",
            "Messages matching it pass; not checked when empty.");
    public static final Param<String> FILTER_EXPRESSION_NOT = Param.string("FilterExpressionNot", "",
            "Messages matching it are dropped; checked first; not checked when empty.");
    public static final Param<String> EXPRESSION = Param.string("Expression", "", "Same as FilterExpression.");
    public static final Param<String> EXPRESSION_NOT = Param.string("ExpressionNot", "", "Same as FilterExpressionNot.");
    public static final Param<String> APPLY_TO = Param.string("ApplyTo", "",
            "The metadata field to match instead of the payload; empty means the payload.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "filter.RegExp",
            "Accepts or rejects messages by regular expressions.")
            .params(params(FILTER_EXPRESSION, FILTER_EXPRESSION_NOT, EXPRESSION, EXPRESSION_NOT, APPLY_TO))
            .factory(RegExpFilter::new);

    private final Matcher accept;
    private final Matcher reject;
    private final byte[] field;
    private final AsciiView view = new AsciiView();

    public RegExpFilter(PluginConfig config) {
        super(config);
        this.accept = compile(config, config.isSet(EXPRESSION) ? EXPRESSION : FILTER_EXPRESSION);
        this.reject = compile(config, config.isSet(EXPRESSION_NOT) ? EXPRESSION_NOT : FILTER_EXPRESSION_NOT);
        String applyTo = config.get(APPLY_TO);
        this.field = applyTo.isEmpty() ? null : applyTo.getBytes(StandardCharsets.UTF_8);
    }

    private static Matcher compile(PluginConfig config, Param<String> p) {
        String expr = config.get(p);
        if (expr.isEmpty()) {
            return null;
        }
        try {
            return Pattern.compile(expr.replace("(?P<", "(?<")).matcher("");
        } catch (PatternSyntaxException e) {
            throw config.error(p, "is not a valid regular expression: " + e.getDescription());
        }
    }

    @Override
    public Result modulate(Message m) {
        CharSequence content = content(m);
        if (reject != null && reject.reset(content).find()) {
            return drop(m);
        }
        if (accept != null && !accept.reset(content).find()) {
            return drop(m);
        }
        return Result.CONTINUE;
    }

    private CharSequence content(Message m) {
        if (field == null) {
            return view.of(m.payload(), 0, m.length());
        }
        Metadata md = m.metadata();
        int i = md.indexOf(field);
        return i < 0 ? "" : view.of(md.arena(), md.valueOffset(i), md.valueLength(i));
    }

    /** A CharSequence over ASCII bytes; non-ASCII content is decoded to a String instead. */
    static final class AsciiView implements CharSequence {
        private byte[] b;
        private int off;
        private int len;

        CharSequence of(byte[] bytes, int o, int l) {
            for (int i = o; i < o + l; i++) {
                if (bytes[i] < 0) {
                    return new String(bytes, o, l, StandardCharsets.UTF_8);
                }
            }
            b = bytes;
            off = o;
            len = l;
            return this;
        }

        @Override
        public int length() {
            return len;
        }

        @Override
        public char charAt(int index) {
            return (char) b[off + index];
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new String(b, off + start, end - start, StandardCharsets.US_ASCII);
        }

        @Override
        public String toString() {
            return new String(b, off, len, StandardCharsets.US_ASCII);
        }
    }
}
