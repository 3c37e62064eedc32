package io.sluice.forward.client;

import java.io.IOException;

/** The server did not acknowledge a chunk within the ack timeout. Retryable. */
public final class AckTimeoutException extends IOException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** The chunk id that was not acknowledged. */
    private final String chunk;

    /**
     * @param chunk     the chunk id that was not acknowledged
     * @param timeoutMs the timeout that elapsed
     */
    public AckTimeoutException(String chunk, long timeoutMs) {
        super("no ack for chunk " + chunk + " within " + timeoutMs + " ms");
        this.chunk = chunk;
    }

    /** @return the chunk id that was not acknowledged */
    public String chunk() {
        return chunk;
    }
}
