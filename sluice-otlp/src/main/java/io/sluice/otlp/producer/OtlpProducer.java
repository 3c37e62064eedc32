package io.sluice.otlp.producer;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.sluice.core.config.Param;
import io.sluice.core.tls.NettyTls;
import io.sluice.core.tls.TlsSettings;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.GzipBody;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PermanentDeliveryException;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.core.pipeline.RetryLaterException;
import io.sluice.otlp.codec.LogsEncoder;
import io.sluice.otlp.codec.MetricsEncoder;
import io.sluice.otlp.codec.OtlpFormatException;
import java.io.IOException;
import java.net.URI;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.Deflater;

/**
 * {@code producer.OTLP}: exports logs and metrics to an OpenTelemetry Collector (or any OTLP receiver) over
 * OTLP/gRPC or OTLP/HTTP with binary protobuf, rebuilding the export requests from the messages
 * ({@link LogsEncoder}, {@link MetricsEncoder}; see {@link io.sluice.core.message.OtlpFields}).
 *
 * <p>A pipeline batch is cut into requests of at most {@code BatchMaxRecords} messages and about
 * {@code BatchMaxBytes} bytes; each range of messages makes one logs request and one metrics request (those it has).
 * Retries are the pipeline's ({@code Retry/*}): a retryable answer (gRPC CANCELLED, DEADLINE_EXCEEDED, ABORTED,
 * OUT_OF_RANGE, UNAVAILABLE, DATA_LOSS, RESOURCE_EXHAUSTED with RetryInfo; HTTP 429, 502, 503, 504; I/O errors and
 * timeouts) throws a retryable exception carrying the server's delay (Retry-After, RetryInfo), after the messages
 * already accepted were removed from the batch, so a retry never sends them twice. Any other answer is permanent:
 * the messages go to the fallback stream, each with the server's reason as {@code otlp_error}. A partial success
 * is not retried: the rejected count is logged (rate limited) and counted as {@code sluice_otlp_rejected_total}.
 */
public final class OtlpProducer extends Producer {
    public static final Param<String> PROTOCOL = Param.choice("Protocol", "grpc",
            "grpc (OTLP/gRPC) or http/protobuf (OTLP/HTTP, binary protobuf).", "grpc", "http/protobuf");
    public static final Param<String> ENDPOINT = Param.string("Endpoint", "",
            "Where to send: host:port for grpc (http:// or https:// in front allowed; https turns TLS on), a base URL "
                    + "for http/protobuf, to which /v1/logs and /v1/metrics are appended. Empty: 127.0.0.1:4317 for "
                    + "grpc, http://127.0.0.1:4318 for http/protobuf.");
    public static final Param<String> COMPRESSION = Param.choice("Compression", "gzip",
            "gzip (as the Collector's exporters) or none.", "gzip", "none");
    public static final Param<Map<String, String>> HEADERS = Param.stringMap("Headers",
            "Headers sent with every request (gRPC metadata): a mapping, or a list of 'Name: value'.");
    public static final Param<Integer> TIMEOUT_MS = Param.millis("TimeoutMs", 5000,
            "Connect and request timeout (sent to gRPC servers as grpc-timeout); an unanswered request is retried.");
    public static final Param<Integer> BATCH_MAX_RECORDS = Param.integer("BatchMaxRecords", 8192,
            "Most messages (log records, data points) in one request; larger pipeline batches are split.");
    public static final Param<Integer> BATCH_MAX_BYTES = Param.sizeInt("BatchMaxBytes", 4_000_000,
            "About the most bytes of one request before compression (estimated from the messages, generously); "
                    + "below the 4 MiB gRPC servers accept by default. A single larger message is sent alone.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "producer.OTLP",
            "Exports logs and metrics over OTLP/gRPC or OTLP/HTTP (protobuf), gzip, TLS, rebuilding resources and "
                    + "scopes from the messages.")
            .params(TlsSettings.with(PROTOCOL, ENDPOINT, COMPRESSION, HEADERS, TIMEOUT_MS, BATCH_MAX_RECORDS,
                    BATCH_MAX_BYTES))
            .factory(OtlpProducer::new);

    /** The metadata key telling why a message went to the fallback stream. */
    public static final String ERROR_FIELD = "otlp_error";
    private static final byte[] K_ERROR = ERROR_FIELD.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** Estimated protobuf overhead of one message and of one field (tags, lengths, a varint's worst case). */
    private static final int MESSAGE_OVERHEAD = 48;
    private static final int FIELD_OVERHEAD = 16;
    /** gzip level 1: the Collector's HTTP exporter compresses at BestSpeed; sending is rarely ratio-bound. */
    private static final int GZIP_LEVEL = Deflater.BEST_SPEED;

    private final boolean grpc;
    private final boolean gzip;
    private final int maxRecords;
    private final long maxBytes;
    private final Endpoint endpoint;
    private final TlsSettings tls;
    private final LogsEncoder logs = new LogsEncoder();
    private final MetricsEncoder metrics = new MetricsEncoder();
    private GzipBody compressor;
    private EventLoopGroup group;
    private Transport transport;
    private Log log;
    private AtomicLong rejected = new AtomicLong();
    private boolean[] done = new boolean[0];
    private volatile boolean ready = true;

    /** Where requests go: host, port, HTTP base path and whether TLS is on. */
    record Endpoint(String host, int port, String basePath, boolean tls) {
    }

    /** Checks the settings; nothing connects before {@link #start}, and then only when the first batch is sent. */
    public OtlpProducer(PluginConfig config) {
        super(config);
        this.grpc = config.get(PROTOCOL).equals("grpc");
        this.gzip = config.get(COMPRESSION).equals("gzip");
        this.maxRecords = Math.max(1, config.get(BATCH_MAX_RECORDS));
        this.maxBytes = Math.max(1, config.get(BATCH_MAX_BYTES));
        this.endpoint = endpoint(config, grpc);
        if (config.get(TIMEOUT_MS) <= 0) {
            throw config.error(TIMEOUT_MS, "must be above 0");
        }
        this.tls = TlsSettings.from(config, TlsSettings.Role.CLIENT, endpoint.tls());
    }

    /** Parses Endpoint by protocol: host:port (or a URL) for gRPC, a base URL for HTTP. */
    static Endpoint endpoint(PluginConfig config, boolean grpc) {
        String raw = config.get(ENDPOINT).trim();
        if (raw.isEmpty()) {
            raw = grpc ? "127.0.0.1:4317" : "http://127.0.0.1:4318";
        }
        String text = raw.contains("://") ? raw : "http://" + raw;
        URI uri;
        try {
            uri = new URI(text);
        } catch (java.net.URISyntaxException e) {
            throw config.error(ENDPOINT, "not a host:port or URL: '" + raw + "'");
        }
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        if (uri.getHost() == null || (!scheme.equals("http") && !scheme.equals("https"))) {
            throw config.error(ENDPOINT, "not a host:port or http(s) URL: '" + raw + "'");
        }
        boolean tls = scheme.equals("https") || TlsSettings.from(config, TlsSettings.Role.CLIENT).enabled();
        int port = uri.getPort() > 0 ? uri.getPort() : grpc ? 4317 : tls ? 443 : 80;
        String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1) : uri.getHost();
        return new Endpoint(host, port, uri.getRawPath() == null ? "" : uri.getRawPath(), tls);
    }

    @Override
    public void start(ProducerContext ctx) throws Exception {
        this.log = ctx.log();
        if (ctx.stats() != null) {
            rejected = ctx.stats().counter("sluice_otlp_rejected_total",
                    "Log records and data points an OTLP server rejected in a partial success (not retried).");
        }
        if (gzip) {
            compressor = new GzipBody();
        }
        tls.logTo(ctx.log(), config.id());
        long timeout = config.get(TIMEOUT_MS);
        Map<String, String> headers = config.get(HEADERS);
        if (grpc) {
            group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
            NettyTls netty = tls.enabled() ? new NettyTls(tls, "h2") : null;
            transport = new GrpcTransport(group, endpoint.host(), endpoint.port(), netty, headers, timeout);
        } else {
            transport = new HttpTransport(endpoint.host(), endpoint.port(), endpoint.basePath(),
                    tls.enabled() ? tls : null, headers, timeout);
        }
    }

    /**
     * Sends the batch's log records and data points, in requests cut by BatchMaxRecords and BatchMaxBytes, and
     * returns once all were accepted; otherwise leaves in the batch only the messages not delivered and throws (see
     * the class description for which failures are retried).
     */
    @Override
    public void deliver(Batch batch) throws Exception {
        int n = batch.size();
        if (done.length < n) {
            done = new boolean[Math.max(n, done.length * 2)];
        }
        Arrays.fill(done, 0, n, false);
        Failure failure = new Failure();
        for (int from = 0; from < n && !failure.retryable; ) {
            int to = cut(batch, from, n);
            send(batch, from, to, Transport.Signal.LOGS, failure);
            send(batch, from, to, Transport.Signal.METRICS, failure);
            from = to;
        }
        ready = !failure.retryable;
        if (failure.reason != null) {
            keepUndelivered(batch, n);
            if (!failure.retryable) {
                markFailed(batch, failure.reason);
            }
            throw failure.exception(batch.size());
        }
    }

    /** The end of the range from {@code from} that fits BatchMaxRecords and (estimated) BatchMaxBytes. */
    private int cut(Batch batch, int from, int n) {
        long bytes = 0;
        int to = from;
        while (to < n && to - from < maxRecords) {
            bytes += estimate(batch.get(to));
            if (bytes > maxBytes && to > from) {
                break;
            }
            to++;
        }
        return to;
    }

    /**
     * About the bytes a message takes in a request, erring high: resource and scope fields are counted each time, and
     * a HEC metric's fields once per measurement (each of its points repeats them).
     */
    private static long estimate(Message m) {
        long n = m.length() + MESSAGE_OVERHEAD;
        if (m.hasMetadata()) {
            Metadata md = m.metadata();
            for (int i = 0; i < md.size(); i++) {
                n += md.keyLength(i) + md.rawValueLength(i) + FIELD_OVERHEAD;
            }
        }
        return n * Math.max(1, MetricsEncoder.points(m));
    }

    /** Encodes and sends one request of the range's messages of one signal, if it has any; records the outcome. */
    private void send(Batch batch, int from, int to, Transport.Signal signal, Failure failure)
            throws InterruptedException {
        boolean isMetrics = signal == Transport.Signal.METRICS;
        if (failure.retryable) {
            return;
        }
        int count;
        try {
            count = isMetrics ? metrics.encode(batch, from, to, 0) : logs.encode(batch, from, to, 0);
        } catch (RuntimeException e) {
            // A message the encoder cannot take would fail every retry alike: permanent, to the fallback stream.
            failure.add(Reply.failed(false, -1, "cannot encode the " + signal.name().toLowerCase(Locale.ROOT)
                    + " request: " + e));
            return;
        }
        if (count == 0) {
            return;
        }
        byte[] body = isMetrics ? metrics.buffer() : logs.buffer();
        int len = isMetrics ? metrics.length() : logs.length();
        if (gzip) {
            len = compressor.deflate(body, 0, len, GZIP_LEVEL);
            body = compressor.output();
        }
        Reply reply;
        try {
            reply = transport.export(signal, body, 0, len, gzip);
        } catch (IOException e) {
            reply = Reply.failed(true, -1, e.getMessage());
        }
        if (!reply.ok) {
            failure.add(reply);
            return;
        }
        partialSuccess(reply, isMetrics, count);
        for (int i = from; i < to; i++) {
            if (MetricsEncoder.isMetric(batch.get(i)) == isMetrics) {
                done[i] = true;
            }
        }
    }

    private void partialSuccess(Reply reply, boolean isMetrics, int count) {
        Responses.Partial p;
        try {
            p = Responses.partialSuccess(reply.body);
        } catch (OtlpFormatException e) {
            log.limited(Log.WARNING, config.id() + ": bad response", config.id() + ": unreadable export response: " + e.getMessage());
            return;
        }
        if (p == null) {
            return;
        }
        rejected.addAndGet(p.rejected());
        String what = isMetrics ? "data points" : "log records";
        log.limited(Log.WARNING, config.id() + ": partial success", config.id() + ": the server rejected "
                + p.rejected() + " of " + count + " " + what + " (not retried)" + (p.message().isEmpty() ? "" : ": " + p.message()));
    }

    /** Moves the messages not delivered to the front and drops the others, so a retry does not send them again. */
    private void keepUndelivered(Batch batch, int n) {
        int kept = 0;
        for (int i = 0; i < n; i++) {
            if (!done[i]) {
                batch.swap(i, kept++);
            }
        }
        batch.truncate(kept);
    }

    /**
     * Tells, on each message bound for the fallback stream, why the server would not take it ({@code otlp_error}),
     * as producer.SplunkHEC does with {@code hec_error_text}. Only for permanent failures: a message to be retried
     * must go again as it came.
     */
    private static void markFailed(Batch batch, String reason) {
        byte[] why = reason.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).metadata().set(K_ERROR, why, Metadata.STRING);
        }
    }

    /** The failures of one delivery: retryable when any was (the rest of the batch waits untried then). */
    private static final class Failure {
        String reason;
        boolean retryable;
        long retryAfter = -1;

        void add(Reply r) {
            if (reason == null || r.retryable && !retryable) {
                reason = r.error;
            }
            retryable |= r.retryable;
            retryAfter = Math.max(retryAfter, r.retryAfterMillis);
        }

        Exception exception(int messages) {
            String text = messages + " messages not delivered: " + reason;
            if (!retryable) {
                return new PermanentDeliveryException(text);
            }
            return retryAfter >= 0 ? new RetryLaterException(text, retryAfter) : new IOException(text);
        }
    }

    @Override
    public boolean isReady() {
        return ready;
    }

    @Override
    public void close() {
        if (transport != null) {
            transport.close();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (compressor != null) {
            compressor.close();
        }
    }
}
