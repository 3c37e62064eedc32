package io.sluice.hec.producer;

import io.sluice.core.config.Param;
import io.sluice.core.tls.TlsSettings;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.hec.codec.HecEncoder;
import io.sluice.hec.codec.HecFormat;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Sends messages to a Splunk HTTP Event Collector as HEC events or metric events (see the module README for
 * how a message carries measurements; OTLP log records and metric points from consumer.OTLP are mapped as the OTel
 * Collector's splunkhec exporter maps them), batched into requests of at most {@code MaxContentLength} bytes as
 * sent, gzip by default. With {@code FlushIntervalMs} the pipeline batches of several worker threads may share
 * requests (see {@link Accumulator}). A batch is delivered when every request carrying its events was accepted;
 * what cannot be delivered (permanent errors, oversized events, retries exhausted) goes to the fallback stream
 * carrying {@code hec_error_status}, {@code hec_error_code} and {@code hec_error_text} metadata.
 *
 * <p>The plugin {@code producer.SplunkHEC}: its settings, and delivery of pipeline batches (alone or gathered).
 * Encoding is {@link HecEncoder}'s, sending and retrying a request {@link RequestSender}'s, tagging what could not
 * be delivered {@link Undelivered}'s.
 */
public final class HecProducer extends Producer {
    public static final Param<String> ENDPOINT = Param.string("Endpoint", "http://127.0.0.1:8088",
            "Base URL of the collector (http or https); /services/collector/... is appended.");
    public static final Param<String> TOKEN = Param.requiredString("Token", "HEC token, sent as 'Authorization: Splunk <token>'.");
    public static final Param<String> HOST = Param.string("Host", "", "Default host; metadata key 'host' overrides it per message.");
    public static final Param<String> SOURCE = Param.string("Source", "", "Default source; metadata key 'source' overrides it.");
    public static final Param<String> SOURCETYPE = Param.string("Sourcetype", "",
            "Default sourcetype; metadata key 'sourcetype' overrides it.");
    public static final Param<String> INDEX = Param.string("Index", "", "Default index; metadata key 'index' overrides it.");
    public static final Param<HecFormat.EventFormat> EVENT_FORMAT = Param.choice("EventFormat",
            HecFormat.EventFormat.AUTO, "How the payload becomes 'event': auto (a valid JSON object or array is sent "
                    + "as JSON, else a string), string, or json (trusted, unchecked).");
    public static final Param<List<String>> FIELDS = Param.strings("Fields", List.of(),
            "Metadata keys sent as indexed 'fields'; empty sends every key except host/source/sourcetype/index.");
    public static final Param<Boolean> MULTI_METRIC = Param.bool("UseMultiMetricFormat", false,
            "Send all measurements sharing time and dimensions as one multi-metric event.");
    public static final Param<Boolean> RAW = Param.bool("Raw", false,
            "Post payloads as lines to /services/collector/raw; Host/Source/Sourcetype/Index go in the query.");
    public static final Param<Integer> MAX_CONTENT_LENGTH = Param.sizeInt("MaxContentLength", 2 * 1024 * 1024,
            "Maximum bytes of one request body as sent (compressed when Gzip is on).").atLeast(1024);
    public static final Param<Integer> MAX_EVENT_SIZE = Param.sizeInt("MaxEventSize", 5 * 1024 * 1024,
            "Events larger than this (uncompressed) go to the fallback stream.");
    public static final Param<Integer> FLUSH_INTERVAL_MS = Param.millis("FlushIntervalMs", 0,
            "Longest time (ms) an event waits for the events of later pipeline batches to share its requests, like "
                    + "Fluent Bit's Flush, the OTel exporter's batch flush_timeout or Vector's batch.timeout_secs. "
                    + "Batches gather until their events reach MaxContentLength (uncompressed), this time passes, or "
                    + "every delivering thread holds a waiting batch; each is still acknowledged only after the "
                    + "requests carrying it were accepted, and a stopping pipeline sends what waits. 0 (default): "
                    + "each pipeline batch is sent at once, adding no latency.").atLeast(0);
    public static final Param<Boolean> GZIP = Param.bool("Gzip", true, "Compress request bodies with gzip.");
    public static final Param<Integer> GZIP_LEVEL = Param.integer("GzipLevel", 6, "gzip level, 1 (fastest) to 9.")
            .between(1, 9);
    /**
     * As many delivering threads as cores, 2 to 4: each thread encodes its batches too, and on a 2-core machine
     * four of them crowded out the consumer that feeds them (BENCHMARKS.md: TCP -> SplunkHEC, cold, alternated,
     * medians 1.24M events/s with 4 and 1.32M with 2). Two requests in flight still overlap one request's round
     * trip with the next one's encoding.
     */
    private static final int DEFAULT_CONNECTIONS = Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));
    public static final Param<Integer> MAX_CONNECTIONS = Param.integer("MaxConnections", DEFAULT_CONNECTIONS,
            "Requests in flight at once (one keep-alive connection and one delivering thread each); default: the "
                    + "number of cores, at least 2 and at most 4.").atLeast(1);
    public static final Param<Integer> TIMEOUT_MS = Param.millis("RequestTimeoutMs", 30000, "Connect and request timeout.");
    /**
     * A request's resend backoff under its former names, read for one more release: Retry/BackoffMs and
     * Retry/MaxBackoffMs set it now; with neither key set it keeps this producer's own defaults (500 ms, at most 30 s).
     */
    public static final Param<Integer> RETRY_INITIAL_MS = Param.millis("RetryInitialMs", 500,
            "First backoff after a 5xx or I/O error; doubles each attempt, with jitter.")
            .deprecatedFor(PluginSpec.RETRY_BACKOFF_MS);
    public static final Param<Integer> RETRY_MAX_MS = Param.millis("RetryMaxMs", 30000, "Longest single backoff.")
            .deprecatedFor(PluginSpec.RETRY_MAX_BACKOFF_MS);
    public static final Param<Integer> RETRY_MAX_ELAPSED_MS = Param.millis("RetryMaxElapsedMs", 300000,
            "Give up on a request after retrying this long; its events go to the fallback stream.");
    public static final Param<String> TLS_CA_FILE = Param.string("TLSCAFile", "", "PEM file of CAs to trust for https.")
            .deprecatedFor(TlsSettings.CA_FILE);
    public static final Param<Boolean> TLS_INSECURE = Param.bool("TLSInsecureSkipVerify", false,
            "Trust any certificate and host name (testing only).").deprecatedFor(TlsSettings.INSECURE_SKIP_VERIFY);
    public static final Param<Boolean> USE_ACK = Param.bool("UseAck", false,
            "Indexer acknowledgement: poll /services/collector/ack and resend what is not acked in time.");
    public static final Param<Integer> ACK_POLL_MS = Param.millis("AckPollMs", 200, "Interval between ack polls.");
    public static final Param<Integer> ACK_TIMEOUT_MS = Param.millis("AckTimeoutMs", 60000,
            "Resend a request whose ack did not come within this time.");
    public static final Param<Boolean> HEALTH_CHECK = Param.bool("HealthCheck", true,
            "Check /services/collector/health at start and log the result.");

    // OTLP records and points (messages with otlp.signal): the OTel splunkhec exporter's otel_attrs_to_hec_metadata
    // and otel_to_hec_fields, with its defaults.
    public static final Param<String> OTEL_HOST = Param.string("OtelHostAttribute", "host.name",
            "OTLP: the resource (or log record) attribute that becomes 'host' (else Host, else \"unknown\").");
    public static final Param<String> OTEL_SOURCE = Param.string("OtelSourceAttribute", "com.splunk.source",
            "OTLP: the resource (or log record) attribute that becomes 'source' (else Source).");
    public static final Param<String> OTEL_SOURCETYPE = Param.string("OtelSourcetypeAttribute", "com.splunk.sourcetype",
            "OTLP: the resource (or log record) attribute that becomes 'sourcetype' (else Sourcetype).");
    public static final Param<String> OTEL_INDEX = Param.string("OtelIndexAttribute", "com.splunk.index",
            "OTLP: the resource (or log record) attribute that becomes 'index' (else Index).");
    public static final Param<String> OTEL_SEVERITY_TEXT = Param.string("OtelSeverityTextField", "otel.log.severity.text",
            "OTLP logs: the 'fields' key of a record's severity text.");
    public static final Param<String> OTEL_SEVERITY_NUMBER = Param.string("OtelSeverityNumberField",
            "otel.log.severity.number", "OTLP logs: the 'fields' key of a record's severity number.");

    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "producer.SplunkHEC",
            "Sends events and metrics to a Splunk HTTP Event Collector (HEC).")
            .params(TlsSettings.with(ENDPOINT, TOKEN, HOST, SOURCE, SOURCETYPE, INDEX, EVENT_FORMAT, FIELDS,
                    MULTI_METRIC, RAW, MAX_CONTENT_LENGTH, MAX_EVENT_SIZE, FLUSH_INTERVAL_MS, GZIP, GZIP_LEVEL,
                    MAX_CONNECTIONS, TIMEOUT_MS, RETRY_INITIAL_MS, RETRY_MAX_MS, RETRY_MAX_ELAPSED_MS, USE_ACK, ACK_POLL_MS,
                    ACK_TIMEOUT_MS, HEALTH_CHECK, OTEL_HOST, OTEL_SOURCE, OTEL_SOURCETYPE, OTEL_INDEX, OTEL_SEVERITY_TEXT,
                    OTEL_SEVERITY_NUMBER, TLS_CA_FILE, TLS_INSECURE))
            .factory(HecProducer::new);

    private final HecFormat format;
    private final String path;
    private final String channel = UUID.randomUUID().toString();
    private final ConcurrentLinkedQueue<HecEncoder> encoders = new ConcurrentLinkedQueue<>();
    private final List<HecEncoder> allEncoders = new ArrayList<>();
    private final int workers;
    /** Gathers pipeline batches into shared requests (FlushIntervalMs); null when each batch is sent at once. */
    private final Accumulator accumulator;
    private HecTransport http;
    /** Sends the planned requests with this producer's own retries; made by {@link #start}. */
    private RequestSender sender;
    private final TlsSettings tls;
    private Log log;
    private PluginStats stats;

    public HecProducer(PluginConfig config) {
        this(config, null);
    }

    /** A producer sending through {@code transport} instead of HTTP (benchmarks, tests); null means HTTP. */
    public HecProducer(PluginConfig config, HecTransport transport) {
        super(config);
        this.http = transport;
        this.tls = TlsSettings.from(config, TlsSettings.Role.CLIENT,
                config.get(ENDPOINT).trim().toLowerCase(Locale.ROOT).startsWith("https:"),
                new TlsSettings.Alias(TLS_CA_FILE, TlsSettings.CA_FILE),
                new TlsSettings.Alias(TLS_INSECURE, TlsSettings.INSECURE_SKIP_VERIFY));
        boolean raw = config.get(RAW);
        this.format = HecFormat.builder()
                .host(config.get(HOST)).source(config.get(SOURCE)).sourcetype(config.get(SOURCETYPE))
                .index(config.get(INDEX)).eventFormat(config.get(EVENT_FORMAT)).fields(config.get(FIELDS))
                .multiMetric(config.get(MULTI_METRIC)).raw(raw)
                .maxContentLength(config.get(MAX_CONTENT_LENGTH)).maxEventSize(config.get(MAX_EVENT_SIZE))
                .gzip(config.get(GZIP)).gzipLevel(config.get(GZIP_LEVEL))
                .otelHostAttribute(config.get(OTEL_HOST)).otelSourceAttribute(config.get(OTEL_SOURCE))
                .otelSourcetypeAttribute(config.get(OTEL_SOURCETYPE)).otelIndexAttribute(config.get(OTEL_INDEX))
                .severityTextField(config.get(OTEL_SEVERITY_TEXT)).severityNumberField(config.get(OTEL_SEVERITY_NUMBER))
                .build();
        this.path = raw ? "/services/collector/raw" + rawQuery(config) : "/services/collector/event";
        this.workers = config.get(MAX_CONNECTIONS);
        int interval = config.get(FLUSH_INTERVAL_MS);
        // As many threads deliver as the pipeline starts for a concurrent producer: max(1, ModulatorRoutines, workers()).
        int threads = Math.max(Math.max(1, config.get(PluginSpec.MODULATOR_ROUTINES)), workers);
        this.accumulator = interval > 0 ? new Accumulator(interval, config.get(MAX_CONTENT_LENGTH), threads) : null;
    }

    /** In raw mode metadata cannot travel per event, so the configured defaults go in the query string. */
    private static String rawQuery(PluginConfig c) {
        StringBuilder q = new StringBuilder();
        String[][] kv = {{"host", c.get(HOST)}, {"source", c.get(SOURCE)}, {"sourcetype", c.get(SOURCETYPE)},
                {"index", c.get(INDEX)}};
        for (String[] p : kv) {
            if (!p[1].isEmpty()) {
                q.append(q.length() == 0 ? '?' : '&').append(p[0]).append('=')
                        .append(URLEncoder.encode(p[1], StandardCharsets.UTF_8));
            }
        }
        return q.toString();
    }

    @Override
    public void start(ProducerContext ctx) throws Exception {
        this.log = ctx.log();
        this.stats = ctx.stats();
        if (accumulator != null && config.get(FLUSH_INTERVAL_MS) >= config.get(PluginSpec.SHUTDOWN_TIMEOUT_MS)) {
            log.warn(config.id() + ": FlushIntervalMs is not below ShutdownTimeoutMs: a stop will wait "
                    + config.get(PluginSpec.SHUTDOWN_TIMEOUT_MS) + " ms before it sends the events still waiting");
        }
        if (http == null) {
            http = new HecHttp(config.get(ENDPOINT), config.get(TOKEN), channel,
                    Duration.ofMillis(config.get(TIMEOUT_MS)), tls);
            tls.logTo(log, config.id());
        }
        sender = new RequestSender(config, http, path, channel, log, stats);
        if (config.get(HEALTH_CHECK)) {
            try {
                HecResponse r = http.get("/services/collector/health");
                if (r.status() == 200) {
                    log.info(config.id() + ": HEC at " + config.get(ENDPOINT) + " is healthy");
                } else {
                    log.warn(config.id() + ": HEC health check answered " + r.status() + ": " + r.text());
                }
            } catch (IOException e) {
                log.warn(config.id() + ": HEC health check failed (events will be retried): " + e);
            }
        }
    }

    @Override
    public boolean concurrent() {
        return true;
    }

    @Override
    public int workers() {
        return workers;
    }

    /**
     * Sends the batch's events and returns once every request carrying them was accepted, or throws with the
     * batch reduced to the messages that were not delivered. With {@code FlushIntervalMs} the batch may share its
     * requests with batches delivered on other threads meanwhile; it still returns only after they were sent.
     */
    @Override
    public void deliver(Batch batch) throws Exception {
        if (accumulator != null) {
            deliverGathered(batch);
            return;
        }
        HecEncoder enc = takeEncoder();
        try {
            enc.encode(batch);
            countSkipped(enc);
            sender.sendAll(enc);
            Exception failed = Undelivered.moveFailed(batch, enc, 0);
            if (failed != null) {
                throw failed;
            }
        } finally {
            encoders.offer(enc);
        }
    }

    private HecEncoder takeEncoder() {
        HecEncoder enc = encoders.poll();
        if (enc == null) {
            enc = new HecEncoder(format);
            synchronized (allEncoders) {
                allEncoders.add(enc);
            }
        }
        return enc;
    }

    /** Joins the open group of batches; the thread that closes it sends it, the others wait for the outcome. */
    private void deliverGathered(Batch batch) throws Exception {
        Accumulator.Group g = accumulator.join(batch, estimatedBytes(batch));
        if (g.mustSend()) {
            sendGroup(g);
        } else {
            accumulator.awaitDone(g);
        }
        Exception failed = g.outcomeOf(batch);
        if (failed != null) {
            throw failed;
        }
    }

    /**
     * Encodes and sends every batch of the group as one set of requests (multi-metric merging spans them), then
     * leaves each batch with its own undelivered messages and outcome. Whatever happens, the group is marked done,
     * so that no thread waits for it forever.
     */
    private void sendGroup(Accumulator.Group g) throws InterruptedException {
        HecEncoder enc = takeEncoder();
        try {
            enc.clear();
            int[] base = new int[g.size()];
            for (int k = 0; k < g.size(); k++) {
                base[k] = enc.add(g.batch(k));
            }
            enc.encode();
            countSkipped(enc);
            sender.sendAll(enc);
            for (int k = 0; k < g.size(); k++) {
                g.setOutcome(k, Undelivered.moveFailed(g.batch(k), enc, base[k]));
            }
        } catch (Throwable t) {
            // Every batch of the group ends the way this thread's does, as if each had been sent alone; none may
            // be taken for delivered.
            Exception e = t instanceof Exception ? (Exception) t
                    : new IOException(config.id() + ": sending failed: " + t, t);
            for (int k = 0; k < g.size(); k++) {
                g.setOutcome(k, e);
            }
            throw t;
        } finally {
            encoders.offer(enc);
            accumulator.done(g);
        }
    }

    /**
     * OTLP records the OTel exporter does not send (a log without a body, which Splunk rejects; an exponential
     * histogram, which it does not map) are not sent here either: counted as discarded, and said in the log the
     * first time (the exporter logs the histograms and drops the empty logs silently).
     */
    private void countSkipped(HecEncoder enc) {
        int n = enc.skippedMessages();
        if (n > 0) {
            if (stats != null) {
                stats.addDiscarded(n);
            }
            if (!skippedLogged) {
                skippedLogged = true;
                log.warn(config.id() + ": " + n + " OTLP records not sent, as the OTel splunkhec exporter does not "
                        + "send them (log records without a body, exponential histograms); counted as discarded");
            }
        }
    }

    private volatile boolean skippedLogged;

    /** About the bytes the batch's events take encoded, to close a group once it fills a request. */
    private static long estimatedBytes(Batch b) {
        long n = 0;
        for (int i = 0; i < b.size(); i++) {
            Message m = b.get(i);
            n += m.length() + 64; // time, the event key, braces
            if (m.hasMetadata()) {
                Metadata md = m.metadata();
                for (int f = 0; f < md.size(); f++) {
                    n += md.keyLength(f) + md.rawValueLength(f) + 6;
                }
            }
        }
        return n;
    }

    @Override
    public void close() {
        synchronized (allEncoders) {
            allEncoders.forEach(HecEncoder::close);
        }
        if (http instanceof HecHttp) {
            ((HecHttp) http).close();
        }
    }
}
