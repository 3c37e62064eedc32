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

    /**
     * The position of {@code given} in the collection this set was made from (the first, if it was listed twice),
     * or -1; for settings kept per token. Like {@link #contains}, every token is compared in full, and the position
     * is picked without a branch on which one matched.
     */
    public int indexOf(String given) {
        byte[] g = given.getBytes(StandardCharsets.UTF_8);
        int found = -1;
        for (int i = tokens.length - 1; i >= 0; i--) {
            int match = -(MessageDigest.isEqual(tokens[i], g) ? 1 : 0); // all ones on a match, else 0
            found = (i & match) | (found & ~match);
        }
        return found;
    }
}
