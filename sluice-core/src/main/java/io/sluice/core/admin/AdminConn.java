package io.sluice.core.admin;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.sluice.core.Daemon;
import io.sluice.core.net.http.HttpConnection;
import io.sluice.core.net.http.HttpResponses;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.ReloadResult;
import io.sluice.core.pipeline.Tap;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One admin connection: requests one at a time, each answered on the event loop from what the pipeline's counters
 * say now; a tap answers over time through a {@link TapStream}, and a request pipelined behind it waits, unread.
 * The connection is closed when no whole request arrived within {@code requestMillis} of its accept or of the end
 * of the previous answer (a half-sent request, or an idle connection holding one of the few slots). Event loop only.
 */
final class AdminConn extends HttpConnection {
    static final String TEXT = "text/plain; charset=utf-8";
    static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";
    static final String JSON = "application/json";

    private final AdminServer server;
    /** The head of the request being received, answered once its (empty) body ended. */
    private HttpRequest head;
    /** A tap is streaming the answer of the current request ({@link #busy} meanwhile); later input waits. */
    private TapStream tap;

    AdminConn(AdminServer server) {
        super(server.log(), "admin endpoint", "admin");
        this.server = server;
    }

    @Override
    protected void opened() {
        arm(server.settings().requestMillis);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext c) {
        if (tap != null) {
            tap.pump();
        }
        c.fireChannelWritabilityChanged();
    }

    /** A failed handshake is the client's business: logged at DEBUG, as a closed connection is. */
    @Override
    protected boolean tlsFailed(Throwable cause) {
        if (cause.getCause() instanceof javax.net.ssl.SSLException) {
            log.debug("admin endpoint: connection from " + peer + ": " + cause);
            return true;
        }
        return false;
    }

    @Override
    protected void abort() {
        head = null;
        if (tap != null) {
            tap.abort();
            tap = null;
        }
    }

    @Override
    protected FullHttpResponse internalError() {
        return response(null, HttpResponseStatus.INTERNAL_SERVER_ERROR, TEXT, "internal error\n");
    }

    /** A bad or oversized head, or one announcing a body (no endpoint takes one), is refused and the connection closed. */
    @Override
    protected void head(HttpRequest r) {
        head = null;
        if (!r.decoderResult().isSuccess()) {
            Throwable why = r.decoderResult().cause();
            if (why instanceof TooLongFrameException) {
                refuse(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request line longer than "
                        + AdminServer.MAX_LINE + " bytes or headers longer than " + AdminServer.MAX_HEADERS + "\n");
            } else {
                refuse(HttpResponseStatus.BAD_REQUEST, "bad HTTP request\n");
            }
            return;
        }
        if (HttpUtil.isTransferEncodingChunked(r) || HttpUtil.getContentLength(r, 0L) > 0) {
            refuse(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "the admin endpoint takes no request bodies\n");
            return;
        }
        head = r;
    }

    @Override
    protected void content(HttpContent c) {
        if (!(c instanceof LastHttpContent last) || head == null) {
            return;
        }
        if (!last.decoderResult().isSuccess()) {
            refuse(HttpResponseStatus.BAD_REQUEST, "bad HTTP request\n");
            return;
        }
        HttpRequest r = head;
        head = null;
        disarm(); // the whole request is here: the time is ours now
        route(r);
    }

    /** Answers one whole request. /health and /ready are open to all; every other path needs the token if one is set. */
    private void route(HttpRequest r) {
        QueryStringDecoder uri = new QueryStringDecoder(r.uri());
        String path = uri.path();
        boolean open = path.equals("/health") || path.equals("/ready");
        if (!open && !server.authorized(r.headers().get(HttpHeaderNames.AUTHORIZATION))) {
            server.log().limited(Log.WARNING, "admin: unauthorized", "admin endpoint: " + path + " from " + peer
                    + " without the right bearer token; answered 401");
            FullHttpResponse a = response(r, HttpResponseStatus.UNAUTHORIZED, TEXT,
                    "this endpoint needs 'Authorization: Bearer <token>' (--admin-token)\n");
            a.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
            send(r, a);
            return;
        }
        if (path.equals("/api/reload")) {
            reload(r);
            return;
        }
        boolean tapPath = path.equals("/api/tap");
        if (r.method() != HttpMethod.GET && (tapPath || r.method() != HttpMethod.HEAD)) {
            FullHttpResponse a = response(r, HttpResponseStatus.METHOD_NOT_ALLOWED, TEXT, r.method() + " not allowed\n");
            a.headers().set(HttpHeaderNames.ALLOW, tapPath ? "GET" : "GET, HEAD");
            send(r, a);
            return;
        }
        Pipeline p = server.pipeline();
        switch (path) {
            case "/health" -> answer(r, HttpResponseStatus.OK, TEXT, "ok\n");
            case "/ready" -> {
                boolean ready = p.isReady();
                answer(r, ready ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, TEXT,
                        ready ? "ready\n" : "not ready\n");
            }
            case "/metrics" -> answer(r, HttpResponseStatus.OK, PROMETHEUS, PrometheusText.render(p));
            case "/api/plugins" -> answer(r, HttpResponseStatus.OK, JSON, PluginsJson.render(p));
            case "/api/tap" -> tap(r, uri);
            default -> answer(r, HttpResponseStatus.NOT_FOUND, TEXT, "no such path; the admin endpoint serves "
                    + "/metrics /health /ready /api/plugins /api/tap /api/reload\n");
        }
    }

    /** Starts streaming sampled messages, or says why not: off, too many taps, a bad limit, an unknown plugin. */
    private void tap(HttpRequest r, QueryStringDecoder uri) {
        if (!server.tapEnabled()) {
            answer(r, HttpResponseStatus.FORBIDDEN, TEXT, "/api/tap is off: it streams message payloads; start sluice "
                    + "with --admin-tap, or with --admin-token so that only holders of the token can tap\n");
            return;
        }
        String plugin = param(uri, "plugin");
        int limit;
        try {
            String l = param(uri, "limit");
            limit = l == null ? 10 : Integer.parseInt(l);
        } catch (NumberFormatException e) {
            limit = -1;
        }
        if (limit < 0) {
            answer(r, HttpResponseStatus.BAD_REQUEST, TEXT, "limit must be a whole number from 0\n");
            return;
        }
        if (!server.takeTap()) {
            answer(r, HttpResponseStatus.TOO_MANY_REQUESTS, TEXT, "at most " + server.settings().maxTaps + " taps at once\n");
            return;
        }
        Tap t = new Tap(limit);
        if (plugin == null || !server.pipeline().tap(plugin, t)) {
            server.releaseTap();
            answer(r, HttpResponseStatus.NOT_FOUND, TEXT, "no consumer or producer named '" + plugin + "'\n");
            return;
        }
        tap = new TapStream(this, context, r, t, limit);
        busy = true;
        tap.start();
    }

    /**
     * {@code POST /api/reload}: re-reads the config and applies it, answering once it is done with the outcome as
     * JSON: 200 when the new config runs (or was the same), 400 when it was refused and the pipeline runs on as it
     * was. The reload (which drains replaced producers) runs off the event loop; this connection waits for it.
     */
    private void reload(HttpRequest r) {
        if (r.method() != HttpMethod.POST) {
            FullHttpResponse a = response(r, HttpResponseStatus.METHOD_NOT_ALLOWED, TEXT, r.method() + " not allowed\n");
            a.headers().set(HttpHeaderNames.ALLOW, "POST");
            send(r, a);
            return;
        }
        java.util.function.Supplier<ReloadResult> reloader = server.settings().reload;
        if (reloader == null) {
            answer(r, HttpResponseStatus.CONFLICT, TEXT, "this pipeline has no config file to reload\n");
            return;
        }
        busy = true;
        Daemon.start("admin-reload", () -> {
            ReloadResult result = reloader.get();
            context.executor().execute(() -> {
                busy = false;
                answer(r, result.ok() ? HttpResponseStatus.OK : HttpResponseStatus.BAD_REQUEST, JSON,
                        ReloadJson.render(result));
            });
        });
    }

    private static String param(QueryStringDecoder uri, String name) {
        List<String> v = uri.parameters().get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    /** The tap ended (limit, idle, or stopping) and its last chunk was written: the next request may come. */
    void tapEnded(ChannelFuture lastWrite, boolean keepAlive) {
        tap = null;
        busy = false;
        server.releaseTap();
        answered(lastWrite, keepAlive);
    }

    /** A tap's slot goes back whether it ended or its client left. */
    void tapAborted() {
        server.releaseTap();
    }

    private void answer(HttpRequest r, HttpResponseStatus status, String type, String body) {
        send(r, response(r, status, type, body));
    }

    private static FullHttpResponse response(HttpRequest r, HttpResponseStatus status, String type, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        boolean head = r != null && r.method() == HttpMethod.HEAD;
        return HttpResponses.full(status, type, head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes), bytes.length);
    }

    private void send(HttpRequest r, FullHttpResponse a) {
        boolean keepAlive = HttpUtil.isKeepAlive(r);
        HttpUtil.setKeepAlive(a, keepAlive);
        send(a, keepAlive);
    }

    /** Refuses the request being received and closes the connection once the answer is out. */
    private void refuse(HttpResponseStatus status, String body) {
        head = null;
        answerAndClose(response(null, status, TEXT, body));
    }

    /**
     * After an answer: gives the client {@link AdminServer#WRITE_MILLIS} to take it (a slow reader of a long /metrics
     * is not cut off, one that never reads does not hold a slot) and, once it is written, {@code requestMillis} to
     * send the next request; then closes the connection or runs pipelined input.
     */
    @Override
    protected void answered(ChannelFuture write, boolean keepAlive) {
        arm(AdminServer.WRITE_MILLIS);
        if (keepAlive) {
            write.addListener(f -> {
                if (f.isSuccess() && tap == null && !closing) {
                    arm(server.settings().requestMillis);
                }
            });
        }
        super.answered(write, keepAlive);
    }

    /** No whole request within the deadline: a half-sent request or an idle connection gives its slot back. */
    @Override
    protected void deadlinePassed() {
        if (tap != null) {
            return; // a streaming tap keeps its own time (TAP_IDLE_MILLIS)
        }
        log.debug("admin endpoint: " + peer + " sent no whole request, or took no answer, in time; closed");
        closeNow();
    }
}
