package io.sluice.core.pipeline;

import java.net.InetSocketAddress;

/**
 * The warning a listener logs at start when it takes requests from anyone who can reach it: no authentication, on
 * an address other than loopback. Sluice listens on 127.0.0.1 unless told otherwise; a user who opens a port to the
 * network without a token should hear so once, with the setting that closes it.
 */
public final class Exposure {
    private Exposure() {
    }

    /**
     * Logs a WARN when {@code bound} is not a loopback address and {@code authenticated} is false.
     *
     * @param id      the plugin id
     * @param bound   the address the listener bound
     * @param setting the setting that turns authentication on (named in the warning)
     * @return whether it warned
     */
    public static boolean warnIfOpen(Log log, String id, InetSocketAddress bound, boolean authenticated, String setting) {
        if (authenticated || bound == null || bound.getAddress() == null || bound.getAddress().isLoopbackAddress()) {
            return false;
        }
        log.warn(id + ": accepts unauthenticated requests from anyone who can reach " + bound
                + "; set " + setting + " or listen on 127.0.0.1");
        return true;
    }
}
