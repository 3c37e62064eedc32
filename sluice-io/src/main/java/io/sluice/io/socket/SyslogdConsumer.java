package io.sluice.io.socket;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.net.HostPort;
import io.sluice.core.tls.TlsSettings;
import io.sluice.io.FileModes;

/**
 * {@code consumer.Syslogd}: Gollum's syslog server, with its parameters and defaults. {@code RFC6587} reads
 * octet-counted (or newline-terminated) RFC 5424 messages from a stream; {@code RFC5424} and {@code RFC3164}
 * read one message per line or datagram. With the {@code TLS/*} group, TCP connections speak TLS: syslog over
 * TLS is RFC 5425 ({@code Format: RFC5425}, octet counting, port 6514 unless Address names another). Unix sockets are stream sockets here: the JDK has no unix
 * datagram channel, so {@code /dev/log} style datagram sockets are not supported.
 */
public final class SyslogdConsumer extends ListeningConsumer {
    public static final Param<String> ADDRESS = Param.string("Address", "udp://127.0.0.1:514",
            "Where to listen: tcp://host:port, udp://host:port, unix:///path, or host:port (TCP). Loopback unless "
                    + "you name another address (udp://0.0.0.0:514 for every interface). With TLS the default is "
                    + "tcp://127.0.0.1:6514, the port of RFC 5425.");
    public static final Param<String> FORMAT = Param.choice("Format", "RFC6587",
            "RFC3164, RFC5424, RFC6587 (RFC 5424 messages with octet counting over streams), or RFC5425 (the same "
                    + "over TLS, which it requires).", "RFC3164", "RFC5424", "RFC6587", "RFC5425");
    public static final Param<Boolean> SET_METADATA = Param.bool("SetMetadata", false,
            "Attach the syslog fields (hostname, app_name, priority, ...) as metadata.");
    public static final Param<String> TIMESTAMP_FORMAT = Param.string("TimestampFormat", "2006-01-02T15:04:05.000 MST",
            "Accepted for Gollum configs; the timestamp field keeps the sender's text and the message time is set from it.");
    public static final Param<Integer> MAX_LINE_SIZE = Param.sizeInt("MaxLineSize", 64 * 1024,
            "Longest message in bytes; a longer one is cut, flagged truncated: true, and counted.");
    public static final Param<String> PERMISSIONS = Param.string("Permissions", "0770",
            "File permissions of a unix socket, as an octal number.");
    /** The listener limit every network input shares. */
    public static final Param<Integer> MAX_CONNECTIONS = PluginSpec.MAX_CONNECTIONS;
    public static final Param<Integer> IDLE_TIMEOUT_MS = Param.millis("IdleTimeoutMs", 0,
            "Close a connection (counted timeout) that completes no message for this long; 0 keeps connections "
                    + "open: rsyslog and syslog-ng hold one for days and notice a closed one only on the write after. "
                    + "A TLS handshake must complete within it (10 s when 0).").atLeast(0);

    /** Where a TLS server listens when Address is not set: RFC 5425's port, on loopback as every default. */
    static final String TLS_ADDRESS = "tcp://127.0.0.1:6514";

    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "consumer.Syslogd",
            "A syslog server on TCP (optionally TLS), UDP or a unix stream socket (RFC 3164, RFC 5424, RFC 6587, RFC 5425).")
            .params(TlsSettings.with(ADDRESS, FORMAT, SET_METADATA, TIMESTAMP_FORMAT, MAX_LINE_SIZE, PERMISSIONS,
                    MAX_CONNECTIONS, IDLE_TIMEOUT_MS))
            .factory(SyslogdConsumer::new);

    public SyslogdConsumer(PluginConfig config) {
        super(config, settings(config), "Syslog");
    }

    private static SocketServer.Settings settings(PluginConfig config) {
        SocketServer.Settings s = new SocketServer.Settings();
        TlsSettings tlsSettings = TlsSettings.from(config, TlsSettings.Role.SERVER);
        boolean tls = tlsSettings.enabled();
        try {
            // RFC 5425: syslog over TLS listens on TCP port 6514.
            String address = tls && !config.isSet(ADDRESS) ? TLS_ADDRESS : config.get(ADDRESS);
            s.address = HostPort.parse(address, HostPort.Transport.TCP);
        } catch (IllegalArgumentException e) {
            throw config.error(ADDRESS, e.getMessage());
        }
        String format = config.get(FORMAT);
        if (format.equals("RFC5425") && !tls) {
            throw config.error(FORMAT, "RFC5425 is syslog over TLS: set TLS/CertFile and TLS/KeyFile, or use RFC6587");
        }
        switch (format) {
            case "RFC3164" -> s.syslog = SyslogParser.Rfc.RFC3164;
            case "RFC5424" -> s.syslog = SyslogParser.Rfc.RFC5424;
            default -> {
                // RFC6587 and RFC5425: octet counting, as RFC 5425 requires over TLS; a line that does not start
                // with a length is still read up to its newline, as rsyslog does.
                s.syslog = SyslogParser.Rfc.RFC5424;
                s.mode = Framer.Mode.OCTET;
            }
        }
        s.skipEmpty = true;
        s.metadata = config.get(SET_METADATA);
        s.maxLineSize = Math.max(1, config.get(MAX_LINE_SIZE));
        s.readBufferSize = 64 * 1024;
        s.permissions = FileModes.octal(config, PERMISSIONS, "0770");
        s.maxConnections = config.get(MAX_CONNECTIONS);
        s.idleTimeoutMs = config.get(IDLE_TIMEOUT_MS);
        s.tls = SocketConsumer.tls(config, tlsSettings, s.address);
        return s;
    }
}
