package io.sluice.otlp.producer;

import io.sluice.core.tls.NettyTls;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContentDecompressor;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * OTLP/HTTP with binary protobuf: {@code POST <base>/v1/logs} (or {@code /v1/metrics}) on one HTTP/1.1 keep-alive
 * connection on Netty. 2xx is accepted (its body may report a partial success); 429, 502, 503 and 504 are
 * retryable, after {@code Retry-After} when given; any other status is permanent, as the OTLP specification says.
 */
final class HttpTransport extends Transport {
    /** Longest response body read (an error's google.rpc.Status, a partial success). */
    private static final int MAX_RESPONSE = 4 * 1024 * 1024;

    private final String hostHeader;
    private final String basePath;
    private final Map<String, String> headers;
    private volatile CompletableFuture<FullHttpResponse> pending;

    HttpTransport(EventLoopGroup group, String host, int port, String basePath, NettyTls tls,
                  Map<String, String> headers, long timeoutMillis) {
        super(group, host, port, tls, timeoutMillis);
        this.hostHeader = host + ":" + port;
        this.basePath = basePath.endsWith("/") ? basePath.substring(0, basePath.length() - 1) : basePath;
        this.headers = headers;
    }

    @Override
    ChannelHandler[] handlers() {
        return new ChannelHandler[] {
            new HttpClientCodec(), new HttpContentDecompressor(0), new HttpObjectAggregator(MAX_RESPONSE),
            new Answer()};
    }

    /** Whether an answer with this HTTP status may be retried (OTLP/HTTP: 429, 502, 503, 504). */
    static boolean retryable(int status) {
        return status == 429 || status == 502 || status == 503 || status == 504;
    }

    @Override
    Reply exportOnce(Signal signal, byte[] body, int off, int len, boolean gzip)
            throws IOException, InterruptedException {
        Channel c = connector.channel();
        CompletableFuture<FullHttpResponse> answer = new CompletableFuture<>();
        pending = answer;
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                basePath + signal.httpPath, Unpooled.wrappedBuffer(body, off, len));
        req.headers().set(HttpHeaderNames.HOST, hostHeader)
                .set(HttpHeaderNames.CONTENT_TYPE, "application/x-protobuf")
                .set(HttpHeaderNames.CONTENT_LENGTH, len)
                .set(HttpHeaderNames.USER_AGENT, "sluice-otlp")
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        if (gzip) {
            req.headers().set(HttpHeaderNames.CONTENT_ENCODING, HttpHeaderValues.GZIP);
        }
        headers.forEach((k, v) -> req.headers().set(k, v));
        ChannelFuture written = c.writeAndFlush(req);
        FullHttpResponse r;
        try {
            r = answer.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            connector.drop(); // a connection still owing an answer cannot carry the next request
            throw new IOException("no answer from " + connector.address() + " within " + timeoutMillis + " ms");
        } catch (ExecutionException e) {
            connector.drop();
            if (e.getCause() instanceof Stale) {
                throw new Stale("connection to " + connector.address() + " closed before the answer", null);
            }
            throw new IOException("request to " + connector.address() + " failed: " + e.getCause(), e.getCause());
        } finally {
            // The body wraps the caller's buffer, which it reuses once we return: the write must be over.
            if (!written.isDone()) {
                connector.drop();
            }
        }
        try {
            if (!HttpUtil.isKeepAlive(r)) {
                connector.drop();
            }
            return classify(r);
        } finally {
            r.release();
        }
    }

    private static Reply classify(FullHttpResponse r) {
        int status = r.status().code();
        byte[] body = ByteBufUtil.getBytes(r.content());
        if (status >= 200 && status < 300) {
            // The response is an Export*ServiceResponse in the request's encoding; one in another (JSON, from a
            // server that answers so anyway) carries no partial success we could read, so it counts as plain success.
            String type = r.headers().get(HttpHeaderNames.CONTENT_TYPE, "application/x-protobuf");
            return Reply.ok(type.contains("protobuf") ? body : new byte[0]);
        }
        long retryAfter = retryAfterMillis(r.headers().get(HttpHeaderNames.RETRY_AFTER));
        return Reply.failed(retryable(status), retryAfter, "HTTP " + status + errorText(r, body));
    }

    /** The error's text: an OTLP server's google.rpc.Status message, or the start of any other body. */
    private static String errorText(FullHttpResponse r, byte[] body) {
        if (body.length == 0) {
            return "";
        }
        String type = r.headers().get(HttpHeaderNames.CONTENT_TYPE, "");
        String text = type.contains("protobuf") ? Responses.statusMessage(body)
                : new String(body, 0, Math.min(body.length, 300), StandardCharsets.UTF_8);
        return text.isEmpty() ? "" : ": " + text.strip();
    }

    /** Retry-After as delay-seconds or an HTTP-date, in milliseconds from now; -1 when absent or unreadable. */
    static long retryAfterMillis(String value) {
        if (value == null || value.isBlank()) {
            return -1;
        }
        String v = value.trim();
        try {
            return Math.max(0, Long.parseLong(v)) * 1000L;
        } catch (NumberFormatException e) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
                return Math.max(0, at.toInstant().toEpochMilli() - System.currentTimeMillis());
            } catch (java.time.format.DateTimeParseException e2) {
                return -1;
            }
        }
    }

    /** Hands the connection's answers to the waiting request; a closed connection fails it. */
    private final class Answer extends SimpleChannelInboundHandler<FullHttpResponse> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse r) {
            CompletableFuture<FullHttpResponse> p = pending;
            if (p == null || !p.complete(r.retain())) {
                r.release(); // nobody waits for it (the request timed out)
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            CompletableFuture<FullHttpResponse> p = pending;
            if (p != null) {
                p.completeExceptionally(new Stale("connection closed before the answer", null));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            CompletableFuture<FullHttpResponse> p = pending;
            if (p != null) {
                p.completeExceptionally(cause);
            }
            ctx.close();
        }
    }
}
