package io.sluice.otlp.consumer;

import io.netty.handler.ssl.ApplicationProtocolNames;
import io.sluice.core.config.Param;
import io.sluice.core.tls.NettyTls;
import io.sluice.core.tls.TlsSettings;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.net.HostPort;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Exposure;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code consumer.OTLP}: an OpenTelemetry OTLP receiver for logs and metrics that the OpenTelemetry SDKs and the
 * Collector's OTLP exporters send to, over OTLP/gRPC ({@code Address}, default 127.0.0.1:4317) and OTLP/HTTP
 * ({@code HTTPAddress}, default 127.0.0.1:4318; protobuf or JSON), gzip, TLS and bearer tokens. Each log record or
 * metric data point becomes one message, as {@link io.sluice.core.message.OtlpFields} describes. Traces are not
 * taken (gRPC UNIMPLEMENTED, HTTP 404).
 *
 * <p>A request is answered with success only once the pipeline delivered its records; a delivery that fails, a
 * spent memory budget or {@code MaxPendingRecords} records waiting is answered as OTLP's retryable "busy" (gRPC 14
 * UNAVAILABLE with a RetryInfo, HTTP 503 with Retry-After), so the exporter sends again and nothing is lost. See
 * {@link OtlpServer} for the limits. Refusals are counted on {@code /metrics} ({@code sluice_rejected_total} by
 * reason: malformed, too_large, auth, busy, timeout) and logged as rate-limited WARNs; requests answered with
 * success are counted as {@code sluice_otlp_requests_total}.
 */
public final class OtlpConsumer extends Consumer implements Exposure.Listening {
    public static final Param<String> ADDRESS = Param.string("Address", "127.0.0.1:4317",
            "host:port of the OTLP/gRPC listener (HTTP/2: h2c, or h2 with TLS); :4317 or 0.0.0.0:4317 listens on every "
                    + "interface; empty turns gRPC off.");
    public static final Param<String> HTTP_ADDRESS = Param.string("HTTPAddress", "127.0.0.1:4318",
            "host:port of the OTLP/HTTP listener (POST /v1/logs, /v1/metrics; protobuf or JSON); empty turns it off.");
    public static final Param<List<String>> BEARER_TOKENS = Param.strings("BearerTokens", List.of(),
            "Accepted tokens ('Authorization: Bearer <token>'); empty accepts requests without checking. Refused: HTTP "
                    + "401, gRPC 16 UNAUTHENTICATED.");
    public static final Param<String> AUTH_HEADER = Param.string("AuthHeader", "Authorization",
            "The header that carries the token: 'Authorization' takes 'Bearer <token>'; any other header (an API-key "
                    + "header such as X-Api-Key, which OTLP exporters set with their 'headers' option) is the token "
                    + "itself.");
    public static final Param<Integer> MAX_REQUEST_SIZE = Param.sizeInt("MaxRequestSize", 4 * 1024 * 1024,
            "Largest request, in bytes, before and after gzip (gRPC: the message). 4 MiB is gRPC's usual receive "
                    + "limit, which exporters already split for; the Collector's OTLP/HTTP allows 20 MiB. Larger gets "
                    + "HTTP 413 / gRPC 8 RESOURCE_EXHAUSTED (not retried).");
    public static final Param<Integer> MAX_PENDING = Param.integer("MaxPendingRecords", 65536,
            "Log records and data points accepted but not yet delivered; beyond this requests are answered busy "
                    + "(HTTP 503 with Retry-After, gRPC 14 UNAVAILABLE with RetryInfo).");
    /** The listener limit every network input shares (the gRPC and HTTP listeners together). */
    public static final Param<Integer> MAX_CONNECTIONS = PluginSpec.MAX_CONNECTIONS;
    public static final Param<Integer> IDLE_TIMEOUT_MS = Param.millis("IdleTimeoutMs", 60_000,
            "A request must arrive in full within this long of its start (else it is dropped and counted as a timeout); "
                    + "a connection without a request is closed after as long.");
    public static final Param<Integer> IO_THREADS = Param.integer("IOThreads", 2,
            "Netty event loop threads (they read, inflate and decode requests).");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "consumer.OTLP",
            "Receives OpenTelemetry logs and metrics over OTLP/gRPC and OTLP/HTTP (protobuf, JSON), answering after "
                    + "delivery.")
            .params(TlsSettings.with(ADDRESS, HTTP_ADDRESS, BEARER_TOKENS, AUTH_HEADER, MAX_REQUEST_SIZE, MAX_PENDING,
                    MAX_CONNECTIONS, IDLE_TIMEOUT_MS, IO_THREADS))
            .factory(OtlpConsumer::new);

    /** Largest MaxRequestSize: a body and its inflated form must fit Java arrays. */
    static final int MAX_REQUEST_LIMIT = 1 << 30;

    private final OtlpServer.Settings settings = new OtlpServer.Settings();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile OtlpServer server;
    private volatile boolean consuming;
    private TlsSettings tlsSettings;

    /** Validates the config; the listeners bind in {@link #open}. */
    public OtlpConsumer(PluginConfig config) {
        super(config);
        String grpc = config.get(ADDRESS).trim();
        String http = config.get(HTTP_ADDRESS).trim();
        if (grpc.isEmpty() && http.isEmpty()) {
            throw config.error(ADDRESS, "Address and HTTPAddress are both empty: nothing to listen on");
        }
        if (!grpc.isEmpty()) {
            HostPort a = address(config, ADDRESS, grpc);
            settings.grpcHost = a.host();
            settings.grpcPort = a.port();
        } else {
            settings.grpcPort = -1;
        }
        if (!http.isEmpty()) {
            HostPort a = address(config, HTTP_ADDRESS, http);
            settings.httpHost = a.host();
            settings.httpPort = a.port();
        } else {
            settings.httpPort = -1;
        }
        settings.tokens = List.copyOf(config.get(BEARER_TOKENS));
        settings.authHeader = config.get(AUTH_HEADER).trim().toLowerCase(java.util.Locale.ROOT);
        if (settings.authHeader.isEmpty() || !settings.authHeader.chars().allMatch(c -> c > ' ' && c < 127 && c != ':')) {
            throw config.error(AUTH_HEADER, "not a header name: '" + config.get(AUTH_HEADER) + "'");
        }
        settings.maxRequestSize = atLeast(config, MAX_REQUEST_SIZE, 1);
        if (settings.maxRequestSize > MAX_REQUEST_LIMIT) {
            throw config.error(MAX_REQUEST_SIZE, "must be at most " + MAX_REQUEST_LIMIT);
        }
        settings.maxPendingRecords = atLeast(config, MAX_PENDING, 1);
        settings.maxConnections = atLeast(config, MAX_CONNECTIONS, 1);
        settings.idleTimeoutMs = atLeast(config, IDLE_TIMEOUT_MS, 1);
        settings.ioThreads = atLeast(config, IO_THREADS, 1);
        settings.id = config.id();
        tls(config);
    }

    /** The TLS/* group: both listeners take TLS only when it is on (gRPC offering h2 by ALPN, HTTP http/1.1). */
    private void tls(PluginConfig config) {
        TlsSettings tls = TlsSettings.from(config, TlsSettings.Role.SERVER);
        tlsSettings = tls;
        if (tls.enabled()) {
            settings.grpcTls = settings.grpcPort < 0 ? null : new NettyTls(tls, ApplicationProtocolNames.HTTP_2).context();
            settings.httpTls = settings.httpPort < 0 ? null : new NettyTls(tls, ApplicationProtocolNames.HTTP_1_1).context();
        }
    }

    @Override
    public List<Exposure.Listener> listeners() {
        boolean auth = !settings.tokens.isEmpty()
                || tlsSettings.enabled() && tlsSettings.clientAuth() == TlsSettings.ClientAuth.REQUIRE;
        List<Exposure.Listener> out = new java.util.ArrayList<>(2);
        if (settings.grpcPort >= 0) {
            out.add(new Exposure.Listener("OTLP/gRPC", settings.grpcHost, settings.grpcPort, tlsSettings.enabled(), auth,
                    BEARER_TOKENS.name()));
        }
        if (settings.httpPort >= 0) {
            out.add(new Exposure.Listener("OTLP/HTTP", settings.httpHost, settings.httpPort, tlsSettings.enabled(), auth,
                    BEARER_TOKENS.name()));
        }
        return out;
    }

    /** A listener's TCP address ({@code host:port}, {@code :port}, {@code [v6]:port}), or the config error. */
    private static HostPort address(PluginConfig config, Param<String> p, String addr) {
        try {
            return HostPort.parse(addr);
        } catch (IllegalArgumentException e) {
            throw config.error(p, e.getMessage());
        }
    }

    private static int atLeast(PluginConfig config, Param<Integer> p, int min) {
        int v = config.get(p);
        if (v < min) {
            throw config.error(p, "must be at least " + min);
        }
        return v;
    }

    /** Binds the listeners on the starting thread: an address in use fails the start, naming it. */
    @Override
    public void open(ConsumerContext ctx) throws Exception {
        OtlpServer s = new OtlpServer(settings, ctx);
        InetSocketAddress[] bound = s.start();
        InetSocketAddress grpcBound = bound[0];
        InetSocketAddress httpBound = bound[1];
        server = s;
        String tls = settings.grpcTls != null || settings.httpTls != null ? " (TLS)" : "";
        tlsSettings.logTo(ctx.log(), config.id());
        ctx.log().info(config.id() + ": OTLP listening" + (grpcBound == null ? "" : " on " + grpcBound + " (gRPC)")
                + (httpBound == null ? "" : " on " + httpBound + " (HTTP)") + tls);
        boolean auth = !settings.tokens.isEmpty();
        Exposure.warnIfOpen(ctx.log(), config.id(), grpcBound, auth, BEARER_TOKENS.name());
        Exposure.warnIfOpen(ctx.log(), config.id(), httpBound, auth, BEARER_TOKENS.name());
    }

    @Override
    public void consume(ConsumerContext ctx) throws Exception {
        consuming = true;
        if (server == null) {
            open(ctx);
        }
        OtlpServer s = server;
        try {
            while (ctx.isActive() && !stopped.await(200, TimeUnit.MILLISECONDS)) {
                // the event loops do the work; a listener that is gone ends the process (never half-alive)
                Throwable lost = s.listenerLost();
                if (lost != null) {
                    throw new IOException(config.id() + ": an OTLP listener is gone: " + lost, lost);
                }
            }
        } finally {
            s.stop();
        }
    }

    @Override
    public void stop() {
        stopped.countDown();
        OtlpServer s = server;
        if (s != null && !consuming) {
            s.stop(); // opened, but the start stopped before consume ran
        }
    }

    @Override
    public boolean isReady() {
        OtlpServer s = server;
        return s != null && s.listening();
    }
}
