package io.sluice.forward.consumer;

import io.netty.handler.ssl.SslContext;
import io.sluice.core.tls.NettyTls;
import io.sluice.core.tls.TlsSettings;
import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.net.HostPort;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Exposure;
import io.sluice.forward.ForwardPlugins;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code consumer.Forward}: a Fluent Forward server (Fluentd's {@code in_forward}) that Fluent Bit, Fluentd,
 * fluency, fluent-logger and {@code producer.Forward} can send to.
 *
 * <p>It accepts every mode (Message, Forward, PackedForward, CompressedPackedForward), EventTime and integer times,
 * and the v1.5 {@code [time, {metadata}]} form. Each event becomes a message carrying its tag and time; the
 * payload is the record as JSON (or its msgpack bytes, or one key's value) and the record's fields are copied into
 * the message's metadata. A frame that asks for an ack ({@code chunk}) is acknowledged only after every producer
 * reading its events has taken them, so "acked" means "delivered or durably buffered".
 *
 * <p>Tags pick the stream: the first {@code TagStreams} pattern that matches; otherwise the consumer's
 * {@code Streams} when set; otherwise the stream named like the tag.
 *
 * <p>Like Fluentd's in_forward it answers UDP heartbeats on the same port. A frame resent with the chunk id of one
 * already accepted (its ack was lost) is acked again without being delivered twice, within the bounds of
 * {@code DedupChunks} and {@code DedupWindowMs} (see {@link RecentChunks}).
 *
 * <p>Nothing a peer sends can run the process out of memory: frames, inflated payloads and decoded events are
 * reserved from the process's memory budget first (see {@link ForwardConnection}); when it is spent, connections
 * stop being read and acks are withheld until memory comes back; what it could never hold is refused. Refusals are
 * counted on {@code /metrics} by reason ({@code sluice_rejected_total}): malformed frames, failed handshakes,
 * unauthenticated connections sending more than a PING and connections from an address refused after failed
 * handshakes (auth), frames over the limits (too_large), a spent budget or too many connections (busy), idle
 * connections and handshakes not done in time (timeout).
 *
 * <p>With {@code SharedKey}, a connection is read only {@value ForwardConnection#UNAUTHENTICATED_BYTES} bytes at a
 * time and may buffer no more than that until its PING is accepted; it must send that PING within
 * {@value ForwardConnection#HANDSHAKE_TIMEOUT_MILLIS} ms; the first refused PING closes it. Addresses that keep
 * failing are refused for a while ({@code AuthFailureLimit}, see {@link AuthFailures}).
 */
public final class ForwardConsumer extends Consumer implements Exposure.Listening {
    static final Param<String> ADDRESS = Param.string("Address", "127.0.0.1:24224",
            "host:port to listen on: loopback unless you name another address (0.0.0.0:24224 for every interface, "
                    + "with SharedKey or TLS). Port 0 picks a free port (logged at start).");
    static final Param<Long> MAX_MESSAGE_SIZE = Param.size("MaxMessageSize", 32L << 20,
            "Largest frame accepted, in bytes. A bigger frame is refused from its header, before it is read, and the "
                    + "connection is closed.").atLeast(16L);
    static final Param<Long> MAX_DECOMPRESSED_SIZE = Param.size("MaxDecompressedSize", 128L << 20,
            "Largest CompressedPackedForward payload accepted once inflated, in bytes.");
    static final Param<String> PAYLOAD = Param.choice("Payload", "json",
            "What becomes the message payload: json (the record as a JSON object), msgpack (the record's msgpack "
                    + "bytes as received; producer.Forward sends them on unchanged) or none.", "json", "msgpack", "none");
    static final Param<String> PAYLOAD_KEY = Param.string("PayloadKey", "",
            "When set, the payload is this record field's value (a string as is, anything else as JSON); records "
                    + "without the field fall back to Payload.");
    static final Param<Boolean> METADATA = Param.bool("Metadata", true,
            "Copies the record's top-level fields into the message metadata (nested values as JSON text).");
    static final Param<String> EVENT_METADATA_PREFIX = Param.string("EventMetadataPrefix", "_meta.",
            "With Metadata on, each entry of an event's Forward v1.5 metadata ([[time, {metadata}], record], as Fluent "
                    + "Bit sends) becomes a metadata field named with this prefix (e.g. _meta.otlp); empty drops it.");
    static final Param<Map<String, String>> TAG_STREAMS = Param.stringMap("TagStreams",
            "Tag pattern to stream, first match wins. Fluentd patterns: * one tag part, ** any number of parts, "
                    + "{a,b} alternatives. Unmatched tags go to Streams when set, else to the stream named like the tag.");
    static final Param<String> SHARED_KEY = Param.string("SharedKey", "",
            "Requires the HELO/PING/PONG handshake with this shared key (Fluentd <security> shared_key). Until its "
                    + "PING is accepted a connection may send at most 4 KiB, must send it within 10 s (or IdleTimeoutMs "
                    + "when shorter), and is closed at the first refused PING.");
    static final Param<String> SELF_HOSTNAME = Param.string("SelfHostname", "",
            "Hostname this server names in PONG; empty uses the machine's name.");
    static final Param<Integer> AUTH_FAILURE_LIMIT = Param.integer("AuthFailureLimit", 10,
            "Failed handshakes (wrong SharedKey or password, a malformed PING, too much sent before it) from one "
                    + "address, each within 60 s of the one before, after which its connections are closed at once "
                    + "for 1 s, doubled at each further failure up to AuthBlockMaxMs; a successful handshake forgets "
                    + "them. IPv6 addresses count by /64. 0 turns this off.").atLeast(0);
    static final Param<Integer> AUTH_BLOCK_MAX_MS = Param.millis("AuthBlockMaxMs", 300_000,
            "Longest time an address is refused after failed handshakes (see AuthFailureLimit).").atLeast(1000);
    static final Param<Map<String, String>> USERS = Param.stringMap("Users",
            "User name to password; when set, clients must also authenticate as one of them (needs SharedKey).");
    static final Param<String> TLS_KEY_STORE = Param.string("TlsKeyStore", "",
            "PKCS#12 (or .jks) key store with the server certificate; enables TLS.").deprecatedFor(TlsSettings.CERT_FILE);
    static final Param<String> TLS_KEY_STORE_PASSWORD = Param.string("TlsKeyStorePassword", "",
            "Password of TlsKeyStore.").deprecatedFor(TlsSettings.KEY_PASSWORD);
    static final Param<String> TLS_CERT_FILE = Param.string("TlsCertFile", "",
            "PEM certificate chain; with TlsKeyFile, enables TLS (alternative to TlsKeyStore).")
            .deprecatedFor(TlsSettings.CERT_FILE);
    static final Param<String> TLS_KEY_FILE = Param.string("TlsKeyFile", "", "PEM PKCS#8 private key.")
            .deprecatedFor(TlsSettings.KEY_FILE);
    static final Param<String> TLS_KEY_PASSWORD = Param.string("TlsKeyPassword", "",
            "Password of TlsKeyFile when it is encrypted.").deprecatedFor(TlsSettings.KEY_PASSWORD);
    /** The spellings before the TLS/* group, read for one more release. */
    private static final TlsSettings.Alias[] OLD_TLS = {
        new TlsSettings.Alias(TLS_KEY_STORE, TlsSettings.CERT_FILE),
        new TlsSettings.Alias(TLS_CERT_FILE, TlsSettings.CERT_FILE),
        new TlsSettings.Alias(TLS_KEY_FILE, TlsSettings.KEY_FILE),
        new TlsSettings.Alias(TLS_KEY_STORE_PASSWORD, TlsSettings.KEY_PASSWORD),
        new TlsSettings.Alias(TLS_KEY_PASSWORD, TlsSettings.KEY_PASSWORD),
    };
    static final Param<Integer> IO_THREADS = Param.integer("IoThreads", 0,
            "Event loop threads reading connections; 0 uses one per core.");
    static final Param<Integer> PUBLISH_THREADS = Param.integer("PublishThreads", 0,
            "Threads handing decoded batches to the pipeline (they block when it is full); 0 uses one per core.");
    static final Param<Integer> READ_AHEAD = Param.integer("ReadAhead", 4,
            "Decoded groups of batches a connection may have waiting for the pipeline before Sluice stops reading "
                    + "it (TCP backpressure).");
    static final Param<Boolean> UDP_HEARTBEAT = Param.bool("UdpHeartbeat", true,
            "Answers UDP heartbeats on the same port (Fluentd in_forward; out_forward heartbeat_type udp, "
                    + "producer.Forward HeartbeatType udp): each datagram gets one zero byte back.");
    static final Param<Integer> DEDUP_CHUNKS = Param.integer("DedupChunks", 65_536,
            "Chunk ids of accepted frames remembered, so a frame a client resends after losing its ack is acked "
                    + "again without being delivered twice (about 60 bytes each); 0 turns this off.").atLeast(0);
    static final Param<Integer> DEDUP_WINDOW_MS = Param.millis("DedupWindowMs", 300_000,
            "How long an accepted chunk id is remembered at most; a copy arriving later is delivered again.")
            .atLeast(1);
    /** The listener limit every network input shares. */
    static final Param<Integer> MAX_CONNECTIONS = PluginSpec.MAX_CONNECTIONS;
    static final Param<Integer> IDLE_TIMEOUT_MS = Param.millis("IdleTimeoutMs", 60_000,
            "A connection that sends nothing for this long is closed (counted as rejected, reason timeout), unless it "
                    + "is waiting for Sluice (acks, backpressure); 0 never closes idle connections.").atLeast(0);

    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "consumer.Forward",
            "Receives Fluent Forward (Fluent Bit, Fluentd, fluency, fluent-logger): every mode, gzip, acks after "
                    + "delivery, shared_key and users, TLS.")
            .params(TlsSettings.with(ADDRESS, MAX_MESSAGE_SIZE, MAX_DECOMPRESSED_SIZE, PAYLOAD, PAYLOAD_KEY, METADATA,
                    EVENT_METADATA_PREFIX, TAG_STREAMS, SHARED_KEY, SELF_HOSTNAME, USERS, AUTH_FAILURE_LIMIT, AUTH_BLOCK_MAX_MS, IO_THREADS, PUBLISH_THREADS,
                    READ_AHEAD, UDP_HEARTBEAT, DEDUP_CHUNKS, DEDUP_WINDOW_MS, MAX_CONNECTIONS, IDLE_TIMEOUT_MS,
                    TLS_KEY_STORE, TLS_KEY_STORE_PASSWORD, TLS_CERT_FILE, TLS_KEY_FILE, TLS_KEY_PASSWORD))
            .factory(ForwardConsumer::new);

    private final String host;
    private final int port;
    private final RecordMapper.PayloadMode payloadMode;
    private final TagRoutes routes;
    private final TlsSettings tls;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stopRequested;
    private volatile boolean consuming;
    private volatile ForwardServer server;
    private volatile InetSocketAddress bound;

    /** Validates the config; the server starts in {@link #consume}. */
    public ForwardConsumer(PluginConfig config) {
        super(config);
        HostPort address = HostPort.of(config, ADDRESS, HostPort.Transport.TCP);
        if (address.transport() != HostPort.Transport.TCP) {
            throw config.error(ADDRESS, "expected a TCP address host:port, found '" + config.get(ADDRESS) + "'");
        }
        host = address.host();
        port = address.port();
        payloadMode = RecordMapper.PayloadMode.valueOf(config.get(PAYLOAD).toUpperCase(Locale.ROOT));
        for (String pattern : config.get(TAG_STREAMS).keySet()) {
            String problem = TagRoutes.check(pattern);
            if (problem != null) {
                throw config.error(TAG_STREAMS, problem);
            }
        }
        if (!config.get(USERS).isEmpty() && config.get(SHARED_KEY).isEmpty()) {
            throw config.error(USERS, "user authentication is part of the handshake: set SharedKey too");
        }
        tls = TlsSettings.from(config, TlsSettings.Role.SERVER, OLD_TLS);
        routes = new TagRoutes(config.get(TAG_STREAMS), config.isSet(PluginSpec.STREAMS));
    }

    @Override
    public List<Exposure.Listener> listeners() {
        boolean certificates = tls.enabled() && tls.clientAuth() == TlsSettings.ClientAuth.REQUIRE;
        return List.of(new Exposure.Listener("Forward", host, port, tls.enabled(),
                !config.get(SHARED_KEY).isEmpty() || certificates, SHARED_KEY.name()));
    }

    /** Binds the listening socket (and the UDP heartbeat one): a port in use stops the start, naming the address. */
    @Override
    public void open(ConsumerContext ctx) throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        SslContext ssl = tls.enabled() ? new NettyTls(tls).context() : null;
        tls.logTo(ctx.log(), config.id());
        String hostname = ForwardPlugins.selfHostname(config.get(SELF_HOSTNAME));
        ForwardServer.Settings s = new ForwardServer.Settings(config.id(), host, port, config.get(MAX_MESSAGE_SIZE),
                config.get(MAX_DECOMPRESSED_SIZE), payloadMode, config.get(PAYLOAD_KEY), config.get(METADATA), routes,
                config.get(SHARED_KEY).isEmpty() ? null : config.get(SHARED_KEY), hostname, Map.copyOf(config.get(USERS)),
                ssl, positiveOr(config.get(IO_THREADS), cores), positiveOr(config.get(PUBLISH_THREADS), cores),
                Math.max(1, config.get(READ_AHEAD)), config.get(EVENT_METADATA_PREFIX), config.get(UDP_HEARTBEAT),
                config.get(DEDUP_CHUNKS), config.get(DEDUP_WINDOW_MS), config.get(MAX_CONNECTIONS),
                config.get(IDLE_TIMEOUT_MS), config.get(AUTH_FAILURE_LIMIT), config.get(AUTH_BLOCK_MAX_MS));
        ForwardServer srv = new ForwardServer(s, ctx, null);
        bound = srv.start();
        server = srv;
        ctx.log().info(config.id() + ": listening for Fluent Forward on " + bound.getAddress().getHostAddress() + ":"
                + bound.getPort() + (ssl != null ? " (TLS)" : "") + (s.sharedKey() != null ? " (shared_key)" : "")
                + (srv.heartbeatPort() > 0 ? ", UDP heartbeats on the same port" : ""));
        Exposure.warnIfOpen(ctx.log(), config.id(), bound, s.sharedKey() != null, SHARED_KEY.name());
    }

    /**
     * Serves until stopped. The listening socket closing while the pipeline runs is an error (the process would
     * accept nothing more): it is thrown, which ends the process.
     */
    @Override
    public void consume(ConsumerContext ctx) throws Exception {
        consuming = true;
        if (server == null && !stopRequested) {
            open(ctx);
        }
        ForwardServer srv = server;
        if (srv == null) {
            return;
        }
        try {
            srv.listenerClosed().addListener(f -> stopped.countDown());
            stopped.await();
            if (!stopRequested && ctx.isActive()) {
                throw new IOException(config.id() + ": the listening socket on " + host + ":" + port()
                        + " closed; no more connections can be accepted");
            }
        } finally {
            srv.stop(5000);
        }
    }

    private static int positiveOr(int v, int dflt) {
        return v > 0 ? v : Math.max(1, dflt);
    }

    @Override
    public void stop() {
        stopRequested = true;
        stopped.countDown();
        ForwardServer s = server;
        if (s != null && !consuming) {
            // Opened, but the start stopped before consume ran (another plugin could not start): close it here.
            try {
                s.stop(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isReady() {
        ForwardServer s = server;
        return s != null && s.isListening();
    }

    /** The server once opened, or null (tests). */
    ForwardServer server() {
        return server;
    }

    /** The port listened on once started (useful with port 0), or -1. */
    public int port() {
        InetSocketAddress b = bound;
        return b == null ? -1 : b.getPort();
    }
}
