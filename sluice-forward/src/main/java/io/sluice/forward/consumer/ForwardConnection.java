package io.sluice.forward.consumer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.Rejection;
import io.sluice.forward.FrameDecoder;
import io.sluice.forward.codec.ForwardProtocolException;
import java.net.SocketAddress;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One client connection of {@code consumer.Forward}, as a Netty handler: admits it (MaxConnections), checks the
 * handshake, passes each frame (from its {@link FrameDecoder}) to its {@link FrameBatcher}, pauses reading when
 * memory or the pipeline runs short, and closes it on a timeout or a failure ({@link ConnectionErrors}). Its parts:
 * {@link FrameBatcher} (frames into groups of batches), {@link GroupPublisher} (groups into the pipeline, off the
 * event loop), {@link ChunkAcks} (acks once every producer took a chunk's events) and {@link ConnectionMemory}
 * (what the connection holds of the {@link MemoryBudget}).
 *
 * <p>Everything here runs on the connection's event loop, except the publisher's drain (a publisher thread) and the
 * completions (whichever producer thread released the last batch), which only touch the handoff queue, the budget
 * and schedule work back onto the event loop.
 *
 * <p><b>Backpressure.</b> When {@code readAhead} groups wait for the publisher, the connection stops reading
 * ({@code autoRead} off) until it catches up: the client's TCP window closes.
 *
 * <p><b>Memory.</b> Nothing a peer sends is held without a reservation from the process's {@link MemoryBudget}.
 * When the budget is spent the connection stops: the read it could not buffer is kept, or the frame is suspended
 * at the event that found no room after what it decoded so far was handed off; reading stops, nothing more is
 * acked, one {@link Rejection#BUSY} is counted, and it tries again every {@value #RETRY_MILLIS} ms. What the budget
 * could never hold, or what exceeds MaxMessageSize or MaxDecompressedSize, is refused at once: the connection is
 * closed and a {@link Rejection#TOO_LARGE} counted. (Events handed off before a frame was found malformed part-way
 * are delivered; the frame is not acked.) Only a chunk whose events every producer took is remembered as accepted,
 * so a copy is never acked for events that were lost.
 */
final class ForwardConnection extends ChannelInboundHandlerAdapter {
    /**
     * What a connection may buffer before it authenticated, and the most read from its socket at a time until then:
     * a PING is a few hundred bytes, with a user name and password digest still well under this.
     */
    static final int UNAUTHENTICATED_BYTES = 4096;
    /** The longest a connection may take to send an acceptable PING (IdleTimeoutMs when that is shorter). */
    static final long HANDSHAKE_TIMEOUT_MILLIS = 10_000;
    /** How often a connection that stopped for want of memory tries again. */
    static final long RETRY_MILLIS = 10;

    private final ForwardServer server;
    private final FrameDecoder frames;
    private final ServerHandshake handshake;
    private final ConnectionMemory memory;
    private final ChunkAcks acks;
    private final GroupPublisher publisher;
    private final FrameBatcher batcher;
    private boolean authenticated;
    private boolean admitted;
    private boolean closing;
    private Channel channel;
    private ChannelHandlerContext context;
    private String peer = "?";
    private ScheduledFuture<?> handshakeDeadline;

    // Pausing for memory, on the event loop.
    /** Stopped for want of memory (BUSY counted once for the pause). */
    private volatile boolean busy;
    /** The server is stopping: nothing more is read; what was read is published and acked first. */
    private volatile boolean draining;
    /** Set by {@link #drain()} once what was read is handed off. */
    private volatile boolean handedOff;
    /** Set when an attempt to continue found no room again. */
    private boolean stillBusy;
    private boolean retryScheduled;


    ForwardConnection(ForwardServer server) {
        this.server = server;
        this.memory = new ConnectionMemory(server, this::pauseForMemory);
        ForwardServer.Settings s = server.settings();
        this.frames = new FrameDecoder(s.maxMessageSize(), memory);
        this.memory.frames(frames);
        this.acks = new ChunkAcks(server.recentChunks());
        this.publisher = new GroupPublisher(server, this::updateAutoRead);
        this.batcher = new FrameBatcher(server, frames, memory, acks, publisher, this::pauseForMemory);
        this.handshake = s.sharedKey() == null ? null : new ServerHandshake(s.sharedKey(), s.hostname(), s.users());
        this.authenticated = handshake == null;
        if (!authenticated) {
            frames.limitBuffered(UNAUTHENTICATED_BYTES);
        }
    }

    /** The frame decoder to put before this handler in the channel's pipeline. */
    FrameDecoder frames() {
        return frames;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        acks.channel(channel);
        publisher.channel(channel);
        SocketAddress remote = channel.remoteAddress();
        peer = remote == null ? "?" : remote.toString();
        batcher.peer(peer);
        if (!server.connectionOpened(channel)) {
            closing = true;
            channel.config().setAutoRead(false);
            server.context().reject(Rejection.BUSY, peer, "more than MaxConnections (" + server.settings().maxConnections()
                    + ") connections open; connection closed");
            ctx.close();
            return;
        }
        admitted = true;
        if (handshake != null) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(handshake.helo()));
            long idle = server.settings().idleTimeoutMillis();
            long deadline = idle > 0 ? Math.min(idle, HANDSHAKE_TIMEOUT_MILLIS) : HANDSHAKE_TIMEOUT_MILLIS;
            handshakeDeadline = ctx.executor().schedule(() -> handshakeTimedOut(ctx, deadline), deadline,
                    TimeUnit.MILLISECONDS);
        }
        ctx.fireChannelActive();
    }

    /**
     * The PING did not come in time. The idle timeout alone would let a peer trickling a byte now and then hold an
     * unauthenticated connection for hours, or for ever with IdleTimeoutMs 0.
     */
    private void handshakeTimedOut(ChannelHandlerContext ctx, long deadline) {
        if (authenticated || closing) {
            return;
        }
        closing = true;
        server.context().reject(Rejection.TIMEOUT, peer, "no acceptable PING within " + deadline
                + " ms of the HELO; connection closed");
        ctx.channel().config().setAutoRead(false);
        ctx.close();
    }

    /**
     * The socket reads of this connection: at most {@value #UNAUTHENTICATED_BYTES} bytes each until the handshake
     * is done, then as {@code usual} sizes them. (Netty keeps the first handle it makes, so the cap is switched
     * off in place rather than by setting another allocator.)
     */
    RecvByteBufAllocator preAuthReads(RecvByteBufAllocator usual) {
        return () -> new RecvByteBufAllocator.DelegatingHandle(usual.newHandle()) {
            @Override
            public ByteBuf allocate(ByteBufAllocator alloc) {
                return alloc.ioBuffer(guess());
            }

            @Override
            public int guess() {
                int g = delegate().guess();
                return authenticated ? g : Math.min(g, UNAUTHENTICATED_BYTES);
            }
        };
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (handshakeDeadline != null) {
            handshakeDeadline.cancel(false);
        }
        if (admitted) {
            admitted = false;
            server.connectionClosed();
        }
        closing = true;
        batcher.close();
        memory.releaseScratch();
        memory.releaseCredit();
        batcher.reportInvalidUtf8();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        ByteBuf frame = (ByteBuf) msg;
        try {
            if (!closing) {
                onFrame(ctx, frame.array(), frame.arrayOffset() + frame.readerIndex(), frame.readableBytes());
            }
        } finally {
            frame.release();
        }
    }

    private void onFrame(ChannelHandlerContext ctx, byte[] buf, int off, int len) throws ForwardProtocolException {
        if (!authenticated) {
            ServerHandshake.Result r = handshake.ping(buf, off, len);
            if (r.ok()) {
                authenticated = true;
                frames.limitBuffered(0);
                if (handshakeDeadline != null) {
                    handshakeDeadline.cancel(false);
                }
                server.handshakeSucceeded(ctx.channel().remoteAddress());
                ctx.writeAndFlush(Unpooled.wrappedBuffer(r.pong()));
            } else {
                // Nothing after the refused PING is read (a write of many guesses costs one connection each).
                closing = true;
                server.context().reject(Rejection.AUTH, peer, "handshake refused (hostname '" + r.clientHostname()
                        + "'): " + r.reason());
                server.handshakeFailed(ctx.channel().remoteAddress());
                ctx.writeAndFlush(Unpooled.wrappedBuffer(r.pong())).addListener(ChannelFutureListener.CLOSE);
                ctx.channel().config().setAutoRead(false);
            }
            return;
        }
        batcher.decode(buf, off, len);
    }

    // ---- pausing for memory ----

    /** Stops reading until memory comes back; counts one BUSY per pause. */
    private void pauseForMemory() {
        stillBusy = true;
        if (!busy) {
            busy = true;
            server.context().reject(Rejection.BUSY, peer, "memory budget spent (" + memory.budget()
                    + " reserved): reading paused, acks withheld until memory is released");
        }
        updateAutoRead();
        if (!retryScheduled && channel != null) {
            retryScheduled = true;
            channel.eventLoop().schedule(this::retry, RETRY_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Event loop, after a pause for memory: continues the suspended frame, then the reads kept. */
    private void retry() {
        retryScheduled = false;
        if (closing || !channel.isOpen()) {
            return;
        }
        stillBusy = false;
        if (batcher.frameOpen()) {
            try {
                batcher.resumeFrame();
            } catch (ForwardProtocolException | RuntimeException e) {
                exceptionCaught(context, e);
                return;
            }
        }
        if (!stillBusy) {
            frames.proceed();
        }
        batcher.handOff();
        if (!stillBusy && !closing) {
            busy = false;
            updateAutoRead();
        }
    }

    private void updateAutoRead() {
        if (channel != null) {
            channel.config().setAutoRead(!busy && !publisher.paused() && !closing && !draining);
        }
    }

    /**
     * The server stops (event loop): reads no more, and hands off what was read. A frame read in part stays unread
     * and unacked, so its sender sends its chunk again to the next server; everything handed off is published and
     * acked before the server closes the connection ({@link #settled()}).
     */
    void drain() {
        draining = true;
        updateAutoRead();
        batcher.handOff();
        handedOff = true;
    }

    /**
     * Whether nothing read waits for the pipeline (any thread): the last frames were handed off by {@link #drain()},
     * and every group was published, delivered and had its acks scheduled for writing, ahead of a close.
     */
    boolean settled() {
        return handedOff && !busy && publisher.queued() == 0 && acks.inFlight() == 0;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        batcher.handOff();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent e && e.state() == IdleState.READER_IDLE) {
            if (!busy && (publisher.paused() || publisher.queued() > 0 || acks.inFlight() > 0)) {
                return; // the connection waits for the pipeline (acks, publishing), not for the peer
            }
            closing = true;
            server.context().reject(Rejection.TIMEOUT, peer, busy
                    ? "waited for memory longer than IdleTimeoutMs (" + server.settings().idleTimeoutMillis()
                            + " ms) with a frame part-read; connection closed so its memory returns"
                    : "nothing received for IdleTimeoutMs (" + server.settings().idleTimeoutMillis() + " ms); connection closed");
            batcher.handOff();
            ctx.channel().config().setAutoRead(false);
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (closing) {
            ctx.close(); // already refused and counted (a refused handshake, a timeout, too many connections)
            return;
        }
        ConnectionErrors.report(server, peer, authenticated, c, memory.budget());
        if (!authenticated && ConnectionErrors.failsHandshake(c)) {
            server.handshakeFailed(ctx.channel().remoteAddress());
        }
        closing = true;
        if (batcher.frameOpen()) {
            batcher.failFrame();
        }
        // Frames decoded before the bad one are valid: publish them (their acks may not reach the client).
        batcher.handOff();
        ctx.channel().config().setAutoRead(false);
        ctx.close();
    }
}
