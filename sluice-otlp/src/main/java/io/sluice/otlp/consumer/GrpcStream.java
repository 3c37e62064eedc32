package io.sluice.otlp.consumer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.sluice.core.pipeline.Rejection;
import java.net.SocketAddress;
import java.util.Base64;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One gRPC call (an HTTP/2 stream): a unary {@code Export} of logs or metrics. Reads the length-prefixed request
 * message (compressed flag, 4-byte length), reserving its length from the memory budget before copying it, and
 * answers with the response message and {@code grpc-status} trailers once the pipeline delivered the records, or
 * with a trailers-only error: 3 INVALID_ARGUMENT (malformed), 8 RESOURCE_EXHAUSTED (too large; not retryable),
 * 12 UNIMPLEMENTED (other methods, such as traces), 14 UNAVAILABLE with a RetryInfo in
 * {@code grpc-status-details-bin} (busy), 16 UNAUTHENTICATED. Event loop only.
 */
final class GrpcStream extends ChannelInboundHandlerAdapter {
    private static final AsciiString GRPC = AsciiString.cached("application/grpc");
    private static final AsciiString GRPC_STATUS = AsciiString.cached("grpc-status");
    private static final AsciiString GRPC_MESSAGE = AsciiString.cached("grpc-message");
    private static final AsciiString GRPC_DETAILS = AsciiString.cached("grpc-status-details-bin");
    private static final AsciiString GRPC_ENCODING = AsciiString.cached("grpc-encoding");
    private static final AsciiString GRPC_ACCEPT_ENCODING = AsciiString.cached("grpc-accept-encoding");

    private final OtlpServer server;
    private final GrpcConn conn;
    private ChannelHandlerContext context;
    private SocketAddress peer;
    private Signal signal;
    private boolean gzipEncoding;
    private boolean headersSeen;
    /** The answer was written (or is on its way): what still comes is dropped. */
    private boolean answered;
    private boolean inboundEnded;
    private final byte[] prefix = new byte[5];
    private int prefixLength;
    private long messageLength = -1;
    private Export export;
    private ScheduledFuture<?> timer;

    GrpcStream(OtlpServer server, GrpcConn conn) {
        this.server = server;
        this.conn = conn;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext c) {
        context = c;
    }

    @Override
    public void channelActive(ChannelHandlerContext c) {
        peer = c.channel().parent().remoteAddress();
        conn.streamOpened();
        timer = c.executor().schedule(this::timedOut, server.settings().idleTimeoutMs, TimeUnit.MILLISECONDS);
        c.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext c) {
        conn.streamClosed();
        cancelTimer();
        release();
        c.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext c, Object msg) {
        try {
            if (msg instanceof Http2HeadersFrame h) {
                if (!headersSeen) {
                    headersSeen = true;
                    headers(h.headers());
                }
                if (h.isEndStream()) {
                    end();
                }
            } else if (msg instanceof Http2DataFrame d) {
                if (!answered) {
                    data(d.content());
                }
                if (d.isEndStream()) {
                    end();
                }
            }
        } catch (Throwable t) {
            conn.streamFailed(peer, t);
            release();
            answered = true;
            c.close();
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
        conn.streamFailed(peer, cause);
        release();
        c.close();
    }

    /** The call's head: method, path, content type, credentials, encoding, and whether we take requests now. */
    private void headers(Http2Headers h) {
        CharSequence path = h.path();
        signal = path == null ? null : Signal.ofGrpcPath(path);
        CharSequence type = h.get("content-type");
        if (!"POST".contentEquals(h.method() == null ? "" : h.method()) || type == null
                || !AsciiString.of(type).toLowerCase().startsWith(GRPC)) {
            refuse(Outcome.Code.INVALID, "not a gRPC call: " + h.method() + " " + path + " " + type);
        } else if (signal == null) {
            refuse(Outcome.Code.UNIMPLEMENTED, "unknown method " + path
                    + "; consumer.OTLP takes the logs and metrics Export calls");
        } else if (!server.authorized(h.get(server.authHeader()))) {
            refuse(Outcome.Code.UNAUTHENTICATED, "missing or wrong token in " + server.authHeader());
        } else {
            CharSequence enc = h.get(GRPC_ENCODING);
            gzipEncoding = enc != null && AsciiString.contentEqualsIgnoreCase(enc, "gzip");
            if (enc != null && !gzipEncoding && !AsciiString.contentEqualsIgnoreCase(enc, "identity")) {
                refuse(Outcome.Code.UNIMPLEMENTED, "unsupported grpc-encoding " + enc + "; gzip is supported");
                return;
            }
            String busyNow = server.stopping() ? "stopping" : server.ingest().busy();
            if (busyNow != null) {
                refuse(Outcome.Code.BUSY, busyNow);
            }
        }
    }

    /** Request bytes: the 5-byte prefix, then the message into a buffer reserved from its announced length. */
    private void data(ByteBuf b) {
        while (b.isReadable() && !answered) {
            if (prefixLength < 5) {
                int n = Math.min(5 - prefixLength, b.readableBytes());
                b.readBytes(prefix, prefixLength, n);
                prefixLength += n;
                if (prefixLength == 5 && !startMessage()) {
                    return;
                }
                continue;
            }
            if (export.length == messageLength) {
                refuse(Outcome.Code.INVALID, "more than one request message in a unary call");
                return;
            }
            int n = (int) Math.min(b.readableBytes(), messageLength - export.length);
            Outcome refused = export.append(b, n);
            b.skipBytes(n);
            if (refused != null) {
                refuse(refused.code(), refused.message());
                return;
            }
        }
    }

    /** The prefix is complete: checks the flag and the length, and reserves the message. False when refused. */
    private boolean startMessage() {
        int flag = prefix[0];
        messageLength = (prefix[1] & 0xFFL) << 24 | (prefix[2] & 0xFF) << 16 | (prefix[3] & 0xFF) << 8 | (prefix[4] & 0xFF);
        if (flag != 0 && flag != 1 || flag == 1 && !gzipEncoding) {
            refuse(Outcome.Code.INVALID, flag == 1 ? "a compressed message without grpc-encoding"
                    : "bad compressed flag " + flag);
            return false;
        }
        export = new Export(signal, false, flag == 1, server.settings().maxRequestSize, server.budget());
        Outcome refused = export.expect(messageLength);
        if (refused != null) {
            refuse(refused.code(), refused.message());
            return false;
        }
        return true;
    }

    /** The client half-closed: the request is complete (or truncated). */
    private void end() {
        inboundEnded = true;
        cancelTimer();
        if (answered) {
            return;
        }
        if (export == null || export.length < messageLength) {
            refuse(Outcome.Code.INVALID, export == null ? "no request message" : "truncated request message ("
                    + export.length + " of " + messageLength + " bytes)");
            return;
        }
        Export e = export;
        export = null;
        answered = true;
        Outcome now = server.ingest().run(e, context.executor(), this::answer);
        if (now != null) {
            answer(now);
        }
    }

    private void refuse(Outcome.Code code, String message) {
        release();
        answered = true;
        answer(Outcome.refuse(code, message));
    }

    /** Writes the response: message and trailers on success, trailers only otherwise. */
    private void answer(Outcome o) {
        answered = true;
        if (!context.channel().isActive()) {
            return;
        }
        Http2Headers h = new DefaultHttp2Headers().status("200").set("content-type", GRPC)
                .set(GRPC_ACCEPT_ENCODING, "gzip");
        if (o.code() == Outcome.Code.OK) {
            server.ingest().answeredOk();
            context.write(new DefaultHttp2HeadersFrame(h));
            byte[] msg = Wire.exportResponse(o.rejected(), o.message());
            ByteBuf out = Unpooled.buffer(5 + msg.length).writeByte(0).writeInt(msg.length).writeBytes(msg);
            context.write(new DefaultHttp2DataFrame(out));
            Http2Headers trailers = new DefaultHttp2Headers().setInt(GRPC_STATUS, 0);
            context.writeAndFlush(new DefaultHttp2HeadersFrame(trailers, true)).addListener(this::afterAnswer);
            return;
        }
        server.context().reject(o.code().rejection, peer, o.message());
        h.setInt(GRPC_STATUS, o.code().grpc).set(GRPC_MESSAGE, Wire.percentEncode(o.message()));
        if (o.code() == Outcome.Code.BUSY) {
            byte[] status = Wire.status(o.code().grpc, o.message(), OtlpServer.RETRY_AFTER_SECONDS);
            h.set(GRPC_DETAILS, Base64.getEncoder().withoutPadding().encodeToString(status));
        }
        context.writeAndFlush(new DefaultHttp2HeadersFrame(h, true)).addListener(this::afterAnswer);
    }

    /** An answer written before the client finished sending: the stream is reset, so it stops. */
    private void afterAnswer(Future<? super Void> f) {
        if (!inboundEnded || !f.isSuccess()) {
            context.close();
        }
    }

    /** A call not complete within IdleTimeoutMs of its start: reset, counted as a timeout. */
    private void timedOut() {
        if (answered || inboundEnded) {
            return;
        }
        server.context().reject(Rejection.TIMEOUT, peer,
                "gRPC request not complete within IdleTimeoutMs (" + server.settings().idleTimeoutMs + " ms); reset");
        answered = true;
        release();
        context.close();
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void release() {
        Export e = export;
        export = null;
        if (e != null) {
            e.release();
        }
    }
}
