package io.sluice.core.pipeline;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * What a listener open to the network is missing: authentication, TLS, or both. Sluice listens on 127.0.0.1
 * unless told otherwise; a user who opens a port to the network without a token or without TLS should hear so,
 * with the setting that closes it: {@code sluice validate} says it before anything starts (through
 * {@link Listening}), and the listener says it once at start.
 */
public final class Exposure {
    private Exposure() {
    }

    /**
     * One listener as configured.
     *
     * @param what          the protocol, for the message ("HEC", "OTLP/gRPC")
     * @param host          the configured host (a name, an address, or empty / 0.0.0.0 for every interface)
     * @param port          the port
     * @param tls           whether it takes TLS only
     * @param authenticated whether every request or connection must authenticate
     * @param authSetting   the setting that turns authentication on, or null when the protocol has none
     */
    public record Listener(String what, String host, int port, boolean tls, boolean authenticated, String authSetting) {
    }

    /** A plugin that listens: it names its listeners so that they can be checked before anything starts. */
    public interface Listening {
        /** The listeners this plugin will open, from its validated settings. */
        List<Listener> listeners();
    }

    /** The warnings for one listener of plugin {@code id}: none on loopback, else one per missing guard. */
    public static List<String> warnings(String id, Listener l) {
        List<String> out = new ArrayList<>(2);
        if (isLoopback(l.host())) {
            return out;
        }
        String where = (l.host().isEmpty() ? "0.0.0.0" : l.host()) + ":" + l.port();
        if (!l.authenticated()) {
            out.add(id + ": " + l.what() + " on " + where + " accepts unauthenticated requests from anyone who can reach it; "
                    + (l.authSetting() == null ? "require client certificates (TLS/ClientAuth require)"
                            : "set " + l.authSetting()) + " or listen on 127.0.0.1");
        }
        if (!l.tls()) {
            out.add(id + ": " + l.what() + " on " + where + " takes plain text from the network (tokens and events "
                    + "readable on the way); set TLS/CertFile and TLS/KeyFile or listen on 127.0.0.1");
        }
        return out;
    }

    /** Whether {@code host} names this machine only: loopback addresses and names that resolve to one. */
    static boolean isLoopback(String host) {
        String h = host.trim();
        if (h.isEmpty() || h.equals("0.0.0.0") || h.equals("::") || h.equals("[::]") || h.equals("*")) {
            return false;
        }
        try {
            return InetAddress.getByName(h.replace("[", "").replace("]", "")).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
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
