package io.sluice.io.socket;

import io.sluice.core.Bytes;
import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.net.HostPort;
import io.sluice.core.tls.TlsSettings;
import io.sluice.io.FileModes;
import java.util.Locale;

/**
 * {@code consumer.Socket}: reads messages from TCP connections, UDP datagrams or a unix stream socket.
 * Gollum's parameters keep their names and defaults; {@code Format}, {@code MaxLineSize} and
 * {@code ReadBufferKB}, {@code MaxConnections} and {@code IdleTimeoutMs} are Sluice's. Every TCP or unix
 * connection is served by the consumer's one thread, with a selector; a connection stops being read while the memory budget is spent
 * or the pipeline is full (backpressure reaches the sender through TCP's window), and nothing it sent is lost.
 * TCP connections speak TLS with the {@code TLS/*} group (a certificate, optionally client certificates checked
 * against TLS/CAFile); a TLS handshake must complete within IdleTimeoutMs, or 10 s when that is 0.
 *
 * <pre>
 * "TcpIn":
 *     Type: consumer.Socket
 *     Address: "tcp://0.0.0.0:5880"
 *     Format: ndjson            # plain | ndjson | rfc5424 | rfc3164 | syslog
 *     Partitioner: delimiter    # delimiter | octet | ascii | binary | binary_be | fixed
 *     Streams: logs
 * </pre>
 */
public final class SocketConsumer extends ListeningConsumer {
    public static final Param<String> ADDRESS = Param.string("Address", "tcp://127.0.0.1:5880",
            "Where to listen: tcp://host:port, udp://host:port, unix:///path, or host:port (TCP). Loopback unless "
                    + "you name another address (tcp://0.0.0.0:5880 for every interface).");
    public static final Param<String> PERMISSIONS = Param.string("Permissions", "0770",
            "File permissions of a unix socket, as an octal number.");
    public static final Param<String> ACKNOWLEDGE = Param.string("Acknowledge", "",
            "When set, this text is written back after each read was handed to the pipeline (TCP and unix only).");
    public static final Param<String> PARTITIONER = Param.choice("Partitioner", "delimiter",
            "How messages are cut from the stream: delimiter, octet (RFC 6587 octet counting, falling back to "
                    + "newlines; rfc6587 is the same), ascii (length then Delimiter), binary, binary_le, binary_be, fixed.",
            "delimiter", "octet", "rfc6587", "ascii", "binary", "binary_le", "binary_be", "fixed");
    public static final Param<String> DELIMITER = Param.string("Delimiter", "\\n",
            "End of a message for the delimiter partitioner (removed; a CR before \\n is removed too); "
                    + "end of the length for ascii.");
    public static final Param<Integer> OFFSET = Param.integer("Offset", 0,
            "Where the length starts, for the ascii and binary partitioners.");
    public static final Param<Integer> SIZE = Param.integer("Size", 1,
            "Bytes of the length for binary (1, 2, 4 or 8; 4 when left at 1), or of each message for fixed.").atLeast(1);
    public static final Param<Integer> RECONNECT_AFTER_SEC = Param.seconds("ReconnectAfterSec", 2,
            "Accepted for Gollum configs; Sluice binds once at start (a port in use stops the start) and ends the "
                    + "process if the listener is lost.");
    public static final Param<Integer> ACK_TIMEOUT_SEC = Param.seconds("AckTimeoutSec", 1,
            "Accepted for Gollum configs; an acknowledgement the peer does not read yet waits in its connection.");
    public static final Param<Integer> READ_TIMEOUT_SEC = Param.seconds("ReadTimeoutSec", 2,
            "Accepted for Gollum configs; IdleTimeoutMs closes connections that send no complete message.");
    public static final Param<Boolean> REMOVE_OLD_SOCKET = Param.bool("RemoveOldSocket", true,
            "Remove an existing file at a unix:// path before listening.");
    public static final Param<String> FORMAT = Param.choice("Format", "plain",
            "plain (the frame is the payload), ndjson (as plain, blank lines skipped), rfc5424, rfc3164, or syslog "
                    + "(either RFC per line): syslog fields go to metadata and the MSG becomes the payload.",
            "plain", "ndjson", "rfc5424", "rfc3164", "syslog");
    public static final Param<Integer> MAX_LINE_SIZE = Param.sizeInt("MaxLineSize", 1 << 20,
            "Longest message in bytes; a longer one is cut at this size, flagged truncated: true, and counted.").atLeast(1);
    public static final Param<Integer> READ_BUFFER_KB = Param.integer("ReadBufferKB", 256,
            "Read buffer in KB, one for all connections; a connection keeps only its unfinished message.");
    /** The listener limit every network input shares. */
    public static final Param<Integer> MAX_CONNECTIONS = PluginSpec.MAX_CONNECTIONS;
    public static final Param<Integer> IDLE_TIMEOUT_MS = Param.millis("IdleTimeoutMs", 0,
            "Close a connection (counted timeout) that completes no message for this long, idle or trickling a "
                    + "line; 0 keeps connections open, as syslog and log shippers expect. A TLS handshake must "
                    + "complete within it (10 s when 0).").atLeast(0);

    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "consumer.Socket",
            "Reads messages from TCP (optionally TLS), UDP or unix sockets: newline, NDJSON, syslog, octet counting.")
            .params(TlsSettings.with(ADDRESS, PERMISSIONS, ACKNOWLEDGE, PARTITIONER, DELIMITER, OFFSET, SIZE,
                    RECONNECT_AFTER_SEC, ACK_TIMEOUT_SEC, READ_TIMEOUT_SEC, REMOVE_OLD_SOCKET, FORMAT, MAX_LINE_SIZE,
                    READ_BUFFER_KB, MAX_CONNECTIONS, IDLE_TIMEOUT_MS))
            .factory(SocketConsumer::new);

    public SocketConsumer(PluginConfig config) {
        super(config, settings(config), "Socket");
    }

    private static SocketServer.Settings settings(PluginConfig config) {
        SocketServer.Settings s = new SocketServer.Settings();
        s.address = HostPort.of(config, ADDRESS, HostPort.Transport.TCP);
        s.mode = Framer.mode(config.get(PARTITIONER));
        s.delimiter = Bytes.unescape(config.get(DELIMITER));
        if (s.delimiter.length == 0) {
            throw config.error(DELIMITER, "must not be empty");
        }
        s.offset = config.get(OFFSET);
        s.size = config.get(SIZE);
        if (s.mode == Framer.Mode.BINARY_LE || s.mode == Framer.Mode.BINARY_BE) {
            if (!config.isSet(SIZE)) {
                s.size = 4;
            }
            if (s.size != 1 && s.size != 2 && s.size != 4 && s.size != 8) {
                throw config.error(SIZE, "binary lengths are 1, 2, 4 or 8 bytes");
            }
        }
        switch (config.get(FORMAT)) {
            case "ndjson" -> s.skipEmpty = true;
            case "rfc5424" -> s.syslog = SyslogParser.Rfc.RFC5424;
            case "rfc3164" -> s.syslog = SyslogParser.Rfc.RFC3164;
            case "syslog" -> s.syslog = SyslogParser.Rfc.AUTO;
            default -> { } // plain: the frame is the payload
        }
        s.maxLineSize = config.get(MAX_LINE_SIZE);
        s.readBufferSize = Math.max(4, config.get(READ_BUFFER_KB)) * 1024;
        String ack = config.get(ACKNOWLEDGE);
        if (!ack.isEmpty()) {
            if (s.address.transport() == HostPort.Transport.UDP) {
                throw config.error(ACKNOWLEDGE, "UDP sockets cannot acknowledge");
            }
            s.acknowledge = Bytes.unescape(ack);
        }
        s.permissions = FileModes.octal(config, PERMISSIONS, "0770");
        s.removeOldSocket = config.get(REMOVE_OLD_SOCKET);
        s.maxConnections = config.get(MAX_CONNECTIONS);
        s.idleTimeoutMs = config.get(IDLE_TIMEOUT_MS);
        s.tls = tls(config, TlsSettings.from(config, TlsSettings.Role.SERVER), s.address);
        return s;
    }

    /**
     * The TLS/* group of a listener, or null when TLS is off. TLS is for TCP: a datagram is no stream to run TLS
     * on (that would be DTLS), and a unix socket is reached only through the file system, whose permissions guard it.
     */
    static TlsSettings tls(PluginConfig config, TlsSettings tls, HostPort address) {
        if (!tls.enabled()) {
            return null;
        }
        if (address.transport() != HostPort.Transport.TCP) {
            throw config.error(TlsSettings.ENABLE, "TLS needs a tcp:// address; " + address
                    + " is " + address.transport().name().toLowerCase(Locale.ROOT));
        }
        noSessionTickets(tls);
        return tls;
    }

    /** Longest TLS 1.3 ticket lifetime (RFC 8446, 4.6.1): the JDK sends no ticket for sessions that outlive it. */
    private static final int TICKET_LIFETIME_LIMIT_SEC = 7 * 24 * 3600;

    /**
     * Stops the listener from sending TLS 1.3 session tickets. Log senders write and never read: a ticket arriving
     * after the handshake stays unread in the sender's socket, and the kernel then ends the connection with a reset
     * when the sender closes, throwing away whatever the listener had not read yet (OpenSSL-based senders such as
     * rsyslog do exactly that; the test reproduces it). JDK 17 has no per-context switch for tickets; a session
     * timeout beyond the ticket lifetime limit is the documented-in-code condition under which it sends none.
     * Resumption is worth little here: senders hold their connection for hours.
     */
    static void noSessionTickets(TlsSettings tls) {
        tls.context().getServerSessionContext().setSessionTimeout(TICKET_LIFETIME_LIMIT_SEC + 1);
    }
}
