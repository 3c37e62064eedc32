package io.sluice.core.pipeline;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collection;

/**
 * The tokens a listener accepts (HEC's {@code Tokens}, OTLP's {@code BearerTokens}), checked so that the time an
 * answer takes tells nothing about them: every token is compared in full, in constant time, whatever matched before.
 * A {@code Set.contains} would return at the first difference of the first bucket it hashed to.
 */
public final class TokenSet {
    private final byte[][] tokens;

    public TokenSet(Collection<String> tokens) {
        this.tokens = tokens.stream().map(t -> t.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    }

    /** Whether no token is configured (the listener then checks nothing). */
    public boolean isEmpty() {
        return tokens.length == 0;
    }

    /** Whether {@code given} is one of the tokens. */
    public boolean contains(String given) {
        byte[] g = given.getBytes(StandardCharsets.UTF_8);
        boolean found = false;
        for (byte[] t : tokens) {
            found |= MessageDigest.isEqual(t, g);
        }
        return found;
    }
}
