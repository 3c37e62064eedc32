package io.sluice.otlp.consumer;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.sluice.core.net.http.HttpConnection;
import io.sluice.core.net.http.HttpResponses;
import io.sluice.core.pipeline.Rejection;
import java.util.Locale;

/**
 * One OTLP/HTTP connection: {@code POST /v1/logs} and {@code /v1/metrics}, protobuf or JSON, optionally gzip, one
 * request at a time (a pipelined one waits, unread, until the one before is answered). A request is answered
 * once the pipeline delivered its records, in the request's own content type: the (partial-success) Export
 * response, or a {@code google.rpc.Status} with 400, 401, 404, 405, 413, 415, or 503 and {@code Retry-After}.
 * Event loop only.
 */
final class OtlpHttpConnection extends HttpConnection {
    static final String PROTOBUF = "application/x-protobuf";
    static final String JSON = "application/json";
    static final byte[] TOO_MANY_CONNECTIONS = HttpResponses.raw(HttpResponseStatus.SERVICE_UNAVAILABLE, null,
            String.valueOf(OtlpServer.RETRY_AFTER_SECONDS), new byte[0]);

    private final OtlpServer server;
    /** The request being received, or null. */
    private Export cur;
    /** A refusal decided from the head, answered once the (short) body was read and dropped. */
    private Answer skipping;
    private boolean json;
    private boolean keepAlive;

    /** A refusal and the content type to answer it in. */
    private record Answer(int http, Outcome outcome, boolean json, Signal signal) {
    }

    OtlpHttpConnection(OtlpServer server) {
        super(server.context().log(), server.settings().id, server.settings().id);
        this.server = server;
    }

    /** The idle timer ahead of this handler: a connection with no request is closed. */
    @Override
    public void userEventTriggered(ChannelHandlerContext c, Object evt) {
        if (evt instanceof IdleStateEvent && !busy && cur == null && skipping == null) {
            closeNow();
            return;
        }
        c.fireUserEventTriggered(evt);
    }

    @Override
    protected boolean tlsFailed(Throwable cause) {
        if (cause.getCause() instanceof javax.net.ssl.SSLException) {
            server.context().reject(Rejection.AUTH, peer, "TLS failed: " + cause.getCause().getMessage());
            return true;
        }
        return false;
    }

    @Override
    protected FullHttpResponse internalError() {
        return response(500, Wire.EMPTY, PROTOBUF, false);
    }

    /** Everything that needs only the head; then the body's reservation. A refusal reads no body into memory. */
    @Override
    protected void head(HttpRequest r) {
        abort();
        if (!r.decoderResult().isSuccess()) {
            closing = true;
            reply(new Answer(400, Outcome.refuse(Outcome.Code.INVALID, "bad HTTP request: " + r.decoderResult().cause()),
                    false, null), false);
            return;
        }
        keepAlive = HttpUtil.isKeepAlive(r);
        arm(server.settings().idleTimeoutMs);
        String type = r.headers().get(HttpHeaderNames.CONTENT_TYPE, "");
        String mime = type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        json = mime.equals(JSON);
        Signal signal;
        try {
            signal = Signal.ofHttpPath(new QueryStringDecoder(r.uri()).path());
        } catch (IllegalArgumentException e) {
            signal = null;
        }
        if (signal == null) {
            refuse(r, 404, Outcome.Code.UNIMPLEMENTED, "unknown path " + r.uri() + "; OTLP/HTTP takes /v1/logs and /v1/metrics");
            return;
        }
        if (r.method() != HttpMethod.POST) {
            refuse(r, 405, Outcome.Code.INVALID, r.method() + " " + signal.httpPath + "; only POST is allowed");
            return;
        }
        if (!server.authorized(r.headers().get(server.authHeader()))) {
            refuse(r, 401, Outcome.Code.UNAUTHENTICATED, "missing or wrong token in " + server.authHeader());
            return;
        }
        if (!json && !mime.equals(PROTOBUF)) {
            refuse(r, 415, Outcome.Code.INVALID, "unsupported Content-Type '" + type + "'; OTLP/HTTP takes "
                    + PROTOBUF + " or " + JSON);
            return;
        }
        String encoding = r.headers().get(HttpHeaderNames.CONTENT_ENCODING);
        boolean gzip = encoding != null && encoding.equalsIgnoreCase("gzip");
        if (encoding != null && !gzip && !encoding.equalsIgnoreCase("identity")) {
            refuse(r, 400, Outcome.Code.INVALID, "unsupported Content-Encoding '" + encoding + "'; gzip is supported");
            return;
        }
        String busyNow = server.stopping() ? "stopping" : server.ingest().busy();
        if (busyNow != null) {
            refuse(r, 503, Outcome.Code.BUSY, busyNow);
            return;
        }
        Export e = new Export(signal, json, gzip, server.settings().maxRequestSize, server.budget());
        if (!HttpUtil.isTransferEncodingChunked(r)) {
            Outcome refused = e.expect(HttpUtil.getContentLength(r, 0L));
            if (refused != null) {
                refuse(r, refused.code().http, refused.code(), refused.message());
                return;
            }
        }
        cur = e;
        continue100(r);
    }

    /**
     * Refuses from the head: after the body was read and dropped when it is short (the connection stays usable),
     * else at once, closing the connection.
     */
    private void refuse(HttpRequest r, int http, Outcome.Code code, String message) {
        Answer a = new Answer(http, Outcome.refuse(code, message), json, null);
        if (skippable(r)) {
            skipping = a;
        } else {
            refuseNow(a);
        }
    }

    /** Answers before the body ended, with Connection: close; the rest is dropped. */
    private void refuseNow(Answer a) {
        abort();
        closing = true;
        reply(a, false);
    }

    @Override
    protected void content(HttpContent c) {
        Export e = cur;
        int n = c.content().readableBytes();
        if (e != null && n > 0) {
            Outcome refused = e.append(c.content(), n);
            if (refused != null) {
                refuseNow(new Answer(refused.code().http, refused, json, null));
                return;
            }
        }
        if (!(c instanceof LastHttpContent last)) {
            return;
        }
        disarm();
        if (!last.decoderResult().isSuccess()) {
            refuseNow(new Answer(400, Outcome.refuse(Outcome.Code.INVALID, "bad HTTP body: " + last.decoderResult().cause()),
                    json, null));
            return;
        }
        if (skipping != null) {
            Answer a = skipping;
            skipping = null;
            busy = true;
            reply(a, keepAlive);
            return;
        }
        if (e == null) {
            return;
        }
        cur = null;
        busy = true;
        boolean j = json;
        boolean k = keepAlive;
        Outcome now = server.ingest().run(e, context.executor(), o -> reply(answer(o, e.signal, j), k));
        if (now != null) {
            reply(answer(now, e.signal, j), k);
        }
    }

    private static Answer answer(Outcome o, Signal signal, boolean inJson) {
        return new Answer(o.code().http, o, inJson, signal);
    }

    /** Writes the answer of the current request, then runs the input that waited for it. */
    private void reply(Answer a, boolean keep) {
        busy = false;
        Outcome o = a.outcome();
        String type = a.json() ? JSON : PROTOBUF;
        FullHttpResponse r;
        if (a.http() == 200) {
            server.ingest().answeredOk();
            r = response(200, a.json() ? Wire.exportResponseJson(a.signal(), o.rejected(), o.message())
                    : Wire.exportResponse(o.rejected(), o.message()), type, keep);
        } else {
            Outcome.Code code = o.code();
            server.context().reject(code.rejection, peer, o.message());
            int retry = a.http() == 503 ? OtlpServer.RETRY_AFTER_SECONDS : 0;
            byte[] body = a.json() ? Wire.statusJson(code.grpc, o.message()) : Wire.status(code.grpc, o.message(), retry);
            r = response(a.http(), body, type, keep);
            if (retry > 0) {
                r.headers().setInt(HttpHeaderNames.RETRY_AFTER, retry);
            }
            if (a.http() == 405) {
                r.headers().set(HttpHeaderNames.ALLOW, "POST");
            }
            if (a.http() == 401 && "authorization".equals(server.authHeader())) {
                r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
            }
        }
        if (context.channel().isActive()) {
            send(r, keep);
        }
    }

    private static FullHttpResponse response(int status, byte[] body, String type, boolean keep) {
        FullHttpResponse r = HttpResponses.full(HttpResponseStatus.valueOf(status), type, body);
        HttpUtil.setKeepAlive(r, keep);
        return r;
    }

    /** A request not complete within IdleTimeoutMs of its head: closed, counted as a timeout. */
    @Override
    protected void deadlinePassed() {
        if (closing || busy || (cur == null && skipping == null)) {
            return;
        }
        server.context().reject(Rejection.TIMEOUT, peer, "request not complete within IdleTimeoutMs ("
                + server.settings().idleTimeoutMs + " ms); connection closed");
        closeNow();
    }

    /** Releases what the request being received holds. */
    @Override
    protected void abort() {
        disarm();
        skipping = null;
        Export e = cur;
        cur = null;
        if (e != null) {
            e.release();
        }
    }
}
