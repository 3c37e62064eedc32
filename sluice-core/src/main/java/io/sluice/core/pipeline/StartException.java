package io.sluice.core.pipeline;

/**
 * A plugin could not start: a port that cannot be bound, a path that cannot be written. Raised by
 * {@link Pipeline#start()} before anything is accepted; the command line reports it with exit code 2.
 */
public final class StartException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** {@code plugin} could not start because of {@code cause}; the message names both. */
    public StartException(String plugin, Throwable cause) {
        super(plugin + ": " + describe(cause), cause);
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        return m == null ? t.toString() : m;
    }
}
