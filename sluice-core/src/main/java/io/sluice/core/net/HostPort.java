package io.sluice.core.net;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.Locale;

/**
 * A listen or connect address as Gollum and Fluent Bit users write it: {@code host:port}, {@code :port} (every
 * interface), {@code [::1]:port}, optionally behind a transport scheme ({@code tcp://}, {@code udp://},
 * {@code unix:///path}). The one parser of addresses for every network plugin.
 *
 * @param host the host name or literal, without IPv6 brackets; {@code 0.0.0.0} for {@code :port}. Null for unix.
 * @param path the socket file of a unix address, else null
 */
public record HostPort(HostPort.Transport transport, String host, int port, String path) {
    /** Transport of an address. */
    public enum Transport { TCP, UDP, UNIX }

    /**
     * Parses a TCP address ({@code host:port}, {@code :port}, {@code [v6]:port}, {@code tcp://…}).
     *
     * @throws IllegalArgumentException with a message fit for a config error
     */
    public static HostPort parse(String text) {
        HostPort a = parse(text, Transport.TCP);
        if (a.transport != Transport.TCP) {
            throw new IllegalArgumentException("expected a TCP address host:port, found '" + text + "'");
        }
        return a;
    }

    /**
     * Parses an address whose scheme, when given, picks the transport; without one it is {@code defaultTransport}.
     *
     * @throws IllegalArgumentException with a message fit for a config error
     */
    public static HostPort parse(String text, Transport defaultTransport) {
        String s = text.trim();
        Transport transport = defaultTransport;
        int scheme = s.indexOf("://");
        if (scheme >= 0) {
            transport = transport(s.substring(0, scheme).toLowerCase(Locale.ROOT));
            s = s.substring(scheme + 3);
        }
        if (transport == Transport.UNIX) {
            if (s.isEmpty()) {
                throw new IllegalArgumentException("unix:// needs a path, e.g. unix:///var/run/sluice.sock");
            }
            return new HostPort(transport, null, 0, s);
        }
        int colon = s.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("expected host:port, found '" + text + "'");
        }
        String host = s.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a port number after ':' in '" + text + "'");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is out of range (0 to 65535)");
        }
        return new HostPort(transport, host.isEmpty() ? "0.0.0.0" : host, port, null);
    }

    /**
     * The address a plugin's parameter holds, or the config error that points at that parameter's line.
     */
    public static HostPort of(PluginConfig config, Param<String> param, Transport defaultTransport) {
        try {
            return parse(config.get(param), defaultTransport);
        } catch (IllegalArgumentException e) {
            throw config.error(param, e.getMessage());
        }
    }

    private static Transport transport(String name) {
        return switch (name) {
            case "tcp", "tcp4", "tcp6" -> Transport.TCP;
            case "udp", "udp4", "udp6" -> Transport.UDP;
            case "unix" -> Transport.UNIX;
            default -> throw new IllegalArgumentException("unknown protocol '" + name + "' (tcp, udp or unix)");
        };
    }

    /** The address to bind or connect to (resolves the host name). */
    public SocketAddress socketAddress() {
        return transport == Transport.UNIX ? UnixDomainSocketAddress.of(path) : new InetSocketAddress(host, port);
    }

    /** {@code host:port} with IPv6 brackets, as a URL authority or a log line wants it. */
    public String authority() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }

    @Override
    public String toString() {
        return transport.name().toLowerCase(Locale.ROOT) + "://" + (path != null ? path : authority());
    }
}
