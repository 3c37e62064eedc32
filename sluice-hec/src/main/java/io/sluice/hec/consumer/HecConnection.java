package io.sluice.hec.consumer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.sluice.core.net.http.HttpConnection;
import io.sluice.core.net.http.HttpResponses;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.pipeline.RequestPublisher;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * One HEC connection: Splunk's endpoints ({@code /services/collector[/event|/raw|/health|/ack]}), their checks from
 * the head (method, token, channel, admission, encoding) before any body is read into memory, the body's reception,
 * and the answer; {@link HecIngest} does the rest. A refusal reads a short body and drops it (the connection stays
 * usable), else it is answered at once with {@code Connection: close} and the connection lingers, dropping input,
 * until it closes. Times: a request must arrive in full within {@code IdleTimeoutMs} of its first byte, an idle
 * connection is closed after as long, a lingering one after {@link #LINGER_MS}. Event loop only.
 */
final class HecConnection extends HttpConnection {
    /** How long a connection answered early may still send (dropped) before it is closed. */
    static final long LINGER_MS = 2000;

    private final HecServer server;
    private final HecServer.Settings settings;
    private final ConsumerContext ctx;
    /** Ahead of the HTTP codec: notices bytes, so that a request whose head never completes is timed too. */
    final ChannelInboundHandlerAdapter watch = new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext c, Object msg) {
            long now = System.nanoTime();
            lastActivity = now;
            if (!inRequest && !busy) {
                inRequest = true;
                requestStart = now;
            }
            c.fireChannelRead(msg);
        }
    };
    private HecRequest cur;
    private boolean lingering;
    /** Bytes of a request arrived and its end did not. */
    private boolean inRequest;
    private long lastActivity;
    private long requestStart;
    private long lingerStart;

    HecConnection(HecServer server) {
        super(server.ctx.log(), server.settings.id, server.settings.id);
        this.server = server;
        this.settings = server.settings;
        this.ctx = server.ctx;
    }

    /** A response of Splunk's: JSON, and {@code Retry-After} with a 503. */
    static FullHttpResponse response(HecStatus s, byte[] body) {
        FullHttpResponse r = HttpResponses.full(HttpResponseStatus.valueOf(s.http()), HttpHeaderValues.APPLICATION_JSON, body);
        if (s.http() == 503) {
            r.headers().set(HttpHeaderNames.RETRY_AFTER, HecServer.RETRY_AFTER);
        }
        return r;
    }

    SocketAddress peer() {
        return peer;
    }

    @Override
    protected void opened() {
        lastActivity = System.nanoTime();
        armRepeating(server.tickMillis);
    }

    /** A plain-HTTP client on the TLS port, an untrusted client certificate, an old protocol version. */
    @Override
    protected boolean tlsFailed(Throwable cause) {
        if (cause instanceof DecoderException && cause.getCause() instanceof SSLException) {
            ctx.reject(Rejection.AUTH, peer, "TLS failed: " + cause.getCause().getMessage() + "; connection closed");
            return true;
        }
        return false;
    }

    @Override
    protected FullHttpResponse internalError() {
        return response(HecStatus.INTERNAL_ERROR, HecStatus.INTERNAL_ERROR.body());
    }

    /** Releases what the request being received holds. */
    @Override
    protected void abort() {
        HecRequest q = cur;
        cur = null;
        inRequest = false;
        if (q != null) {
            q.release(server.state());
        }
    }

    /** Closes what waits on us too long: a half-sent request, an idle connection, a lingering one. */
    @Override
    protected void deadlinePassed() {
        if (closing || !context.channel().isActive()) {
            return;
        }
        try {
            long now = System.nanoTime();
            if (lingering) {
                if (now - lingerStart > TimeUnit.MILLISECONDS.toNanos(Math.min(LINGER_MS, settings.idleTimeoutMs))) {
                    closeNow();
                }
            } else if (busy) {
                return; // the client waits for us
            } else if (inRequest) {
                if (now - requestStart > server.timeoutNanos) {
                    ctx.reject(Rejection.TIMEOUT, peer, "request not complete within IdleTimeoutMs ("
                            + settings.idleTimeoutMs + " ms); connection closed");
                    closeNow();
                }
            } else if (now - lastActivity > server.timeoutNanos) {
                log.debug(settings.id + ": closing idle connection from " + peer);
                closeNow();
            }
        } catch (Throwable t) {
            failed(t);
        }
    }

    @Override
    protected void head(HttpRequest r) {
        if (lingering) {
            closeNow(); // a request after one answered with Connection: close
            return;
        }
        HecRequest previous = cur;
        if (previous != null) { // never more than one request being received
            cur = null;
            previous.release(server.state());
        }
        if (!inRequest) {
            inRequest = true;
            requestStart = System.nanoTime();
        }
        if (!r.decoderResult().isSuccess()) {
            ctx.reject(Rejection.MALFORMED, peer, "bad HTTP request: " + r.decoderResult().cause());
            closeWith(HecStatus.INVALID_DATA_FORMAT);
            return;
        }
        HecRequest q = new HecRequest(r, server.budget);
        cur = q;
        String path;
        try {
            path = q.uri.path();
            q.uri.parameters();
        } catch (IllegalArgumentException e) {
            refuse(q, HecStatus.INVALID_DATA_FORMAT, "bad URI: " + e.getMessage());
            return;
        }
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        HecAnswer refused = server.admission.admit(q, path);
        if (refused != null) {
            answerAfterBody(q, refused.status(), refused.body(), refused.detail());
            return;
        }
        receive(q);
    }

    /** Reserves the announced body (too large: 413; budget spent: 503) and takes a buffer for it. */
    private void receive(HecRequest q) {
        int max = q.max;
        if (HttpUtil.isTransferEncodingChunked(q.head)) {
            continue100(q.head); // reserved as it arrives
            return;
        }
        long cl = HttpUtil.getContentLength(q.head, 0L);
        if (cl > max) {
            refuse(q, HecStatus.TOO_LARGE, "Content-Length " + cl + " is over " + limitName(q) + max + ")");
            return;
        }
        if (cl > 0 && !q.reserve(cl, server.state())) {
            refuse(q, HecStatus.of(q.memory.refusal()), q.memory.detail());
            return;
        }
        continue100(q.head);
    }

    private static String limitName(HecRequest q) {
        return q.kind == HecRequest.ACK ? "the ack limit (" : "MaxBodySize (";
    }

    /** A refusal decided from the head: counted now, answered once the body was skipped or at once. */
    private void refuse(HecRequest q, HecStatus s, String detail) {
        answerAfterBody(q, s, s.body(), detail);
    }

    /**
     * Answers {@code q} without storing its body: after the body was read and dropped when it is short (the
     * connection stays usable), else at once with Connection: close.
     */
    private void answerAfterBody(HecRequest q, HecStatus s, byte[] body, String detail) {
        Rejection reason = q.kind == HecRequest.HEALTH ? null : s.rejection();
        if (reason != null) {
            ctx.reject(reason, peer, detail);
        }
        q.release(server.state());
        q.answer = s;
        q.answerBody = body;
        if (skippable(q.head)) {
            q.mode = HecRequest.SKIP;
        } else {
            answerNowAndLinger(q, s, body);
        }
    }

    /** Answers before the body ended, with Connection: close; the rest is dropped until the connection closes. */
    private void answerNowAndLinger(HecRequest q, HecStatus s, byte[] body) {
        q.release(server.state());
        q.mode = HecRequest.LINGER;
        lingering = true;
        lingerStart = System.nanoTime();
        FullHttpResponse r = response(s, body);
        HttpUtil.setKeepAlive(r, false);
        context.writeAndFlush(r).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                f.channel().close();
            } else if (f.channel() instanceof SocketChannel sc) {
                sc.shutdownOutput(); // the answer is complete; the client may still be sending
            }
        });
    }

    /** Answers and closes: the request cannot be read further (bad HTTP). */
    private void closeWith(HecStatus s) {
        abort();
        answerAndClose(response(s, s.body()));
    }

    @Override
    protected void content(HttpContent c) {
        HecRequest q = cur;
        if (q == null) {
            return;
        }
        ByteBuf b = c.content();
        int n = b.readableBytes();
        if (n > 0) {
            if (q.mode == HecRequest.RECEIVE) {
                append(q, b, n);
            } else {
                q.skipped += n;
                if (q.mode == HecRequest.LINGER && q.skipped > SKIP_LIMIT) {
                    closeNow();
                    return;
                }
            }
        }
        if (!(c instanceof LastHttpContent last)) {
            return;
        }
        cur = null;
        inRequest = false;
        if (!last.decoderResult().isSuccess()) {
            q.release(server.state());
            if (q.mode != HecRequest.LINGER) {
                ctx.reject(Rejection.MALFORMED, peer, "bad HTTP body: " + last.decoderResult().cause());
            }
            closeWith(HecStatus.INVALID_DATA_FORMAT);
            return;
        }
        switch (q.mode) {
            case HecRequest.LINGER -> closeNow();
            case HecRequest.SKIP -> {
                busy = true;
                reply(q.answer, q.answerBody, q.keepAlive);
            }
            default -> complete(q);
        }
    }

    /** Copies a piece of the body into the request's buffer; over the limit: 413, budget spent: 503 (or 413). */
    private void append(HecRequest q, ByteBuf b, int n) {
        boolean over = (long) q.length + n > q.max;
        if (over || !q.append(b, n, server.state())) {
            HecStatus s = over ? HecStatus.TOO_LARGE : HecStatus.of(q.memory.refusal());
            ctx.reject(s.rejection(), peer, over ? "body over " + limitName(q) + q.max + ")" : q.memory.detail());
            q.skipped += n;
            answerNowAndLinger(q, s, s.body());
        }
    }

    /** The whole request is here: handle it. */
    private void complete(HecRequest q) {
        busy = true;
        HecAnswer a = q.kind == HecRequest.ACK ? ack(q) : server.ingest.ingest(this, q, server.state());
        if (a != null) {
            if (a.reason() != null) {
                ctx.reject(a.reason(), peer, a.detail());
            }
            reply(a.status(), a.body(), q.keepAlive);
        }
    }

    private HecAnswer ack(HecRequest q) {
        String body;
        try {
            body = q.body == null ? "" : new String(q.body, 0, q.length, StandardCharsets.UTF_8);
        } finally {
            q.release(server.state());
        }
        return AckChannels.query(q.ackChannel, body);
    }

    /** Sends the answer of the current request and moves to the next one (on the event loop). */
    private void reply(HecStatus s, byte[] body, boolean keepAlive) {
        busy = false;
        lastActivity = System.nanoTime();
        if (closing || !context.channel().isActive()) {
            return;
        }
        FullHttpResponse r = response(s, body);
        HttpUtil.setKeepAlive(r, keepAlive);
        send(r, keepAlive);
    }

    /** The request's events are in delivery: nothing more is read until it is answered. */
    void pauseReading() {
        context.channel().config().setAutoRead(false);
    }

    /**
     * The pipeline is done with the request's events (any thread): on the event loop, answers it (success, or 503
     * when not delivered) if {@code answer}, then counts it {@code answered}. A connection whose event loop
     * is gone (the server stopped) has no one to answer.
     */
    void delivered(boolean ok, boolean answer, boolean keepAlive, RequestPublisher publisher) {
        try {
            context.executor().execute(() -> {
                try {
                    if (answer) {
                        reply(ok ? HecStatus.SUCCESS : HecStatus.SERVER_BUSY,
                                ok ? HecStatus.SUCCESS.body() : HecStatus.SERVER_BUSY.body(), keepAlive);
                    }
                } catch (Throwable t) {
                    failed(t);
                } finally {
                    publisher.answered();
                }
            });
        } catch (Throwable e) {
            publisher.answered();
        }
    }
}
