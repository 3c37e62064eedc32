package io.sluice.io.socket;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.Locale;

/**
 * A socket address as Gollum writes it: {@code tcp://host:port}, {@code udp://host:port},
 * {@code unix:///path}, or a bare {@code host:port} / {@code :port} (the default protocol).
 */
public final class Address {
    /** Transport of an address. */
    public enum Protocol { TCP, UDP, UNIX }

    private final Protocol protocol;
    private final String host;
    private final int port;
    private final String path;

    private Address(Protocol protocol, String host, int port, String path) {
        this.protocol = protocol;
        this.host = host;
        this.port = port;
        this.path = path;
    }

    /**
     * Parses an address.
     *
     * @throws IllegalArgumentException with a message fit for a config error
     */
    public static Address parse(String text, Protocol defaultProtocol) {
        String s = text.trim();
        Protocol protocol = defaultProtocol;
        int scheme = s.indexOf("://");
        if (scheme >= 0) {
            String name = s.substring(0, scheme).toLowerCase(Locale.ROOT);
            s = s.substring(scheme + 3);
            switch (name) {
                case "tcp": case "tcp4": case "tcp6": protocol = Protocol.TCP; break;
                case "udp": case "udp4": case "udp6": protocol = Protocol.UDP; break;
                case "unix": protocol = Protocol.UNIX; break;
                default: throw new IllegalArgumentException("unknown protocol '" + name + "' (tcp, udp or unix)");
            }
        }
        if (protocol == Protocol.UNIX) {
            if (s.isEmpty()) {
                throw new IllegalArgumentException("unix:// needs a path, e.g. unix:///var/run/sluice.sock");
            }
            return new Address(protocol, null, 0, s);
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
            throw new IllegalArgumentException("port of '" + text + "' is not a number");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is out of range");
        }
        return new Address(protocol, host.isEmpty() ? "0.0.0.0" : host, port, null);
    }

    public Protocol protocol() {
        return protocol;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** The socket file of a unix address. */
    public String path() {
        return path;
    }

    /** The address to bind or connect to (resolves the host name). */
    public SocketAddress socketAddress() {
        return protocol == Protocol.UNIX ? UnixDomainSocketAddress.of(path) : new InetSocketAddress(host, port);
    }

    @Override
    public String toString() {
        return protocol.name().toLowerCase(Locale.ROOT) + "://" + (path != null ? path : host + ":" + port);
    }
}
