package io.sluice.core.pipeline;

/**
 * Thrown by a producer when retrying cannot help (the server refused the data as invalid, the token is wrong):
 * the batch goes straight to the fallback stream with this reason instead of being retried.
 */
public class PermanentDeliveryException extends Exception {
    private static final long serialVersionUID = 1L;

    public PermanentDeliveryException(String message) {
        super(message);
    }
}
