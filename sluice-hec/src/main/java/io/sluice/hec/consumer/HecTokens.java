package io.sluice.hec.consumer;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.sluice.core.pipeline.TokenSet;
import java.util.List;

/**
 * consumer.HEC's {@code Tokens} and the index rules of each ({@code TokenIndexes}, {@code TokenDefaultIndex}):
 * Splunk's {@code Authorization: Splunk <token>}, the token compared in constant time.
 */
final class HecTokens {
    /** The one authorization scheme HEC takes. */
    private static final String SCHEME = "Splunk";

    private final TokenSet tokens;
    /** Per token (in the order of {@link #tokens}), its index rules or null; null when no token has any. */
    private final TokenIndexes[] tokenIndexes;

    HecTokens(HecServer.Settings settings) {
        List<String> tokenList = List.copyOf(settings.tokens);
        this.tokens = new TokenSet(tokenList);
        this.tokenIndexes = TokenIndexes.of(tokenList, settings.tokenDefaultIndex, settings.tokenIndexes,
                settings.indexes);
    }

    /**
     * Splunk's token rules: no header → 2, not "Splunk <t>" → 3, unknown token → 4. Null when fine, with the
     * token's index rules in the request (looked up here, once per request, and only when some token has any).
     */
    HecStatus authorize(HecRequest q) {
        if (tokens.isEmpty()) {
            return null;
        }
        String h = q.head.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (h == null || h.isBlank()) {
            return HecStatus.TOKEN_REQUIRED;
        }
        // The scheme is exactly "Splunk" (any case): "S <token>" or "Spl <token>" are not it.
        int sp = h.indexOf(' ');
        if (sp != SCHEME.length() || !h.regionMatches(true, 0, SCHEME, 0, sp)) {
            return HecStatus.INVALID_AUTHORIZATION;
        }
        String given = h.substring(sp + 1).trim();
        if (tokenIndexes == null) {
            return tokens.contains(given) ? null : HecStatus.INVALID_TOKEN;
        }
        int i = tokens.indexOf(given);
        if (i < 0) {
            return HecStatus.INVALID_TOKEN;
        }
        q.indexRules = tokenIndexes[i];
        return null;
    }
}
