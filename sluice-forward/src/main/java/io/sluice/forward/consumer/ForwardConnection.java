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
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Completion;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Rejection;
import io.sluice.forward.FrameDecoder;
import io.sluice.forward.OverBudgetException;
import io.sluice.forward.codec.BufferAllowance;
import io.sluice.forward.codec.DecodeSuspendedException;
import io.sluice.forward.codec.EventSink;
import io.sluice.forward.codec.ForwardDecoder;
import io.sluice.forward.codec.ForwardProtocolException;
import io.sluice.forward.codec.FrameTooLargeException;
import io.sluice.forward.codec.PayloadTooLargeException;
import io.sluice.forward.codec.RecordView;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;

/**
 * One client connection of {@code consumer.Forward}: checks the handshake, decodes frames (from its
 * {@link FrameDecoder}) into batches, hands them to the publisher threads and writes {@code {"ack": chunk}} once
 * every producer has taken them.
 *
 * <p>Everything here runs on the connection's event loop, except {@link #drain} (a publisher thread) and the
 * completions (whichever producer thread released the last batch), which only touch the handoff queue, the budget
 * and schedule work back onto the event loop.
 *
 * <p><b>Grouping.</b> Events of all frames decoded from one read go into the same batches (a read of Message
 * mode frames holds hundreds of events; publishing each alone would cost a queue handoff per event). The group's
 * batches share one {@link GroupAck} that acks every chunk whose frame ended in the group.
 *
 * <p><b>Backpressure.</b> {@code publish} blocks while the pipeline's queues are full, so it never runs on the
 * event loop. Groups wait in a per-connection queue drained by a shared pool of publisher threads, one drain at a
 * time per connection (order is kept). When {@code readAhead} groups wait, the connection stops reading
 * ({@code autoRead} off) until the publisher catches up: the client's TCP window closes.
 *
 * <p><b>Memory.</b> Nothing a peer sends is held without a reservation from the process's {@link MemoryBudget}:
 * the frame buffer (by the {@link FrameDecoder}), the inflated payload and the JSON scratch buffer as they grow
 * ({@link BufferAllowance}), and every decoded event (its payload, its metadata, {@link MemoryBudget#MESSAGE_OVERHEAD})
 * before it is copied into its message. Events are charged against a credit reserved {@value #CREDIT_STEP} bytes at
 * a time; each batch carries what its events were charged ({@link Batch#holdMemory}) back to the budget when it is
 * delivered. When the budget is spent the connection stops: the read it could not buffer is kept, or the frame is
 * suspended at the event that found no room ({@link ForwardDecoder#resume}) after what it decoded so far was
 * handed off; reading stops, nothing more is acked, one {@link Rejection#BUSY} is counted, and it tries again
 * every {@value #RETRY_MILLIS} ms. What the budget could never hold, or what exceeds MaxMessageSize or
 * MaxDecompressedSize, is refused at once: the connection is closed and a {@link Rejection#TOO_LARGE} counted.
 * (Events handed off before a frame was found malformed part-way are delivered; the frame is not acked.)
 *
 * <p><b>Copies of a chunk.</b> A frame's chunk id is looked up in the server's {@link RecentChunks} before its
 * events are decoded. A copy of a chunk already accepted is acked at once and its events are not published; a copy
 * of one still in flight (on this or another connection) is acked when the first copy is accepted. Only a chunk
 * whose events every producer took is remembered as accepted, so a copy is never acked for events that were lost.
 */
final class ForwardConnection extends ChannelInboundHandlerAdapter
        implements EventSink, RecentChunks.Waiter, FrameDecoder.Memory, BufferAllowance {
    /** A group is handed off early when a big read produced this many batches. */
    private static final int MAX_GROUP_BATCHES = 8;
    /**
     * What a connection may buffer before it authenticated, and the most read from its socket at a time until then:
     * a PING is a few hundred bytes, with a user name and password digest still well under this.
     */
    static final int UNAUTHENTICATED_BYTES = 4096;
    /** The longest a connection may take to send an acceptable PING (IdleTimeoutMs when that is shorter). */
    static final long HANDSHAKE_TIMEOUT_MILLIS = 10_000;
    /** Events are charged against a credit reserved this many bytes at a time (one budget operation per step). */
    static final int CREDIT_STEP = 256 << 10;
    /** Charged per event for its metadata storage (arena, field table, objects) when fields are copied. */
    static final int METADATA_OVERHEAD = 600;
    /** How often a connection that stopped for want of memory tries again. */
    static final long RETRY_MILLIS = 10;
    private static final byte[] ACK_PREFIX = {(byte) 0x81, (byte) 0xa3, 'a', 'c', 'k'};
    private static final String[] NO_CHUNKS = new String[0];

    private final ForwardServer server;
    private final FrameDecoder frames;
    private final ForwardDecoder decoder;
    private final RecordMapper mapper;
    private final ServerHandshake handshake;
    private final RecentChunks recent;
    private final boolean metadata;
    private final int eventBase;
    private final int eventPerByte;
    private boolean authenticated;
    private boolean admitted;
    private boolean closing;
    private Channel channel;
    private ChannelHandlerContext context;
    private String peer = "?";
    private ScheduledFuture<?> handshakeDeadline;

    private final ArrayList<Batch> batches = new ArrayList<>();
    private long[] batchBytes = new long[MAX_GROUP_BATCHES * 2];
    private Batch current;
    /** Charged to the events of {@link #current}. */
    private long currentBytes;
    /** Charged to the events of {@link #batches} and {@link #current}, not handed off yet. */
    private long pendingBytes;
    private final ArrayList<String> chunks = new ArrayList<>();
    /** Chunks of copies of accepted frames: acked at the next hand-off, with nothing to publish. */
    private final ArrayList<String> ackNow = new ArrayList<>();
    private String frameChunk;
    /** What {@link RecentChunks#claim} said of the current frame's chunk; null when not looked up. */
    private RecentChunks.Claim frameClaim;
    /** Events of the current frame not published because the frame is a copy. */
    private int skippedEvents;
    /** Where the current frame's events begin (what a failure rolls back to); reset when a part was handed off. */
    private int markBatches;
    private int markSize;
    private long markPending;
    private long markCurrentBytes;
    /** A frame stopped part-way for want of memory: its bytes are held by the FrameDecoder until it ends. */
    private boolean frameOpen;
    /** The ack of batches handed off while the current group is still open (a frame was suspended part-way). */
    private GroupAck group;
    private String lastTag;
    private int lastStream;

    // Memory, on the event loop.
    /** Reserved for events and not yet charged. */
    private long credit;
    /** Charged for the event being decoded. */
    private long eventCharged;
    /** Granted to the decoder's inflate buffer and the mapper's scratch buffers. */
    private long scratch;
    /** Stopped for want of memory (BUSY counted once for the pause). */
    private boolean busy;
    /** Set when an attempt to continue found no room again. */
    private boolean stillBusy;
    private boolean retryScheduled;
    private long invalidUtf8Reported;

    private final ConcurrentLinkedQueue<Group> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    /** Groups handed off whose batches are not all released yet. */
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean paused;

    /** Batches published together. */
    private record Group(Batch[] batches) {
    }

    ForwardConnection(ForwardServer server) {
        this.server = server;
        this.frames = new FrameDecoder(server.maxMessageSize(), this);
        this.decoder = new ForwardDecoder(server.maxDecompressedBytes());
        this.decoder.allowance(this);
        this.mapper = new RecordMapper(server.payloadMode(), server.payloadKey(), server.metadata(),
                server.eventMetadataPrefix());
        this.mapper.memory(this, this::charge);
        this.metadata = server.metadata();
        // Charged per event before it is mapped: the message; its metadata (storage, and about the record's size);
        // the payload when it is the record's bytes (else the mapper charges it once written).
        this.eventBase = MemoryBudget.MESSAGE_OVERHEAD + (metadata ? METADATA_OVERHEAD : 0);
        this.eventPerByte = (metadata ? 1 : 0) + (mapper.payloadIsRecord() ? 1 : 0);
        this.recent = server.recentChunks();
        this.handshake = server.sharedKey() == null ? null
                : new ServerHandshake(server.sharedKey(), server.hostname(), server.users());
        this.authenticated = handshake == null;
        if (!authenticated) {
            frames.limitBuffered(UNAUTHENTICATED_BYTES);
        }
    }

    /** The frame decoder to put before this handler in the channel's pipeline. */
    FrameDecoder frames() {
        return frames;
    }

    private MemoryBudget budget() {
        return server.memory();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        SocketAddress remote = channel.remoteAddress();
        peer = remote == null ? "?" : remote.toString();
        if (!server.connectionOpened(channel)) {
            closing = true;
            channel.config().setAutoRead(false);
            server.context().reject(Rejection.BUSY, peer, "more than MaxConnections (" + server.maxConnections()
                    + ") connections open; connection closed");
            ctx.close();
            return;
        }
        admitted = true;
        if (handshake != null) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(handshake.helo()));
            long idle = server.idleTimeoutMillis();
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
        discardUnpublished();
        decoder.close();
        budget().release(scratch);
        scratch = 0;
        releaseCredit();
        reportInvalidUtf8();
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
        mark();
        frameChunk = null;
        frameClaim = null;
        skippedEvents = 0;
        try {
            decoder.decode(buf, off, len, this);
        } catch (DecodeSuspendedException e) {
            suspendFrame();
            return;
        } catch (ForwardProtocolException | RuntimeException e) {
            failFrame();
            throw e;
        }
        endFrame();
    }

    /** The frame's events were all taken. */
    private void endFrame() {
        frameOpen = false;
        if (frameChunk != null) {
            if (frameClaim == null || frameClaim == RecentChunks.Claim.NEW) {
                chunks.add(frameChunk);
            } else {
                if (frameClaim == RecentChunks.Claim.ACCEPTED) {
                    ackNow.add(frameChunk);
                }
                server.duplicate(frameChunk, skippedEvents, frameClaim == RecentChunks.Claim.IN_FLIGHT, peer);
            }
        }
        decoder.trim();
        mapper.trim();
        if (batches.size() >= MAX_GROUP_BATCHES) {
            handOff();
        }
    }

    /** The frame is malformed or refused: what of it was not handed off yet is undone, its chunk forgotten. */
    private void failFrame() {
        rollback(markBatches, markSize);
        if (frameClaim == RecentChunks.Claim.NEW) {
            recent.abandoned(frameChunk);
        }
        frameClaim = null;
        if (frameOpen) {
            frameOpen = false;
            decoder.abandon();
        }
    }

    /**
     * No room for the next event (or the inflated payload): the frame's bytes stay in the frame decoder, what was
     * decoded is handed off (so its memory can come back once delivered), and the connection waits.
     */
    private void suspendFrame() {
        frameOpen = true;
        frames.hold();
        handOff();
        mark();
        pauseForMemory();
    }

    /** Undoes the events of a frame that failed half way, so a client resending it does not duplicate them. */
    private void rollback(int markBatches, int markSize) {
        while (batches.size() > markBatches + 1) {
            batches.remove(batches.size() - 1).release();
        }
        if (batches.size() == markBatches + 1) {
            if (current != null) {
                current.release();
            }
            current = batches.remove(batches.size() - 1);
        }
        if (current != null) {
            current.truncate(markSize);
            currentBytes = markCurrentBytes;
        }
        // What the events undone were charged goes back to the credit (returned at the next hand-off).
        credit += pendingBytes - markPending;
        pendingBytes = markPending;
    }

    /** Remembers where the next frame's events begin. */
    private void mark() {
        markBatches = batches.size();
        markSize = current == null ? 0 : current.size();
        markPending = pendingBytes;
        markCurrentBytes = currentBytes;
    }

    @Override
    public void onOptions(String chunk, long size, String compressed) {
        frameChunk = chunk;
        if (chunk != null && recent != null) {
            frameClaim = recent.claim(chunk, this);
        }
    }

    @Override
    public void onEvent(String tag, long epochSeconds, int nanos, RecordView record) {
        if (frameClaim == RecentChunks.Claim.ACCEPTED || frameClaim == RecentChunks.Claim.IN_FLIGHT) {
            skippedEvents++;
            return;
        }
        if (current == null) {
            current = server.context().newBatch();
            currentBytes = 0;
        }
        Message m = current.add();
        long invalidBefore = mapper.invalidUtf8();
        eventCharged = 0;
        try {
            // The message and its metadata are charged before anything is copied; the payload by the mapper.
            charge(eventBase + eventPerByte * record.length()
                    + (metadata ? record.metadataLength() : 0));
            mapper.map(record.buffer(), record.offset(), record.length(), record.metadataOffset(),
                    record.metadataLength(), m);
        } catch (RuntimeException e) {
            undoEvent(invalidBefore);
            throw e;
        }
        m.setTimestamp(epochSeconds * 1_000_000_000L + nanos);
        m.setTag(tag);
        if (tag != lastTag) {
            lastStream = server.routes().streamFor(tag);
            lastTag = tag;
        }
        if (lastStream != Streams.WILDCARD) {
            m.setStream(lastStream);
        }
        currentBytes += eventCharged;
        pendingBytes += eventCharged;
        if (current.isFull()) {
            closeCurrent();
        }
    }

    /** The event being decoded was refused (no room now, or never) part-way: leaves no trace of it. */
    private void undoEvent(long invalidBefore) {
        current.truncate(current.size() - 1);
        credit += eventCharged;
        mapper.invalidUtf8(invalidBefore);
    }

    /** Charges {@code bytes} of the current event against the credit, reserving more when it runs out. */
    private void charge(long bytes) {
        credit -= bytes;
        eventCharged += bytes;
        if (credit < 0) {
            refill();
        }
    }

    private void refill() {
        MemoryBudget b = budget();
        long need = -credit;
        if (!b.fits(frames.reserved() + scratch + eventCharged)) {
            throw new OverBudgetException("an event needing " + eventCharged + " bytes (with a frame buffer of "
                    + frames.reserved() + " and " + scratch + " scratch bytes), more than the memory budget can hold");
        }
        if (b.tryReserve(need + CREDIT_STEP)) {
            credit += need + CREDIT_STEP;
        } else if (b.tryReserve(need)) {
            credit = 0;
        } else {
            throw DecodeSuspendedException.INSTANCE;
        }
    }

    private void closeCurrent() {
        int i = batches.size();
        if (i == batchBytes.length) {
            batchBytes = Arrays.copyOf(batchBytes, i * 2);
        }
        batchBytes[i] = currentBytes;
        batches.add(current);
        current = null;
        currentBytes = 0;
    }

    private void releaseCredit() {
        if (credit > 0) {
            budget().release(credit);
        }
        credit = 0;
    }

    // ---- FrameDecoder.Memory: the frame buffer ----

    @Override
    public boolean fits(long bytes) {
        return budget().fits(bytes);
    }

    @Override
    public boolean tryReserve(long bytes) {
        return budget().tryReserve(bytes);
    }

    @Override
    public void release(long bytes) {
        budget().release(bytes);
    }

    @Override
    public boolean tight() {
        MemoryBudget b = budget();
        return b.used() > b.limit() / 2;
    }

    @Override
    public void starved() {
        pauseForMemory();
    }

    // ---- BufferAllowance: the inflate buffer and the mapper's scratch ----

    @Override
    public void grow(long bytes) {
        MemoryBudget b = budget();
        // What this connection needs at once: its frame, its buffers, and the event being decoded.
        if (!b.fits(frames.reserved() + scratch + bytes + eventCharged)) {
            throw new OverBudgetException("decoding needs " + (scratch + bytes) + " bytes of buffers beside a frame of "
                    + frames.reserved() + " and an event of " + eventCharged
                    + " bytes, more than the memory budget can hold");
        }
        if (!b.tryReserve(bytes)) {
            throw DecodeSuspendedException.INSTANCE;
        }
        scratch += bytes;
    }

    @Override
    public void shrink(long bytes) {
        scratch -= bytes;
        budget().release(bytes);
    }

    // ---- pausing for memory ----

    /** Stops reading until memory comes back; counts one BUSY per pause. */
    private void pauseForMemory() {
        stillBusy = true;
        if (!busy) {
            busy = true;
            server.context().reject(Rejection.BUSY, peer, "memory budget spent (" + budget()
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
        if (frameOpen) {
            mark();
            try {
                decoder.resume(this);
                endFrame();
            } catch (DecodeSuspendedException e) {
                suspendFrame();
            } catch (ForwardProtocolException | RuntimeException e) {
                failFrame();
                exceptionCaught(context, e);
                return;
            }
        }
        if (!stillBusy) {
            frames.proceed();
        }
        handOff();
        if (!stillBusy && !closing) {
            busy = false;
            updateAutoRead();
        }
    }

    private void updateAutoRead() {
        if (channel != null) {
            channel.config().setAutoRead(!busy && !paused && !closing);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        handOff();
        ctx.fireChannelReadComplete();
    }

    /** Hands what was decoded to the publisher; acks frames that carried no event, and copies, at once. */
    private void handOff() {
        if (current != null && !current.isEmpty()) {
            closeCurrent();
        }
        if (!ackNow.isEmpty()) {
            writeAcks(ackNow.toArray(NO_CHUNKS));
            ackNow.clear();
        }
        releaseCredit();
        reportInvalidUtf8();
        if (batches.isEmpty()) {
            if (!frameOpen) {
                String[] ids = chunks.isEmpty() ? NO_CHUNKS : chunks.toArray(NO_CHUNKS);
                chunks.clear();
                if (group != null) {
                    GroupAck g = group;
                    group = null;
                    g.close(ids);
                } else if (ids.length > 0) {
                    accepted(ids);
                    writeAcks(ids);
                }
            }
            return;
        }
        if (group == null) {
            group = new GroupAck();
            inFlight.incrementAndGet();
        }
        MemoryBudget budget = budget();
        Batch[] handed = batches.toArray(new Batch[0]);
        for (int i = 0; i < handed.length; i++) {
            BatchDone done = new BatchDone(group);
            done.holdMemory(budget, batchBytes[i]);
            handed[i].setCompletion(done);
        }
        batches.clear();
        pendingBytes = currentBytes; // 0: what is left of current is empty
        if (!frameOpen) {
            GroupAck g = group;
            group = null;
            String[] ids = chunks.isEmpty() ? NO_CHUNKS : chunks.toArray(NO_CHUNKS);
            chunks.clear();
            g.close(ids);
        }
        pending.add(new Group(handed));
        int n = queued.incrementAndGet();
        if (n >= server.readAhead() && !paused) {
            paused = true;
            updateAutoRead();
            // The publisher may have drained below the mark between the increment and the flag: it then saw
            // paused false and scheduled no resume, and reading would stay off for good. Both are volatile, so
            // either it sees the flag or this sees its decrement.
            resume();
        }
        if (n == 1) {
            server.publisher().execute(this::drain);
        }
    }

    private void reportInvalidUtf8() {
        long n = mapper.invalidUtf8();
        if (n != invalidUtf8Reported) {
            server.invalidUtf8(n - invalidUtf8Reported, peer);
            invalidUtf8Reported = n;
        }
    }

    /** Publisher thread: publishes this connection's groups in order, one drain at a time. */
    private void drain() {
        int left;
        do {
            Group g = pending.poll();
            publish(g);
            left = queued.decrementAndGet();
            if (paused && left < server.readAhead()) {
                channel.eventLoop().execute(this::resume);
            }
        } while (left > 0);
    }

    private void publish(Group g) {
        Batch[] group = g.batches();
        int i = 0;
        try {
            for (; i < group.length; i++) {
                server.context().publish(group[i]);
            }
        } catch (InterruptedException e) {
            // Shutdown gave up waiting for the pipeline: what was not published is released as failed (no ack),
            // so the client sends it again to whoever runs next.
            Thread.currentThread().interrupt();
            for (; i < group.length; i++) {
                group[i].fail();
            }
        }
    }

    private void resume() {
        if (paused && queued.get() < server.readAhead() && channel.isOpen()) {
            paused = false;
            updateAutoRead();
        }
    }

    private void discardUnpublished() {
        for (Batch b : batches) {
            b.release();
        }
        batches.clear();
        if (current != null) {
            current.release();
            current = null;
        }
        credit += pendingBytes;
        pendingBytes = 0;
        currentBytes = 0;
        if (frameOpen) {
            frameOpen = false;
            decoder.abandon();
            if (frameClaim == RecentChunks.Claim.NEW) {
                recent.abandoned(frameChunk);
            }
        }
        if (group != null) {
            // Batches handed off before a frame was suspended: the chunks of frames that ended before it are
            // remembered as accepted once delivered (their acks can no longer be sent).
            GroupAck g = group;
            group = null;
            g.close(chunks.toArray(NO_CHUNKS));
        } else {
            abandoned(chunks.toArray(NO_CHUNKS));
        }
        chunks.clear();
        ackNow.clear();
    }

    /** Every producer took the chunks' events: remembers them, and acks the copies other connections hold. */
    private void accepted(String[] ids) {
        if (recent == null) {
            return;
        }
        for (String id : ids) {
            for (RecentChunks.Waiter w : recent.accepted(id)) {
                w.acked(id);
            }
        }
    }

    /** The chunks' events were not (all) delivered: forgets them, so a copy is delivered. */
    private void abandoned(String[] ids) {
        if (recent == null) {
            return;
        }
        for (String id : ids) {
            recent.abandoned(id);
        }
    }

    /** A copy of {@code chunk} came on this connection while the first was in flight; the first was accepted. */
    @Override
    public void acked(String chunk) {
        Channel ch = channel;
        if (ch != null && ch.isActive()) {
            ch.eventLoop().execute(() -> writeAcks(new String[] {chunk}));
        }
    }

    private void writeAcks(String[] chunkIds) {
        if (!channel.isActive()) {
            return;
        }
        for (String chunk : chunkIds) {
            byte[] id = chunk.getBytes(StandardCharsets.UTF_8);
            ByteBuf b = channel.alloc().buffer(ACK_PREFIX.length + 5 + id.length);
            b.writeBytes(ACK_PREFIX);
            if (id.length < 32) {
                b.writeByte(0xa0 | id.length);
            } else if (id.length < 256) {
                b.writeByte(0xd9).writeByte(id.length);
            } else {
                b.writeByte(0xda).writeShort(id.length);
            }
            b.writeBytes(id);
            channel.write(b, channel.voidPromise());
        }
        channel.flush();
    }

    /**
     * Acks the chunks of a group once every batch handed off with it was delivered; nothing when one failed. Open
     * (holding one count of its own) until {@link #close} names the chunks, since a frame suspended part-way hands
     * off batches before its chunk is known to have ended.
     */
    private final class GroupAck extends Completion {
        private volatile String[] chunkIds = NO_CHUNKS;

        void close(String[] ids) {
            chunkIds = ids;
            release();
        }

        @Override
        protected void onComplete() {
            inFlight.decrementAndGet();
            String[] ids = chunkIds;
            if (ids.length == 0) {
                return;
            }
            accepted(ids);
            channel.eventLoop().execute(() -> writeAcks(ids));
        }

        @Override
        protected void onFailed() {
            inFlight.decrementAndGet();
            abandoned(chunkIds);
        }
    }

    /** One batch's completion: returns its memory when delivered, then counts down its group. */
    private static final class BatchDone extends Completion {
        private final GroupAck group;

        BatchDone(GroupAck group) {
            this.group = group;
            group.retain();
        }

        @Override
        protected void onComplete() {
            group.release();
        }

        @Override
        protected void onFailed() {
            group.fail();
            group.release();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent e && e.state() == IdleState.READER_IDLE) {
            if (!busy && (paused || queued.get() > 0 || inFlight.get() > 0)) {
                return; // the connection waits for the pipeline (acks, publishing), not for the peer
            }
            closing = true;
            server.context().reject(Rejection.TIMEOUT, peer, busy
                    ? "waited for memory longer than IdleTimeoutMs (" + server.idleTimeoutMillis()
                            + " ms) with a frame part-read; connection closed so its memory returns"
                    : "nothing received for IdleTimeoutMs (" + server.idleTimeoutMillis() + " ms); connection closed");
            handOff();
            ctx.channel().config().setAutoRead(false);
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** Whether what an unauthenticated peer sent (not TLS, not the network) is a failed handshake attempt. */
    private static boolean failsHandshake(Throwable c) {
        return c instanceof FrameDecoder.BufferLimitException || c instanceof FrameTooLargeException
                || c instanceof OverBudgetException || c instanceof ForwardProtocolException;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        String id = server.id();
        if (closing) {
            ctx.close(); // already refused and counted (a refused handshake, a timeout, too many connections)
            return;
        }
        if (c instanceof FrameDecoder.BufferLimitException) {
            server.context().reject(Rejection.AUTH, peer, "not authenticated and " + c.getMessage()
                    + " before the handshake; connection closed");
        } else if (c instanceof FrameTooLargeException f) {
            server.context().reject(authenticated ? Rejection.TOO_LARGE : Rejection.AUTH, peer,
                    "frame larger than MaxMessageSize (" + f.maxFrameBytes() + " bytes), refused at its header: "
                            + c.getMessage() + "; connection closed");
        } else if (c instanceof PayloadTooLargeException p) {
            server.context().reject(Rejection.TOO_LARGE, peer, "CompressedPackedForward payload larger than "
                    + "MaxDecompressedSize (" + p.maxBytes() + " bytes) once inflated; connection closed");
        } else if (c instanceof OverBudgetException) {
            server.context().reject(authenticated ? Rejection.TOO_LARGE : Rejection.AUTH, peer, c.getMessage()
                    + " (limit " + budget().limit() + " bytes); connection closed");
        } else if (c instanceof ForwardProtocolException) {
            server.context().reject(authenticated ? Rejection.MALFORMED : Rejection.AUTH, peer,
                    (authenticated ? "malformed Forward frame " : "malformed PING ") + c.getMessage()
                            + "; connection closed");
        } else if (c instanceof NotSslRecordException) {
            server.context().reject(Rejection.MALFORMED, peer, "TLS failed: " + c.getMessage() + "; connection closed");
        } else if (c instanceof SSLException) {
            server.context().reject(Rejection.AUTH, peer, "TLS failed: " + c.getMessage() + "; connection closed");
        } else if (c instanceof IOException) {
            server.log().limited(Log.DEBUG, id + ": connection error", id + ": connection from " + peer + " failed: " + c);
        } else {
            server.log().limited(Log.ERROR, id + ": unexpected error", id + ": closing connection from " + peer
                    + " after an unexpected error: " + c);
        }
        if (!authenticated && failsHandshake(c)) {
            server.handshakeFailed(ctx.channel().remoteAddress());
        }
        closing = true;
        if (frameOpen) {
            failFrame();
        }
        // Frames decoded before the bad one are valid: publish them (their acks may not reach the client).
        handOff();
        ctx.channel().config().setAutoRead(false);
        ctx.close();
    }
}
