package io.sluice.hec.producer;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.RetryPolicy;
import io.sluice.hec.codec.HecEncoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Sends the requests an encoder planned, each until the collector accepted it, split it (413) or refused it for
 * good, and with {@code UseAck} waits for the indexer's acknowledgements. This is {@code producer.SplunkHEC}'s
 * own retry loop, inside one delivery: it retries a single request (and only that one) with
 * {@code RetryInitialMs}/{@code RetryMaxMs}/{@code RetryMaxElapsedMs}, honours Retry-After, and leaves what it
 * gave up on to the pipeline's {@code Retry/*} policy through the encoder's failures.
 */
final class RequestSender {
    private final HecTransport http;
    private final String path;
    private final String channel;
    private final String id;
    /**
     * The wait before resending a request: core's retry backoff (exponential, capped, "equal jitter"), with this
     * producer's RetryInitialMs and RetryMaxMs; how many attempts is RetryMaxElapsedMs' business, not the policy's.
     */
    private final RetryPolicy backoff;
    private final long retryMaxElapsed;
    private final boolean useAck;
    private final long ackPoll;
    private final long ackTimeout;
    private final Log log;
    /** Null outside a pipeline (tests, benchmarks). */
    private final PluginStats stats;
    private static final int ACK_ROUNDS = 3;

    /** Sends to {@code path} through {@code http}, with the retry and ack settings of {@code config}. */
    RequestSender(PluginConfig config, HecTransport http, String path, String channel, Log log, PluginStats stats) {
        this.http = http;
        this.path = path;
        this.channel = channel;
        this.id = config.id();
        int first = config.groupOrOwn(PluginSpec.RETRY_BACKOFF_MS, HecProducer.RETRY_INITIAL_MS);
        int longest = config.groupOrOwn(PluginSpec.RETRY_MAX_BACKOFF_MS, HecProducer.RETRY_MAX_MS);
        // A first wait above the longest is the longest from the start, as min(RetryMaxMs, RetryInitialMs << n) was.
        this.backoff = new RetryPolicy(RetryPolicy.FOREVER, Math.min(first, longest), longest);
        this.retryMaxElapsed = config.get(HecProducer.RETRY_MAX_ELAPSED_MS);
        this.useAck = config.get(HecProducer.USE_ACK);
        this.ackPoll = config.get(HecProducer.ACK_POLL_MS);
        this.ackTimeout = config.get(HecProducer.ACK_TIMEOUT_MS);
        this.log = log;
        this.stats = stats;
    }

    /** Plans the encoded events into requests and sends them all (and awaits indexer acks when on). */
    void sendAll(HecEncoder enc) throws InterruptedException {
        enc.plan();
        long[] ackIds = useAck ? room(new long[0], enc.requests()) : null;
        ackIds = sendFrom(enc, 0, ackIds);
        if (useAck) {
            awaitAcks(enc, ackIds);
        }
    }

    /**
     * Sends requests {@code from} onwards, the halves a 413 appends at the end included; each accepted one's ackId
     * lands in {@code ackIds}, which is returned grown to {@link HecEncoder#requests()}.
     */
    private long[] sendFrom(HecEncoder enc, int from, long[] ackIds) throws InterruptedException {
        for (int r = from; r < enc.requests(); r++) {
            ackIds = send(enc, r, room(ackIds, enc.requests()));
        }
        return room(ackIds, enc.requests());
    }

    /**
     * {@code ackIds} with room for n requests, the new ones -1: nothing to await until a request is accepted, so
     * a request that failed or was split is neither polled nor resent.
     */
    private static long[] room(long[] ackIds, int n) {
        if (ackIds == null || ackIds.length >= n) {
            return ackIds;
        }
        int old = ackIds.length;
        long[] grown = Arrays.copyOf(ackIds, n);
        Arrays.fill(grown, old, n, -1);
        return grown;
    }

    /**
     * Sends request r until it is accepted, split (413) or failed for good. 429/503 wait for Retry-After;
     * other 5xx, 408 and I/O errors back off exponentially with jitter; other 4xx are permanent.
     */
    private long[] send(HecEncoder enc, int r, long[] ackIds) throws InterruptedException {
        long start = System.nanoTime();
        int attempt = 0;
        while (true) {
            HecResponse reply = null;
            IOException error = null;
            long sent = System.nanoTime();
            try {
                reply = http.post(path, enc.requestArray(r), enc.requestOffset(r), enc.requestLength(r), enc.compressed());
            } catch (IOException e) {
                error = e;
            }
            if (stats != null) {
                stats.sendLatency().record(System.nanoTime() - sent);
                if (attempt > 0) {
                    stats.addRetried(enc.requestEvents(r));
                }
            }
            if (reply != null) {
                int s = reply.status();
                if (s >= 200 && s < 300) {
                    if (ackIds != null) {
                        ackIds[r] = HecHttp.longField(reply.body(), "ackId", -1);
                    }
                    return ackIds;
                }
                if (s == 413) {
                    if (enc.split(r) < 0) {
                        enc.failRequest(r, s, reply.code(), "request too large for the collector (413) with a single event: "
                                + reply.text());
                    }
                    return ackIds;
                }
                if (s >= 400 && s < 500 && s != 408 && s != 429) {
                    enc.failRequest(r, s, reply.code(), reply.text());
                    return ackIds;
                }
            }
            long wait = backoff.backoffMillis(attempt++);
            if (reply != null && (reply.status() == 429 || reply.status() == 503) && reply.retryAfterMillis() >= 0) {
                wait = reply.retryAfterMillis();
            }
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            if (elapsed + wait > retryMaxElapsed) {
                String why = reply != null ? reply.status() + " " + reply.text() : String.valueOf(error);
                enc.failRequest(r, reply != null ? reply.status() : 0, reply != null ? reply.code() : -1,
                        GAVE_UP + attempt + " attempts in " + elapsed + " ms: " + why);
                return ackIds;
            }
            if (attempt == 1 || log.enabled(Log.DEBUG)) {
                log.warn(id + ": request of " + enc.requestEvents(r) + " events failed ("
                        + (reply != null ? "HTTP " + reply.status() + " " + reply.text() : error)
                        + "), retrying in " + wait + " ms");
            }
            TimeUnit.MILLISECONDS.sleep(wait);
        }
    }

    /**
     * Indexer acknowledgement: poll until every accepted request is acked; resend those not acked within
     * AckTimeoutMs, at most {@value #ACK_ROUNDS} times, then fail them.
     */
    private void awaitAcks(HecEncoder enc, long[] ackIds) throws InterruptedException {
        for (int round = 0; round < ACK_ROUNDS; round++) {
            int n = enc.requests();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ackTimeout);
            while (true) {
                StringBuilder body = new StringBuilder("{\"acks\":[");
                int pending = 0;
                for (int r = 0; r < n; r++) {
                    if (ackIds[r] >= 0) {
                        body.append(pending++ == 0 ? "" : ",").append(ackIds[r]);
                    }
                }
                if (pending == 0) {
                    return;
                }
                body.append("]}");
                try {
                    byte[] b = body.toString().getBytes(StandardCharsets.US_ASCII);
                    HecResponse reply = http.post("/services/collector/ack?channel=" + channel, b, 0, b.length, false);
                    if (reply.status() == 200) {
                        for (int r = 0; r < n; r++) {
                            if (ackIds[r] >= 0 && reply.body().contains("\"" + ackIds[r] + "\":true")) {
                                ackIds[r] = -1;
                            }
                        }
                    } else {
                        log.warn(id + ": ack poll answered " + reply.status() + ": " + reply.text());
                    }
                } catch (IOException e) {
                    log.warn(id + ": ack poll failed: " + e);
                }
                if (System.nanoTime() > deadline) {
                    break;
                }
                TimeUnit.MILLISECONDS.sleep(ackPoll);
            }
            for (int r = 0; r < n; r++) {
                if (ackIds[r] >= 0) {
                    ackIds[r] = -1;
                    if (round == ACK_ROUNDS - 1) {
                        enc.failRequest(r, 0, -1, NOT_ACKED + ACK_ROUNDS + " attempts");
                    } else {
                        log.warn(id + ": request of " + enc.requestEvents(r) + " events not acked in time, resending");
                        send(enc, r, ackIds);
                    }
                }
            }
            // A resend a 413 split appended its halves: they are sent, then awaited with the rest.
            ackIds = sendFrom(enc, n, ackIds);
        }
    }

    static final String GAVE_UP = "gave up after ";
    static final String NOT_ACKED = "not acknowledged by the indexer after ";
}
