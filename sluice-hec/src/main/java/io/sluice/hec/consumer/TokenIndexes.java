package io.sluice.hec.consumer;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * One token's index rules, Splunk's {@code [http://name]} {@code index} and {@code indexes}: the index its events
 * get when they name none, and the indexes they may name. Built once at start (from settings {@code consumer.HEC}
 * already validated) and looked up once per request, so a request's events cost no more than with the global rules.
 */
final class TokenIndexes {
    /** The token's default index as request defaults (only {@code index} set); shared by requests, never modified. */
    final EventParser.Defaults defaults;
    /** The indexes the token's events may name: its own list, else the receiver's {@code Indexes}; null for any. */
    final byte[][] allowed;

    private TokenIndexes(String defaultIndex, byte[][] allowed) {
        this.defaults = new EventParser.Defaults();
        this.defaults.index = defaultIndex.getBytes(StandardCharsets.UTF_8);
        this.allowed = allowed;
    }

    /**
     * The rules of each token, in the order of {@code tokens} (null for a token with none); null when no token has
     * any, so that the common case looks nothing up.
     *
     * @param defaults token to default index; a token listed in {@code allowed} without one gets its first index
     * @param allowed  token to allowed indexes
     * @param global   the receiver's {@code Indexes} (null: any), what a token without its own list may write
     */
    static TokenIndexes[] of(List<String> tokens, Map<String, String> defaults, Map<String, List<String>> allowed,
                             byte[][] global) {
        if (defaults.isEmpty() && allowed.isEmpty()) {
            return null;
        }
        TokenIndexes[] rules = new TokenIndexes[tokens.size()];
        for (int i = 0; i < rules.length; i++) {
            String t = tokens.get(i);
            List<String> own = allowed.get(t);
            String dflt = defaults.containsKey(t) ? defaults.get(t) : own == null ? null : own.get(0);
            if (dflt != null) {
                rules[i] = new TokenIndexes(dflt, own != null ? bytes(own) : global);
            }
        }
        return rules;
    }

    /** The names as UTF-8. */
    static byte[][] bytes(List<String> names) {
        return names.stream().map(s -> s.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    }
}
