package io.sluice.forward.producer;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.sluice.core.tls.NettyTls;
import io.sluice.core.tls.TlsSettings;
import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.net.HostPort;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.core.pipeline.RetryPolicy;
import io.sluice.forward.codec.ForwardMode;
import io.sluice.forward.codec.TimeFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code producer.Forward}: sends batches to a Fluent Forward server (Fluentd, Fluent Bit, another Sluice) as
 * PackedForward or CompressedPackedForward frames, one frame per run of messages with the same tag.
 *
 * <p>With {@code RequireAck}, {@link #deliver} returns only once the server acknowledged every frame of the batch,
 * so the pipeline's own acknowledgement upstream (a Forward or HEC client's) is honest. Up to {@code MaxInFlight}
 * batches are sent and awaiting their acks at once over the one connection (a window, not stop-and-wait): the
 * pipeline runs that many delivery workers. A frame whose ack does not come within {@code AckTimeoutMs}, or whose
 * connection breaks, is sent again (same bytes, same chunk id) after a backoff, on a new connection, to the first
 * server that answers: servers are tried in the order given, so the first is the primary and the others fail-overs.
 * {@link #isReady()} is false while no server can be reached.
 *
 * <p>With {@code HeartbeatType} udp or tcp, servers are watched as out_forward watches them ({@link Heartbeat}): one
 * that stops answering is marked down, its connection is dropped (what waited there is resent to the next server)
 * and it is passed over when connecting; once it answers again for {@code RecoverWaitMs} it is marked up and, when it
 * comes before the server in use, the producer moves back to it.
 *
 * <p>This class reads the settings, encodes batches ({@link BatchEncoder}), sends their frames and waits for the acks,
 * resending after a backoff; the connection and the choice of server are the {@link ServerPool}'s.
 */
public final class ForwardProducer extends Producer {
    static final Param<List<String>> SERVERS = Param.strings("Servers", List.of("localhost:24224"),
            "host:port of each server, primary first; the next ones take over when it cannot be reached.");
    static final Param<String> MODE = Param.choice("Mode", "PackedForward",
            "Frame format: PackedForward, CompressedPackedForward (gzip) or Forward.", "PackedForward",
            "CompressedPackedForward", "Forward");
    static final Param<Integer> COMPRESSION_LEVEL = Param.integer("CompressionLevel", 1,
            "gzip level for CompressedPackedForward, 1 (fast) to 9 (small).").between(1, 9);
    static final Param<Boolean> REQUIRE_ACK = Param.bool("RequireAck", true,
            "Ask the server to acknowledge each frame ('chunk' option) and count a batch delivered only then.");
    static final Param<Integer> ACK_TIMEOUT_MS = Param.millis("AckTimeoutMs", 30_000,
            "How long to wait for an ack before the connection is dropped and the frame resent.").atLeast(1);
    static final Param<Integer> MAX_IN_FLIGHT = Param.integer("MaxInFlight", 4,
            "Batches sent and awaiting their ack at once (delivery workers).").atLeast(1);
    static final Param<Integer> MAX_RETRIES = Param.integer("MaxRetries", -1,
            "Resends of a batch before it fails to the FallbackStream; -1 retries until shutdown (no loss, "
                    + "backpressure instead). Resends wait Retry/BackoffMs, doubling (with jitter) up to "
                    + "Retry/MaxBackoffMs (100 ms up to 5 s when neither is set).");
    /**
     * The resend backoff's former spellings, read for one more release. Retry/BackoffMs and Retry/MaxBackoffMs set it
     * now; with neither key set it keeps this producer's own defaults (100 ms, at most 5 s), not the group's.
     */
    static final Param<Integer> RETRY_BACKOFF_MS = Param.millis("RetryBackoffMs", 100,
            "First wait before a resend; doubles on each failure.").deprecatedFor(PluginSpec.RETRY_BACKOFF_MS);
    static final Param<Integer> MAX_RETRY_BACKOFF_MS = Param.millis("MaxRetryBackoffMs", 5_000,
            "Longest wait between resends.").deprecatedFor(PluginSpec.RETRY_MAX_BACKOFF_MS);
    static final Param<Integer> CONNECT_TIMEOUT_MS = Param.millis("ConnectTimeoutMs", 5_000,
            "How long to wait for a connection (including TLS and the handshake).");
    static final Param<Boolean> KEEPALIVE = Param.bool("Keepalive", true,
            "Keep the connection open between batches; false connects for each batch (Fluentd keepalive false).");
    static final Param<String> TAG = Param.string("Tag", "",
            "Tag for every event; empty uses the message's own tag (from consumer.Forward) or its stream name.");
    static final Param<String> RECORD = Param.choice("Record", "auto",
            "Where the record comes from: metadata (the message's fields), payload (the payload as a string under "
                    + "PayloadKey), msgpack (the payload is a msgpack map, as consumer.Forward's Payload: msgpack "
                    + "makes it) or auto (metadata when there is any, else payload).", "auto", "metadata", "payload",
            "msgpack");
    static final Param<String> PAYLOAD_KEY = Param.string("PayloadKey", "message",
            "Record field holding the payload when Record is payload (or auto without metadata).");
    static final Param<Boolean> TIME_AS_INTEGER = Param.bool("TimeAsInteger", false,
            "Send whole seconds instead of EventTime (for Fluentd 0.12 and older).");
    static final Param<String> SHARED_KEY = Param.string("SharedKey", "",
            "Shared key for the HELO/PING/PONG handshake; empty sends without one.");
    static final Param<String> SELF_HOSTNAME = Param.string("SelfHostname", "",
            "Hostname sent in PING; empty uses the machine's name.");
    static final Param<String> USERNAME = Param.string("Username", "", "User name, when the server requires users.");
    static final Param<String> PASSWORD = Param.string("Password", "", "Password of Username.");
    static final Param<Boolean> TLS = Param.bool("Tls", false, "Connect with TLS.").deprecatedFor(TlsSettings.ENABLE);
    static final Param<String> TLS_CA_FILE = Param.string("TlsCaFile", "",
            "PEM file of certificates to trust; empty trusts the JVM's default authorities.")
            .deprecatedFor(TlsSettings.CA_FILE);
    static final Param<String> TLS_TRUST_STORE = Param.string("TlsTrustStore", "",
            "PKCS#12 (or .jks) trust store, instead of TlsCaFile.").deprecatedFor(TlsSettings.CA_FILE);
    static final Param<String> TLS_TRUST_STORE_PASSWORD = Param.string("TlsTrustStorePassword", "",
            "Password of TlsTrustStore.").deprecatedFor(TlsSettings.KEY_PASSWORD);
    static final Param<Boolean> TLS_VERIFY_HOSTNAME = Param.bool("TlsVerifyHostname", true,
            "Check that the server's certificate names the host connected to (false: the certificate is still "
                    + "checked, its name is not).").deprecatedFor(TlsSettings.SERVER_NAME);
    /** The spellings before the TLS/* group, read for one more release. */
    private static final TlsSettings.Alias[] OLD_TLS = {
        new TlsSettings.Alias(TLS, TlsSettings.ENABLE),
        new TlsSettings.Alias(TLS_CA_FILE, TlsSettings.CA_FILE),
        new TlsSettings.Alias(TLS_TRUST_STORE, TlsSettings.CA_FILE),
        new TlsSettings.Alias(TLS_TRUST_STORE_PASSWORD, TlsSettings.KEY_PASSWORD),
    };
    static final Param<String> HEARTBEAT_TYPE = Param.choice("HeartbeatType", "none",
            "none, udp (a one-byte datagram to the Forward port, as out_forward heartbeat_type udp; Fluentd's in_forward "
                    + "and consumer.Forward answer it, use tcp for servers that do not) or tcp (connect and close). "
                    + "Servers that stop answering are marked down and passed over until they answer again.", "none", "udp",
            "tcp");
    static final Param<Integer> HEARTBEAT_INTERVAL_MS = Param.millis("HeartbeatIntervalMs", 1_000,
            "Time between heartbeats to each server.").atLeast(1);
    static final Param<Integer> HEARTBEAT_TIMEOUT_MS = Param.millis("HeartbeatTimeoutMs", 10_000,
            "A server with no answer (and no ack) for this long is marked down.");
    static final Param<Integer> RECOVER_WAIT_MS = Param.millis("RecoverWaitMs", 10_000,
            "A server marked down is marked up again once it has answered heartbeats for this long (out_forward's "
                    + "recover_wait).").atLeast(0);

    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "producer.Forward",
            "Sends to Fluent Forward servers (Fluentd, Fluent Bit, Sluice): PackedForward or gzip, acks with a window, "
                    + "retries, failover, TLS, shared_key.")
            .params(TlsSettings.with(SERVERS, MODE, COMPRESSION_LEVEL, REQUIRE_ACK, ACK_TIMEOUT_MS, MAX_IN_FLIGHT,
                    MAX_RETRIES, RETRY_BACKOFF_MS, MAX_RETRY_BACKOFF_MS, CONNECT_TIMEOUT_MS, KEEPALIVE, TAG, RECORD,
                    PAYLOAD_KEY, TIME_AS_INTEGER, SHARED_KEY, SELF_HOSTNAME, USERNAME, PASSWORD, HEARTBEAT_TYPE,
                    HEARTBEAT_INTERVAL_MS, HEARTBEAT_TIMEOUT_MS, RECOVER_WAIT_MS, TLS, TLS_CA_FILE, TLS_TRUST_STORE,
                    TLS_TRUST_STORE_PASSWORD, TLS_VERIFY_HOSTNAME))
            .factory(ForwardProducer::new);

    private final ServerPool pool;
    /** MaxRetries, and the resend backoff of the Retry/* group (or of this producer's former keys). */
    private final RetryPolicy resend;
    private final ForwardMode mode;
    private final RecordEncoder.Source source;
    private final boolean requireAck;
    private final long ackTimeoutNanos;
    private final ThreadLocal<BatchEncoder> encoders;
    private final List<BatchEncoder> allEncoders = new ArrayList<>();
    private volatile boolean closed;
    private final TlsSettings tls;
    private Log log;
    private ProducerContext ctx;

    /** Validates the config; connections are made in {@link #start}. */
    public ForwardProducer(PluginConfig config) {
        super(config);
        this.tls = TlsSettings.from(config, TlsSettings.Role.CLIENT, OLD_TLS);
        this.resend = new RetryPolicy(config.get(MAX_RETRIES),
                config.groupOrOwn(PluginSpec.RETRY_BACKOFF_MS, RETRY_BACKOFF_MS),
                config.groupOrOwn(PluginSpec.RETRY_MAX_BACKOFF_MS, MAX_RETRY_BACKOFF_MS));
        List<ServerPool.Server> servers = new ArrayList<>();
        for (String s : config.get(SERVERS)) {
            HostPort a;
            try {
                a = HostPort.parse(s);
            } catch (IllegalArgumentException e) {
                throw config.error(SERVERS, e.getMessage());
            }
            if (a.port() == 0 || s.trim().startsWith(":")) {
                // a listen address (every interface, any port) names no server to connect to
                throw config.error(SERVERS, "expected host:port, found '" + s + "'");
            }
            servers.add(new ServerPool.Server(a.host(), a.port()));
        }
        if (servers.isEmpty()) {
            throw config.error(SERVERS, "needs at least one host:port");
        }
        mode = switch (config.get(MODE)) {
            case "CompressedPackedForward" -> ForwardMode.COMPRESSED_PACKED_FORWARD;
            case "Forward" -> ForwardMode.FORWARD;
            default -> ForwardMode.PACKED_FORWARD;
        };
        source = RecordEncoder.Source.valueOf(config.get(RECORD).toUpperCase(Locale.ROOT));
        int level = config.get(COMPRESSION_LEVEL);
        Heartbeat.Type heartbeatType = Heartbeat.Type.valueOf(config.get(HEARTBEAT_TYPE).toUpperCase(Locale.ROOT));
        if (config.get(HEARTBEAT_TIMEOUT_MS) <= config.get(HEARTBEAT_INTERVAL_MS)) {
            throw config.error(HEARTBEAT_TIMEOUT_MS, "must be longer than HeartbeatIntervalMs ("
                    + config.get(HEARTBEAT_INTERVAL_MS) + ")");
        }
        pool = new ServerPool(config, servers, heartbeatType);
        requireAck = config.get(REQUIRE_ACK);
        ackTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(config.get(ACK_TIMEOUT_MS));
        TimeFormat tf = config.get(TIME_AS_INTEGER) ? TimeFormat.INTEGER : TimeFormat.EVENT_TIME;
        encoders = ThreadLocal.withInitial(() -> {
            BatchEncoder e = new BatchEncoder(mode, requireAck, tf, config.get(TAG),
                    new RecordEncoder(source, config.get(PAYLOAD_KEY)), level);
            synchronized (allEncoders) {
                allEncoders.add(e);
            }
            return e;
        });
    }

    @Override
    public void start(ProducerContext context) throws Exception {
        this.ctx = context;
        this.log = context.log();
        NettyTls ssl = null;
        if (tls.enabled()) {
            ssl = new NettyTls(tls);
            tls.logTo(log, config.id());
        }
        pool.start(log, ssl);
    }

    @Override
    public void deliver(Batch batch) throws Exception {
        BatchEncoder enc = encoders.get();
        int frames = enc.encode(batch);
        if (enc.skipped() > 0) {
            log.limited(Log.WARNING, config.id() + ": not a record", config.id() + ": " + enc.skipped()
                    + " messages whose payload is not a msgpack map were not sent (Record: msgpack)");
        }
        if (frames == 0) {
            return;
        }
        for (int attempt = 0; ; attempt++) {
            if (closed) {
                throw new IOException(config.id() + ": closed before the batch was delivered");
            }
            ServerConnection c = null;
            try {
                c = pool.connection();
                send(c, enc, frames);
                if (requireAck) {
                    pool.alive(c.server()); // acks are a sign of life; a write alone is not
                }
                if (!config.get(KEEPALIVE)) {
                    c.close();
                }
                return;
            } catch (IOException | TimeoutException e) {
                if (c != null) {
                    // A silent or broken server: drop the connection so every frame waiting on it is resent.
                    c.close();
                }
                if (!resend.retries(attempt)) {
                    throw new IOException(config.id() + ": gave up after " + (attempt + 1) + " attempts: " + e.getMessage(), e);
                }
                log.limited(Log.WARNING, config.id() + ": send failed", config.id() + ": resending " + batch.size()
                        + " messages after: " + e.getMessage());
                ctx.stats().addRetried(batch.size());
                resend.pause(attempt, e); // backoff between attempts, not waiting for a result
            }
        }
    }

    /** Writes the frames not yet acknowledged and waits for their acks (or for the writes, without acks). */
    private void send(ServerConnection c, BatchEncoder enc, int frames)
            throws IOException, TimeoutException, InterruptedException {
        byte[] buf = enc.array();
        if (!requireAck) {
            ChannelFuture last = null;
            for (int i = 0; i < frames; i++) {
                last = c.write(Unpooled.wrappedBuffer(buf, enc.offset(i), enc.length(i)));
            }
            // The buffer is reused by the next batch: wait until the bytes are in the socket.
            last.await();
            if (!last.isSuccess()) {
                throw new IOException("write to " + c.address() + " failed: " + last.cause().getMessage(), last.cause());
            }
            return;
        }
        @SuppressWarnings("unchecked")
        CompletableFuture<Void>[] acks = new CompletableFuture[frames];
        for (int i = 0; i < frames; i++) {
            if (!enc.acked(i)) {
                acks[i] = c.expect(enc.chunk(i));
                c.write(Unpooled.wrappedBuffer(buf, enc.offset(i), enc.length(i)));
            }
        }
        long deadline = System.nanoTime() + ackTimeoutNanos;
        for (int i = 0; i < frames; i++) {
            if (acks[i] == null) {
                continue;
            }
            try {
                acks[i].get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                enc.setAcked(i);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            } catch (TimeoutException e) {
                for (int k = i; k < frames; k++) {
                    c.forget(enc.chunk(k));
                }
                throw new TimeoutException("no ack from " + c.address() + " within " + config.get(ACK_TIMEOUT_MS)
                        + " ms for chunk " + enc.chunk(i));
            }
        }
    }

    /** The servers and the connection (tests ask which server is up, and which one is used). */
    ServerPool pool() {
        return pool;
    }

    /** False while no server can be reached, or while heartbeats mark every server down. */
    @Override
    public boolean isReady() {
        return !closed && pool.isReady();
    }

    @Override
    public boolean concurrent() {
        return true;
    }

    @Override
    public int workers() {
        return config.get(MAX_IN_FLIGHT);
    }

    @Override
    public void close() {
        closed = true;
        pool.close();
        synchronized (allEncoders) {
            allEncoders.forEach(BatchEncoder::close);
        }
    }

}
