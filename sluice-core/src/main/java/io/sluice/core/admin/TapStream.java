package io.sluice.core.admin;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.sluice.core.pipeline.Tap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The answer of one {@code /api/tap}: sampled messages as JSON lines, in chunks, until {@code limit} were sent, the
 * tap was idle {@link AdminServer#TAP_IDLE_MILLIS}, or the client left. No thread waits on the tap: a task on the
 * connection's event loop polls it every {@link AdminServer#TAP_POLL_MILLIS}, and writes only while the channel is
 * writable, so a client that does not read holds at most the write buffer's high mark (the tap's own small queue
 * skips messages meanwhile, never the pipeline). Event loop only.
 */
final class TapStream {
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(AdminServer.TAP_IDLE_MILLIS);

    private final AdminConn conn;
    private final ChannelHandlerContext context;
    private final Tap tap;
    private final int limit;
    /** HTTP/1.1 streams in chunks and may keep the connection; HTTP/1.0 ends the body by closing. */
    private final boolean chunked;
    private final boolean keepAlive;
    private int sent;
    private long lastLine;
    private ScheduledFuture<?> poller;
    private boolean done;

    TapStream(AdminConn conn, ChannelHandlerContext context, HttpRequest request, Tap tap, int limit) {
        this.conn = conn;
        this.context = context;
        this.tap = tap;
        this.limit = limit;
        this.chunked = request.protocolVersion().equals(HttpVersion.HTTP_1_1);
        this.keepAlive = chunked && HttpUtil.isKeepAlive(request);
    }

    /** Sends the answer's head now (a client sees 200 before the first message) and starts polling. */
    void start() {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/x-ndjson");
        if (chunked) {
            HttpUtil.setTransferEncodingChunked(head, true);
        }
        HttpUtil.setKeepAlive(head, keepAlive);
        context.writeAndFlush(head);
        lastLine = System.nanoTime();
        poller = context.executor().scheduleWithFixedDelay(this::pump, AdminServer.TAP_POLL_MILLIS,
                AdminServer.TAP_POLL_MILLIS, TimeUnit.MILLISECONDS);
        pump();
    }

    /** Writes what the tap sampled while the client keeps up; ends the stream at the limit or when idle. */
    void pump() {
        if (done || !context.channel().isActive()) {
            return; // a closed channel is aborted by AdminConn.channelInactive
        }
        boolean wrote = false;
        String line;
        while (sent < limit && context.channel().isWritable() && (line = tap.poll()) != null) {
            context.write(new DefaultHttpContent(ByteBufUtil.writeUtf8(context.alloc(), line + "\n")));
            sent++;
            wrote = true;
        }
        long now = System.nanoTime();
        if (wrote) {
            context.flush();
            lastLine = now;
        }
        if (sent >= limit || now - lastLine > IDLE_NANOS) {
            end();
        }
    }

    /** Ends the body; the connection then takes the next request or closes. */
    private void end() {
        stop();
        ChannelFuture last = context.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        conn.tapEnded(last, keepAlive);
    }

    /** The client left: the plugin drops the tap at its next batch, the slot goes back. */
    void abort() {
        if (!done) {
            stop();
            conn.tapAborted();
        }
    }

    private void stop() {
        done = true;
        if (poller != null) {
            poller.cancel(false);
        }
        tap.close();
    }
}
