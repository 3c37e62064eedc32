package io.sluice.core.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.Tap;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The admin HTTP endpoint (JDK's built-in server: no dependency, and an operator endpoint needs no more):
 * {@code /metrics} (Prometheus), {@code /health} (alive), {@code /ready} (every consumer listening, every
 * producer able to deliver), {@code /api/plugins} (graph and counters as JSON) and {@code /api/tap} (sampled
 * messages of one plugin as JSON lines). It binds 127.0.0.1 unless told otherwise.
 */
public final class AdminServer implements AutoCloseable {
    /** Default port of the admin endpoint. */
    public static final int DEFAULT_PORT = 9696;
    private static final long TAP_IDLE_MILLIS = 30_000;
    /** Handler threads: the JDK server reads a request on one, so slow clients hold one each until timed out. */
    static final int THREADS = 8;
    /** Taps open at once; more get 429, so streams can never take every handler thread from /health and /ready. */
    static final int MAX_TAPS = 2;
    /** Seconds a client may take to send its request before the server closes the connection (slowloris). */
    static final int REQUEST_SECONDS = 5;

    private final HttpServer server;
    private final ExecutorService executor;
    private final Pipeline pipeline;
    private final java.util.concurrent.Semaphore taps = new java.util.concurrent.Semaphore(MAX_TAPS);

    private AdminServer(HttpServer server, ExecutorService executor, Pipeline pipeline) {
        this.server = server;
        this.executor = executor;
        this.pipeline = pipeline;
    }

    /** Starts the endpoint on {@code host:port} (port 0 picks a free one). */
    public static AdminServer start(Pipeline pipeline, String host, int port, Log log) throws IOException {
        limitRequestTime();
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
        ExecutorService executor = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "admin-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        AdminServer admin = new AdminServer(server, executor, pipeline);
        server.createContext("/metrics", ex -> admin.text(ex, 200, "text/plain; version=0.0.4; charset=utf-8",
                PrometheusText.render(pipeline)));
        server.createContext("/health", ex -> admin.text(ex, 200, "text/plain", "ok\n"));
        server.createContext("/ready", ex -> {
            boolean ready = pipeline.isReady();
            admin.text(ex, ready ? 200 : 503, "text/plain", ready ? "ready\n" : "not ready\n");
        });
        server.createContext("/api/plugins", ex -> admin.text(ex, 200, "application/json", PluginsJson.render(pipeline)));
        server.createContext("/api/tap", admin::tap);
        server.start();
        log.info("admin endpoint on http://" + host + ":" + admin.port() + " (/metrics /health /ready /api/plugins /api/tap)");
        return admin;
    }

    /**
     * The JDK server reads each request on a handler thread and by default waits for it without end, so a few
     * half-sent requests would hold every thread and {@code /health} with them. Its own timer closes connections
     * whose request takes longer than {@code sun.net.httpserver.maxReqTime} seconds; the setting is read once,
     * when the server class loads, so it is set before the first server is made (an operator's value wins).
     */
    private static void limitRequestTime() {
        if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
            System.setProperty("sun.net.httpserver.maxReqTime", Integer.toString(REQUEST_SECONDS));
        }
    }

    /** The bound port. */
    public int port() {
        return server.getAddress().getPort();
    }

    private void text(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** Streams sampled messages as JSON lines until {@code limit} were sent, the client left, or it went idle. */
    private void tap(HttpExchange ex) throws IOException {
        if (!taps.tryAcquire()) {
            text(ex, 429, "text/plain", "at most " + MAX_TAPS + " taps at once\n");
            return;
        }
        try {
            streamTap(ex);
        } finally {
            taps.release();
        }
    }

    private void streamTap(HttpExchange ex) throws IOException {
        Map<String, String> q = query(ex.getRequestURI().getRawQuery());
        String plugin = q.get("plugin");
        int limit = Integer.parseInt(q.getOrDefault("limit", "10"));
        Tap tap = new Tap(limit);
        if (plugin == null || !pipeline.tap(plugin, tap)) {
            text(ex, 404, "text/plain", "no consumer or producer named '" + plugin + "'\n");
            return;
        }
        ex.getResponseHeaders().set("Content-Type", "application/x-ndjson");
        ex.sendResponseHeaders(200, 0);
        try (OutputStream out = ex.getResponseBody()) {
            out.flush(); // the answer's head now: newer JDKs hold it until the first byte of a body that may be long in coming
            int sent = 0;
            long idleSince = System.nanoTime();
            while (sent < limit && System.nanoTime() - idleSince < TimeUnit.MILLISECONDS.toNanos(TAP_IDLE_MILLIS)) {
                String line = tap.poll(200, TimeUnit.MILLISECONDS);
                if (line != null) {
                    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    sent++;
                    idleSince = System.nanoTime();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            tap.close();
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
