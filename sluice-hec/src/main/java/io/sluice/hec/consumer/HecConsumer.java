package io.sluice.hec.consumer;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.net.HostPort;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Exposure;
import io.sluice.core.tls.NettyTls;
import io.sluice.core.tls.TlsSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A Splunk HTTP Event Collector that real HEC clients (Splunk forwarders' HTTP output, Fluent Bit's
 * out_splunk, the OTel exporter, {@code producer.SplunkHEC}) can post to: {@code /services/collector},
 * {@code /event}, {@code /raw}, {@code /health} and {@code /ack}, gzip bodies, tokens, Splunk's status codes.
 * It answers success only once the pipeline delivered the events, 503 "Server is busy" while
 * {@code MaxPendingEvents} events wait or the memory budget is spent, and 413 for what is too large; see
 * {@link HecServer} for its limits.
 */
public final class HecConsumer extends Consumer implements Exposure.Listening {
    public static final Param<String> ADDRESS = Param.string("Address", "127.0.0.1:8088",
            "host:port to listen on; :8088 or 0.0.0.0:8088 listens on every interface.");
    public static final Param<List<String>> TOKENS = Param.strings("Tokens", List.of(),
            "Accepted tokens ('Authorization: Splunk <token>'); empty accepts requests without checking.");
    /** Largest MaxBodySize: a body and its inflated form must fit Java arrays. */
    static final int MAX_BODY_LIMIT = 1 << 30;
    public static final Param<Integer> MAX_BODY_SIZE = Param.sizeInt("MaxBodySize", 32 * 1024 * 1024,
            "Largest request body, before and after gzip; larger ones get 413.").between(1, MAX_BODY_LIMIT);
    public static final Param<Integer> MAX_PENDING = Param.integer("MaxPendingEvents", 65536,
            "Events accepted but not yet delivered; beyond this requests get 503 'Server is busy' (code 9).").atLeast(1);
    public static final Param<Integer> MAX_EVENTS = Param.integer("MaxEventsPerRequest", 100_000,
            "Most events in one request; more get 413 (each event costs memory beyond its bytes).").atLeast(1);
    /** The listener limit every network input shares. */
    public static final Param<Integer> MAX_CONNECTIONS = PluginSpec.MAX_CONNECTIONS;
    public static final Param<Integer> IDLE_TIMEOUT_MS = Param.millis("IdleTimeoutMs", 60_000,
            "A request must arrive in full within this long of its first byte (else the connection is closed and "
                    + "counted as a timeout); a connection without a request is closed after as long.").atLeast(1);
    public static final Param<Integer> MAX_DEPTH = Param.integer("MaxDepth", 512,
            "Deepest JSON nesting accepted in an event; deeper gets 400 'Invalid data format'.");
    public static final Param<List<String>> INDEXES = Param.strings("Indexes", List.of(),
            "Allowed index names; an event naming another gets 400 'Incorrect index' (code 7). Empty allows any.");
    public static final Param<Map<String, List<String>>> TOKEN_INDEXES = Param.stringListMap("TokenIndexes",
            "Token to the indexes its events may name, as Splunk's per-token 'indexes': another gets 400 'Incorrect "
                    + "index' (code 7), and an event naming none gets the first (unless TokenDefaultIndex names one). "
                    + "Each token must be in Tokens, each index in Indexes when that is set. A token not listed may "
                    + "write any index Indexes allows.");
    public static final Param<Map<String, String>> TOKEN_DEFAULT_INDEX = Param.stringMap("TokenDefaultIndex",
            "Token to the index its events get when they name none, as Splunk's per-token 'index' (an event's own "
                    + "index, then the query's ?index=, come first). It must be among the token's TokenIndexes, and in "
                    + "Indexes when that is set.");
    public static final Param<Boolean> EVENT_REQUIRED = Param.bool("EventFieldRequired", true,
            "Splunk's rule: an object without 'event' gets code 12. Set false to take the whole object as the event "
                    + "(Fluent Bit's Splunk_Send_Raw).");
    public static final Param<Boolean> USE_ACK = Param.bool("UseAck", false,
            "Indexer acknowledgement: require a channel, answer with ackId, serve /services/collector/ack.");
    public static final Param<Integer> IO_THREADS = Param.integer("IOThreads", 2, "Netty event loop threads.");

    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "consumer.HEC",
            "Receives Splunk HTTP Event Collector requests (events, metrics, raw) over HTTP or HTTPS.")
            .params(TlsSettings.with(ADDRESS, TOKENS, MAX_BODY_SIZE, MAX_PENDING, MAX_EVENTS, MAX_CONNECTIONS,
                    IDLE_TIMEOUT_MS, MAX_DEPTH, INDEXES, TOKEN_INDEXES, TOKEN_DEFAULT_INDEX,
                    EVENT_REQUIRED, USE_ACK, IO_THREADS))
            .factory(HecConsumer::new);

    private final HecServer.Settings settings = new HecServer.Settings();
    private final TlsSettings tls;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile HecServer server;
    private volatile InetSocketAddress bound;
    private volatile boolean consuming;

    public HecConsumer(PluginConfig config) {
        super(config);
        HostPort address;
        try {
            address = HostPort.parse(config.get(ADDRESS));
        } catch (IllegalArgumentException e) {
            throw config.error(ADDRESS, e.getMessage());
        }
        settings.host = address.host();
        settings.port = address.port();
        settings.tokens = new HashSet<>(config.get(TOKENS));
        settings.maxBodySize = config.get(MAX_BODY_SIZE);
        settings.maxPendingEvents = config.get(MAX_PENDING);
        settings.maxDepth = config.get(MAX_DEPTH);
        List<String> idx = config.get(INDEXES);
        settings.indexes = idx.isEmpty() ? null : TokenIndexes.bytes(idx);
        settings.tokenIndexes = config.get(TOKEN_INDEXES);
        settings.tokenDefaultIndex = config.get(TOKEN_DEFAULT_INDEX);
        checkTokenIndexes(config);
        settings.eventRequired = config.get(EVENT_REQUIRED);
        settings.useAck = config.get(USE_ACK);
        settings.ioThreads = config.get(IO_THREADS);
        settings.id = config.id();
        settings.maxEventsPerRequest = config.get(MAX_EVENTS);
        settings.maxConnections = config.get(MAX_CONNECTIONS);
        settings.idleTimeoutMs = config.get(IDLE_TIMEOUT_MS);
        tls = TlsSettings.from(config, TlsSettings.Role.SERVER);
        settings.tls = tls.enabled() ? new NettyTls(tls) : null;
    }

    @Override
    public List<Exposure.Listener> listeners() {
        boolean certificates = tls.enabled() && tls.clientAuth() == TlsSettings.ClientAuth.REQUIRE;
        return List.of(new Exposure.Listener("HEC", settings.host, settings.port, tls.enabled(),
                !settings.tokens.isEmpty() || certificates, TOKENS.name()));
    }

    /**
     * The per-token index settings must make sense together, as Splunk's token editor insists: a token that is
     * not in Tokens (a typo would silently leave the real token unrestricted), an empty list, or a default index the
     * token may not write is an error. Tokens are named by their place in Tokens, never by their value.
     */
    private void checkTokenIndexes(PluginConfig config) {
        List<String> tokens = config.get(TOKENS);
        List<String> global = config.get(INDEXES);
        Map<String, List<String>> allowed = config.get(TOKEN_INDEXES);
        Map<String, String> defaults = config.get(TOKEN_DEFAULT_INDEX);
        checkListed(config, TOKEN_INDEXES, allowed.keySet(), tokens);
        checkListed(config, TOKEN_DEFAULT_INDEX, defaults.keySet(), tokens);
        allowed.forEach((token, indexes) -> {
            String which = "the token Tokens[" + tokens.indexOf(token) + "]";
            if (indexes.isEmpty()) {
                throw config.error(TOKEN_INDEXES, which + " has no index; list at least one, or leave the token "
                        + "out to let it write any index");
            }
            for (String index : indexes) {
                checkIndex(config, TOKEN_INDEXES, which, index, global);
            }
        });
        defaults.forEach((token, index) -> {
            String which = "the token Tokens[" + tokens.indexOf(token) + "]";
            checkIndex(config, TOKEN_DEFAULT_INDEX, which, index, global);
            List<String> own = allowed.get(token);
            if (own != null && !own.contains(index)) {
                throw config.error(TOKEN_DEFAULT_INDEX, which + " defaults to index '" + index
                        + "', which is not among its TokenIndexes " + own);
            }
        });
    }

    private static void checkListed(PluginConfig config, Param<?> param, Collection<String> named, List<String> tokens) {
        int entry = 0;
        for (String token : named) {
            if (!tokens.contains(token)) {
                throw config.error(param, "entry " + entry + " names a token that is not in Tokens");
            }
            entry++;
        }
    }

    private static void checkIndex(PluginConfig config, Param<?> param, String which, String index, List<String> global) {
        if (index.isBlank()) {
            throw config.error(param, which + " has an empty index name");
        }
        if (!global.isEmpty() && !global.contains(index)) {
            throw config.error(param, which + ": index '" + index + "' is not in Indexes " + global);
        }
    }

    /** Binds the listening socket on the starting thread: an address in use fails the start, naming it. */
    @Override
    public void open(ConsumerContext ctx) throws Exception {
        HecServer s = new HecServer(settings, ctx);
        bound = s.start();
        server = s;
        tls.logTo(ctx.log(), config.id());
        ctx.log().info(config.id() + ": HEC listening on " + (tls.enabled() ? "https://" : "http://") + bound.getHostString() + ":" + bound.getPort()
                + (tls.enabled() ? " (TLS: " + NettyTls.providerName() + ")" : ""));
        Exposure.warnIfOpen(ctx.log(), config.id(), bound, !settings.tokens.isEmpty(), TOKENS.name());
    }

    @Override
    public void consume(ConsumerContext ctx) throws Exception {
        consuming = true;
        if (server == null) {
            open(ctx);
        }
        HecServer s = server;
        try {
            while (ctx.isActive() && !stopped.await(200, TimeUnit.MILLISECONDS)) {
                // the event loops do the work; a listener that is gone ends the process (never half-alive)
                Throwable lost = s.listenerLost();
                if (lost != null) {
                    throw new IOException(config.id() + ": the listener on " + bound + " is gone: " + lost, lost);
                }
            }
        } finally {
            s.stop();
        }
    }

    @Override
    public void stop() {
        stopped.countDown();
        HecServer s = server;
        if (s != null && !consuming) {
            s.stop(); // opened, but the start stopped before consume ran
        }
    }

    @Override
    public boolean isReady() {
        HecServer s = server;
        return s != null && s.listening();
    }
}
