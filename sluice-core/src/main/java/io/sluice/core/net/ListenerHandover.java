package io.sluice.core.net;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Listening sockets handed from a consumer that stops to the one that replaces it, so that a reload refuses no
 * connection: under a {@link #hold()}, a listener its consumer closes is parked (still bound, not accepting: new
 * connections wait in the kernel's backlog, datagrams in the receive buffer) under its address, and a consumer
 * that binds the same address takes it instead of binding. When the last hold closes, what nobody took is closed.
 *
 * <p>One registry for every kind of socket: Netty listeners ({@link ServerListener}) and the plain java.nio
 * channels of sluice-io. An address is its transport and socket address, so TCP and UDP on one port are two.
 */
public final class ListenerHandover {
    /**
     * Under which a socket is parked: {@code "tcp"}, {@code "udp"} or {@code "unix"}, and its address (see
     * {@link ListenerHandover#at}).
     */
    public record Address(String transport, SocketAddress address) {
    }

    private static final Object LOCK = new Object();
    private static final Map<Address, AutoCloseable> PARKED = new HashMap<>();
    private static int holds;

    private ListenerHandover() {
    }

    /**
     * Opens a hold: until it is closed, listeners that their consumers close are parked instead. Holds nest; the
     * sockets are closed when the last one closes. A reload opens one before it stops the consumers that change
     * and closes it once their replacements started.
     */
    public static ListenerHold hold() {
        synchronized (LOCK) {
            holds++;
        }
        return new ListenerHold();
    }

    /** Whether a hold is open: a listener closed now would be parked. */
    public static boolean holding() {
        synchronized (LOCK) {
            return holds > 0;
        }
    }

    /**
     * Parks {@code socket} (still bound, no longer served) under {@code address} when a hold is open.
     *
     * @param address where it was bound ({@link #at}); null parks nothing
     * @return false, with nothing kept, when no hold is open: the caller closes the socket as usual
     */
    public static boolean park(Address address, AutoCloseable socket) {
        AutoCloseable replaced;
        synchronized (LOCK) {
            if (holds == 0 || address == null) {
                return false;
            }
            replaced = PARKED.put(address, socket);
        }
        if (replaced != null && replaced != socket) {
            closeQuietly(replaced); // the same address parked twice cannot be bound twice; kept for safety
        }
        return true;
    }

    /**
     * Takes the socket parked under {@code address}, if it is a {@code type}; one of another kind (a Netty
     * listener where a java.nio channel is wanted) is closed, so that the caller can bind the address afresh.
     *
     * @return the parked socket, now the caller's, or null: bind as usual
     */
    public static <T extends AutoCloseable> T take(Address address, Class<T> type) {
        if (address == null) {
            return null;
        }
        AutoCloseable s;
        synchronized (LOCK) {
            s = PARKED.remove(address);
        }
        if (s == null) {
            return null;
        }
        if (type.isInstance(s)) {
            return type.cast(s);
        }
        closeQuietly(s);
        return null;
    }

    /**
     * The parking address of a socket bound (or to be bound) at {@code address}; null when nothing can be parked
     * there: port 0 (any free port) or a name that did not resolve.
     */
    public static Address at(String transport, SocketAddress address) {
        if (address instanceof InetSocketAddress a && (a.isUnresolved() || a.getPort() == 0)) {
            return null;
        }
        return new Address(transport, address);
    }

    static void release() {
        List<AutoCloseable> left;
        synchronized (LOCK) {
            if (--holds > 0) {
                return;
            }
            left = new ArrayList<>(PARKED.values());
            PARKED.clear();
        }
        left.forEach(ListenerHandover::closeQuietly);
    }

    private static void closeQuietly(AutoCloseable s) {
        try {
            s.close();
        } catch (Exception ignored) {
            // Closing a socket nobody serves: nothing to tell anyone.
        }
    }
}
