package io.sluice.core.net.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.sluice.core.pipeline.Log;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/1.1 server connection, after Netty's {@code HttpServerCodec}: requests are handled one at a time, so
 * answers keep their order when a client pipelines. While one is in flight ({@link #busy}: handled, delivered, or
 * streamed) what arrives next is queued unread and reading stops; once it is answered the queue runs and reading
 * resumes. A subclass keeps only its protocol: {@link #head} and {@link #content} of each request, and
 * {@link #send} (or {@link #answerAndClose}) for the answer. Nothing thrown while handling escapes to Netty (which
 * would only log it at DEBUG): it is logged, the request's resources are released ({@link #abort}) and the client
 * gets {@link #internalError()} with the connection closed. Event loop only.
 */
public abstract class HttpConnection extends ChannelInboundHandlerAdapter {
    /**
     * A refused request whose body is at most this long is read and dropped, never stored, so that the connection
     * stays usable; a longer or chunked one is answered at once and the connection closed without reading it.
     */
    public static final int SKIP_LIMIT = 1024 * 1024;

    /** Where errors are logged. */
    protected final Log log;
    /** Log text names the server so ("hec", "admin endpoint"); rate-limit keys start with {@code key}. */
    private final String label;
    private final String key;
    private final ArrayDeque<Object> queued = new ArrayDeque<>();
    /** The connection's context (this handler's), from when it was added. */
    protected ChannelHandlerContext context;
    /** The client's address, from when the connection became active. */
    protected SocketAddress peer;
    /** A request is being handled, delivered or streamed: the client waits for its answer, later input waits. */
    protected boolean busy;
    /** The connection is being closed: input is dropped. */
    protected boolean closing;
    /** A request's head was handled and its answer not written yet; read by a stopping server (any thread). */
    private volatile boolean inRequest;
    private boolean draining;
    private ScheduledFuture<?> timer;

    /**
     * @param label names the server in log lines ("{label}: connection from ...")
     * @param key starts the rate-limit keys of those lines
     */
    protected HttpConnection(Log log, String label, String key) {
        this.log = log;
        this.label = label;
        this.key = key;
    }

    /** The head of a request; its body follows through {@link #content}. */
    protected abstract void head(HttpRequest r) throws Exception;

    /** A piece of the current request's body, the last one a {@code LastHttpContent}. */
    protected abstract void content(HttpContent c) throws Exception;

    /** Releases what the request being received holds (it will not be answered). */
    protected abstract void abort();

    /** The answer when handling a request threw: sent with {@code Connection: close}. */
    protected abstract FullHttpResponse internalError();

    /** The connection became active; {@link #peer} is set. */
    protected void opened() {
    }

    /** The timer set by {@link #arm} or {@link #armRepeating} went off. */
    protected void deadlinePassed() {
    }

    /**
     * A failure on the connection that is TLS's (a plain-HTTP client on a TLS port, an untrusted certificate): true
     * when it was reported here; false to have it logged as any other connection failure.
     */
    protected boolean tlsFailed(Throwable cause) {
        return false;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext c) {
        context = c;
    }

    @Override
    public void channelActive(ChannelHandlerContext c) {
        peer = c.channel().remoteAddress();
        opened();
        c.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext c, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (busy || !queued.isEmpty()) {
            queued.add(msg);
            c.channel().config().setAutoRead(false);
            return;
        }
        process(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext c) {
        closing = true;
        inRequest = false;
        disarm();
        abort();
        Object m;
        while ((m = queued.poll()) != null) {
            ReferenceCountUtil.release(m);
        }
        c.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
        if (!tlsFailed(cause)) {
            if (cause instanceof IOException) {
                log.debug(label + ": connection from " + peer + ": " + cause);
            } else {
                log.limited(Log.ERROR, key + ": connection error", label + ": connection from " + peer + " failed: " + cause);
            }
        }
        closeNow();
    }

    /** Handles one HTTP object and releases it. */
    private void process(Object msg) {
        try {
            if (msg instanceof HttpRequest r) {
                inRequest = true;
                head(r);
            }
            if (msg instanceof HttpContent c && !closing) {
                content(c);
            }
        } catch (Throwable t) {
            failed(t);
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    /** Something broke while handling a request: its resources go back, the client gets 500, the connection closes. */
    protected final void failed(Throwable t) {
        log.limited(Log.ERROR, key + ": request failed", label + ": handling a request from " + peer + " failed: " + t);
        abort();
        if (closing) {
            return; // answered already, with Connection: close
        }
        try {
            answerAndClose(internalError());
        } catch (Throwable e) {
            context.close();
        }
    }

    /** Writes the current request's answer; then the connection closes ({@code keepAlive} false) or reads on. */
    protected final void send(FullHttpResponse r, boolean keepAlive) {
        answered(context.writeAndFlush(r), keepAlive);
    }

    /** Sends {@code r} with {@code Connection: close} and closes once it is written; later input is dropped. */
    protected final void answerAndClose(FullHttpResponse r) {
        closing = true;
        HttpUtil.setKeepAlive(r, false);
        answered(context.writeAndFlush(r), false);
    }

    /**
     * The answer of the current request was written (or is being): closes the connection once it is out unless
     * kept alive, else runs the input that waited for it.
     */
    protected void answered(ChannelFuture write, boolean keepAlive) {
        inRequest = false;
        if (!keepAlive) {
            closing = true;
            write.addListener(ChannelFutureListener.CLOSE);
            return;
        }
        drain();
    }

    /**
     * Whether no request is being handled: none begun, or its answer written. A stopping server waits for this on
     * every connection before it closes them, so that no request it took is left without its answer.
     */
    public final boolean idle() {
        return !inRequest;
    }

    /** Runs the input that waited while a request was in flight, then reads again. */
    protected final void drain() {
        if (draining) {
            return;
        }
        draining = true;
        try {
            Object m;
            while (!busy && !closing && (m = queued.poll()) != null) {
                process(m);
            }
        } finally {
            draining = false;
        }
        if (!busy && !closing && queued.isEmpty()) {
            context.channel().config().setAutoRead(true);
        }
    }

    /** Closes the connection now; what the current request holds goes back. */
    protected final void closeNow() {
        closing = true;
        disarm();
        abort();
        context.close();
    }

    /** Sends {@code 100 Continue} when the client waits for it before sending the body. */
    protected final void continue100(HttpRequest r) {
        if (HttpUtil.is100ContinueExpected(r)) {
            context.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
                    Unpooled.EMPTY_BUFFER));
        }
    }

    /**
     * Whether a request refused from its head can be answered after its body was read and dropped (at most
     * {@link #SKIP_LIMIT} announced, not chunked, and not waiting for {@code 100 Continue}), keeping the connection;
     * else it is answered at once and the connection closed.
     */
    protected static boolean skippable(HttpRequest r) {
        boolean chunked = HttpUtil.isTransferEncodingChunked(r);
        long cl = chunked ? -1 : HttpUtil.getContentLength(r, 0L);
        return !chunked && cl <= SKIP_LIMIT && (cl == 0 || !HttpUtil.is100ContinueExpected(r));
    }

    /** Calls {@link #deadlinePassed} once in {@code millis}, in place of the timer set before. */
    protected final void arm(long millis) {
        disarm();
        timer = context.executor().schedule(this::expired, millis, TimeUnit.MILLISECONDS);
    }

    /** Calls {@link #deadlinePassed} every {@code millis} until {@link #disarm} or the connection closes. */
    protected final void armRepeating(long millis) {
        disarm();
        timer = context.executor().scheduleWithFixedDelay(this::deadlinePassed, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Cancels the timer. */
    protected final void disarm() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void expired() {
        timer = null;
        deadlinePassed();
    }
}
