package io.sluice.forward.client;

import java.io.IOException;

/**
 * The handshake failed: the server refused the shared key or credentials, or could not prove it
 * knows the shared key. Not retried, since retrying cannot fix configuration.
 */
public final class ForwardAuthenticationException extends IOException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** @param message why */
    public ForwardAuthenticationException(String message) {
        super(message);
    }
}
