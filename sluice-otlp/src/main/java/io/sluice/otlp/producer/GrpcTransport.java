package io.sluice.otlp.producer;

import io.sluice.core.tls.NettyTls;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.concurrent.Future;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPInputStream;

/**
 * OTLP/gRPC: a unary {@code Export} call on Netty's HTTP/2 codec, which is all of gRPC an exporter needs. One
 * connection (h2c with prior knowledge, or TLS with ALPN h2), one stream per request: the request headers
 * ({@code content-type: application/grpc}, {@code te: trailers}, {@code grpc-encoding: gzip} when compressing,
 * {@code grpc-timeout}), the length-prefixed message, then the answer's {@code grpc-status}, {@code grpc-message}
 * and {@code grpc-status-details-bin} (its {@code RetryInfo}) from the trailers.
 */
final class GrpcTransport implements Transport {
    /**
     * The connection failed the request before the server could have taken it: no stream could be opened on it, or
     * it closed before any answer. On a reused connection that is the server closing it (GOAWAY after its idle or
     * age limit), no failure of the request.
     */
    static final class Stale extends IOException {
        private static final long serialVersionUID = 1L;

        Stale(String message, Throwable cause) {
            super(message, cause);
        }
    }

    static final int OK = 0;
    static final int CANCELLED = 1;
    static final int UNKNOWN = 2;
    static final int DEADLINE_EXCEEDED = 4;
    static final int PERMISSION_DENIED = 7;
    static final int RESOURCE_EXHAUSTED = 8;
    static final int ABORTED = 10;
    static final int OUT_OF_RANGE = 11;
    static final int UNIMPLEMENTED = 12;
    static final int INTERNAL = 13;
    static final int UNAVAILABLE = 14;
    static final int DATA_LOSS = 15;
    static final int UNAUTHENTICATED = 16;
    private static final String[] NAMES = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
        "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
        "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};

    private final Connector connector;
    private final long timeoutMillis;
    private final boolean tls;
    private final String authority;
    private final Map<String, String> headers;

    GrpcTransport(EventLoopGroup group, String host, int port, NettyTls tls, Map<String, String> headers,
                  long timeoutMillis) {
        this.connector = new Connector(group, host, port, tls, timeoutMillis, this::handlers);
        this.timeoutMillis = timeoutMillis;
        this.tls = tls != null;
        this.authority = host + ":" + port;
        this.headers = headers;
    }

    /**
     * Sends the request; one that failed on a reused connection before the server could have seen it ({@link Stale})
     * goes once more, at once, on a new connection rather than through the pipeline's backoff.
     */
    @Override
    public Reply export(Signal signal, byte[] body, int off, int len, boolean gzip)
            throws IOException, InterruptedException {
        boolean reused = connector.isOpen();
        try {
            return exportOnce(signal, body, off, len, gzip);
        } catch (Stale e) {
            if (!reused) {
                throw e;
            }
            return exportOnce(signal, body, off, len, gzip);
        }
    }

    @Override
    public void close() {
        connector.drop();
    }

    /** The pipeline of a new connection, after TLS: the HTTP/2 codec and the handler of its answers. */
    private ChannelHandler[] handlers() {
        return new ChannelHandler[] {
            Http2FrameCodecBuilder.forClient().build(),
            // Servers do not open streams towards a client; the handler is there because the multiplexer needs one.
            new Http2MultiplexHandler(new ChannelInboundHandlerAdapter())};
    }

    /**
     * Whether a call that ended with gRPC status {@code code} may be retried, as the OpenTelemetry specification
     * and the Collector's exporter decide: RESOURCE_EXHAUSTED only when the server said when (RetryInfo).
     */
    static boolean retryable(int code, boolean retryInfo) {
        return switch (code) {
            case CANCELLED, DEADLINE_EXCEEDED, ABORTED, OUT_OF_RANGE, UNAVAILABLE, DATA_LOSS -> true;
            case RESOURCE_EXHAUSTED -> retryInfo;
            default -> false;
        };
    }

    static String name(int code) {
        return code >= 0 && code < NAMES.length ? NAMES[code] : "code " + code;
    }

    /** One attempt of {@link #export}, on the open connection or a new one. */
    private Reply exportOnce(Signal signal, byte[] body, int off, int len, boolean gzip)
            throws IOException, InterruptedException {
        Channel connection = connector.channel();
        if (closing(connection)) {
            connector.drop(); // the server is closing it: no new stream may start there
            connection = connector.channel();
            if (!connection.isActive()) {
                // Closed as soon as it was made: with TLS 1.3 a server refusing our certificate says so after the
                // client's handshake completed, and the connection is gone by the time we get it.
                connector.drop();
                throw new IOException("the connection to " + connector.address() + " closed as it opened"
                        + " (a server refusing the client certificate, or the connection cap)");
            }
        }
        if (tls && !"h2".equals(connector.applicationProtocol(connection))) {
            connector.drop();
            throw new IOException(connector.address() + " did not agree to HTTP/2 by ALPN, which gRPC needs");
        }
        Call call = new Call();
        Future<Http2StreamChannel> opened = new Http2StreamChannelBootstrap(connection).handler(call).open();
        if (!opened.await(timeoutMillis, TimeUnit.MILLISECONDS) || !opened.isSuccess()) {
            connector.drop(); // a connection that cannot open streams (GOAWAY) is replaced by the next attempt
            throw new Stale("cannot open a gRPC stream to " + connector.address() + ": " + opened.cause(),
                    opened.cause());
        }
        Http2StreamChannel stream = opened.getNow();
        ChannelFuture started = stream.write(new DefaultHttp2HeadersFrame(requestHeaders(signal, gzip), false));
        byte[] prefix = {(byte) (gzip ? 1 : 0), (byte) (len >>> 24), (byte) (len >>> 16), (byte) (len >>> 8), (byte) len};
        ByteBuf message = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(prefix), Unpooled.wrappedBuffer(body, off, len));
        ChannelFuture written = stream.writeAndFlush(new DefaultHttp2DataFrame(message, true));
        try {
            return call.result.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            stream.close(); // cancels the call (RST_STREAM): the server need not finish work nobody waits for
            throw new IOException("no answer from " + connector.address() + " within " + timeoutMillis + " ms");
        } catch (ExecutionException e) {
            if (started.isDone() && !started.isSuccess() || refused(e.getCause())) {
                // The stream never started (a GOAWAY came first) or the server refused it unread: nothing was taken.
                connector.drop();
                throw new Stale("gRPC stream to " + connector.address() + " not started: " + e.getCause(), e.getCause());
            }
            throw new IOException("gRPC call to " + connector.address() + " failed: " + e.getCause(), e.getCause());
        } finally {
            // The body wraps the caller's buffer, which it reuses once we return: the stream must be done with it.
            if (!written.isDone()) {
                stream.close().awaitUninterruptibly(timeoutMillis);
            }
        }
    }

    /**
     * Whether no new stream may start on the connection: the server sent GOAWAY, or the connection is already closed
     * (its pipeline is then empty, without the HTTP/2 codec).
     */
    private static boolean closing(Channel connection) {
        Http2FrameCodec codec = connection.pipeline().get(Http2FrameCodec.class);
        return codec == null || !connection.isActive() || codec.connection().goAwayReceived();
    }

    private static boolean refused(Throwable t) {
        return t instanceof Refused;
    }

    /** RST_STREAM REFUSED_STREAM: the server did not process the stream (HTTP/2 8.1.4), so it is safe to send again. */
    private static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused() {
            super("stream refused by the server");
        }
    }

    private Http2Headers requestHeaders(Signal signal, boolean gzip) {
        Http2Headers h = new DefaultHttp2Headers().method("POST").scheme(tls ? "https" : "http")
                .path(signal.grpcPath).authority(authority);
        h.add("content-type", "application/grpc");
        h.add("te", "trailers");
        // At most eight digits: milliseconds up to a day or so, seconds beyond.
        h.add("grpc-timeout", timeoutMillis <= 99_999_999L ? timeoutMillis + "m" : timeoutMillis / 1000 + "S");
        h.add("user-agent", "sluice-otlp");
        if (gzip) {
            h.add("grpc-encoding", "gzip");
        }
        headers.forEach((k, v) -> h.add(k.toLowerCase(java.util.Locale.ROOT), v));
        return h;
    }

    /** One call's answer: response headers, message bytes, trailers; completes {@link #result} once. */
    private static final class Call extends SimpleChannelInboundHandler<Http2StreamFrame> {
        final CompletableFuture<Reply> result = new CompletableFuture<>();
        private Http2Headers head;
        private final ByteArrayOutputStream data = new ByteArrayOutputStream();

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Http2StreamFrame frame) throws IOException {
            if (frame instanceof Http2HeadersFrame h) {
                if (head == null && !h.isEndStream()) {
                    head = h.headers();
                } else {
                    finish(head == null ? h.headers() : head, h.headers()); // trailers, or trailers-only
                }
            } else if (frame instanceof Http2DataFrame d) {
                d.content().readBytes(data, d.content().readableBytes());
                if (d.isEndStream()) {
                    finish(head, null);
                }
            } else if (frame instanceof Http2ResetFrame reset) {
                long code = reset.errorCode();
                result.completeExceptionally(code == Http2Error.REFUSED_STREAM.code() ? new Refused()
                        : new IOException("stream reset by the server, HTTP/2 error " + code));
            }
        }

        /** Set when a GOAWAY said the server never processed this stream (its id is above the last one taken). */
        private boolean notProcessed;

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            // Netty hands a GOAWAY to every stream it concerns: those above lastStreamId were not processed and may
            // go again at once, on a new connection (RFC 9113 6.8), rather than fail as a closed stream.
            if (evt instanceof Http2GoAwayFrame goAway) {
                try {
                    notProcessed |= ((Http2StreamChannel) ctx.channel()).stream().id() > goAway.lastStreamId();
                } finally {
                    goAway.release();
                }
            } else {
                ctx.fireUserEventTriggered(evt);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            result.completeExceptionally(notProcessed ? new Refused()
                    : new IOException("stream closed before the answer"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            result.completeExceptionally(cause);
            ctx.close();
        }

        private void finish(Http2Headers headers, Http2Headers trailers) throws IOException {
            Http2Headers t = trailers != null ? trailers : headers;
            CharSequence status = t == null ? null : t.get("grpc-status");
            int code = status == null ? fromHttp(headers) : parseCode(status);
            if (code == OK) {
                result.complete(Reply.ok(message(headers)));
                return;
            }
            long retryAfter = -1;
            CharSequence details = t == null ? null : t.get("grpc-status-details-bin");
            if (details != null) {
                try {
                    retryAfter = Responses.retryDelayMillis(Base64.getDecoder().decode(details.toString()));
                } catch (IllegalArgumentException e) {
                    retryAfter = -1; // undecodable details: as if there were none
                }
            }
            CharSequence msg = t == null ? null : t.get("grpc-message");
            result.complete(Reply.failed(retryable(code, retryAfter >= 0), retryAfter,
                    "gRPC " + name(code) + (msg == null ? "" : ": " + percentDecode(msg.toString()))));
        }

        /** The response message, its 5-byte prefix removed and inflated when the server compressed it. */
        private byte[] message(Http2Headers headers) throws IOException {
            byte[] all = data.toByteArray();
            if (all.length < 5) {
                return new byte[0];
            }
            byte[] m = java.util.Arrays.copyOfRange(all, 5, all.length);
            if (all[0] == 1) {
                CharSequence enc = headers == null ? null : headers.get("grpc-encoding");
                if (enc == null || !"gzip".contentEquals(enc)) {
                    return new byte[0]; // an encoding we did not offer: the answer's details are lost, not the data
                }
                try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(m))) {
                    return in.readAllBytes();
                }
            }
            return m;
        }

        private static int parseCode(CharSequence s) {
            try {
                return Integer.parseInt(s.toString().trim());
            } catch (NumberFormatException e) {
                return UNKNOWN;
            }
        }

        /** gRPC's mapping of an HTTP status to a code, for answers without grpc-status (a proxy's, say). */
        private static int fromHttp(Http2Headers headers) {
            CharSequence s = headers == null ? null : headers.status();
            return switch (s == null ? 0 : parseCode(s)) {
                case 400 -> INTERNAL;
                case 401 -> UNAUTHENTICATED;
                case 403 -> PERMISSION_DENIED;
                case 404 -> UNIMPLEMENTED;
                case 429, 502, 503, 504 -> UNAVAILABLE;
                default -> UNKNOWN;
            };
        }

        private static String percentDecode(String s) {
            if (s.indexOf('%') < 0) {
                return s;
            }
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '%' && i + 2 < s.length() && Character.digit(s.charAt(i + 1), 16) >= 0
                        && Character.digit(s.charAt(i + 2), 16) >= 0) {
                    b.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                    i += 2;
                } else {
                    b.write(c);
                }
            }
            return b.toString(StandardCharsets.UTF_8);
        }
    }
}
