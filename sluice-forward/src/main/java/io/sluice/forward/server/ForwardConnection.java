package io.sluice.forward.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Completion;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Log;
import io.sluice.forward.codec.EventSink;
import io.sluice.forward.codec.ForwardDecoder;
import io.sluice.forward.codec.ForwardProtocolException;
import io.sluice.forward.codec.FrameTooLargeException;
import io.sluice.forward.codec.RecordView;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;

/**
 * One client connection of {@code consumer.Forward}: checks the handshake, decodes frames (from
 * {@link FrameDecoder}) into batches, hands them to the publisher threads and writes {@code {"ack": chunk}} once
 * every producer has taken them.
 *
 * <p>Everything here runs on the connection's event loop, except {@link #drain} (a publisher thread) and
 * {@link AckCompletion#onComplete} (whichever producer thread released the last batch), which only touch the
 * handoff queue and schedule work back onto the event loop.
 *
 * <p><b>Grouping.</b> Events of all frames decoded from one read go into the same batches (a read of Message
 * mode frames holds hundreds of events; publishing each alone would cost a queue handoff per event). The group's
 * batches share one {@link Completion} that acks every chunk whose frame ended in the group.
 *
 * <p><b>Backpressure.</b> {@code publish} blocks while the pipeline's queues are full, so it never runs on the
 * event loop. Groups wait in a per-connection queue drained by a shared pool of publisher threads, one drain at a
 * time per connection (order is kept). When {@code readAhead} groups wait, the connection stops reading
 * ({@code autoRead} off) until the publisher catches up: the client's TCP window closes and memory stays bounded.
 *
 * <p><b>Copies of a chunk.</b> A frame's chunk id is looked up in the server's {@link RecentChunks} before its
 * events are decoded. A copy of a chunk already accepted is acked at once and its events are not published; a copy
 * of one still in flight (on this or another connection) is acked when the first copy is accepted. Only a chunk
 * whose events every producer took is remembered as accepted, so a copy is never acked for events that were lost.
 */
final class ForwardConnection extends ChannelInboundHandlerAdapter implements EventSink, RecentChunks.Waiter {
    /** A group is handed off early when a big read produced this many batches. */
    private static final int MAX_GROUP_BATCHES = 8;
    private static final byte[] ACK_PREFIX = {(byte) 0x81, (byte) 0xa3, 'a', 'c', 'k'};

    private final ForwardServer server;
    private final ForwardDecoder decoder;
    private final RecordMapper mapper;
    private final ServerHandshake handshake;
    private final RecentChunks recent;
    private boolean authenticated;
    private Channel channel;
    private String peer = "?";

    private final ArrayList<Batch> batches = new ArrayList<>();
    private Batch current;
    private final ArrayList<String> chunks = new ArrayList<>();
    /** Chunks of copies of accepted frames: acked at the next hand-off, with nothing to publish. */
    private final ArrayList<String> ackNow = new ArrayList<>();
    private String frameChunk;
    /** What {@link RecentChunks#claim} said of the current frame's chunk; null when not looked up. */
    private RecentChunks.Claim frameClaim;
    /** Events of the current frame not published because the frame is a copy. */
    private int skippedEvents;
    private String lastTag;
    private int lastStream;

    private final ConcurrentLinkedQueue<Group> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private volatile boolean paused;

    /** Batches published together and the chunks they acknowledge. */
    private record Group(Batch[] batches) {
    }

    ForwardConnection(ForwardServer server) {
        this.server = server;
        this.decoder = new ForwardDecoder(server.maxDecompressedBytes());
        this.mapper = new RecordMapper(server.payloadMode(), server.payloadKey(), server.metadata(),
                server.eventMetadataPrefix());
        this.recent = server.recentChunks();
        this.handshake = server.sharedKey() == null ? null
                : new ServerHandshake(server.sharedKey(), server.hostname(), server.users());
        this.authenticated = handshake == null;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        SocketAddress remote = channel.remoteAddress();
        peer = remote == null ? "?" : remote.toString();
        server.connectionOpened(channel);
        if (handshake != null) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(handshake.helo()));
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        server.connectionClosed();
        discardUnpublished();
        decoder.close();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        ByteBuf frame = (ByteBuf) msg;
        try {
            onFrame(ctx, frame.array(), frame.arrayOffset() + frame.readerIndex(), frame.readableBytes());
        } finally {
            frame.release();
        }
    }

    private void onFrame(ChannelHandlerContext ctx, byte[] buf, int off, int len) throws ForwardProtocolException {
        if (!authenticated) {
            ServerHandshake.Result r = handshake.ping(buf, off, len);
            if (r.ok()) {
                authenticated = true;
                ctx.writeAndFlush(Unpooled.wrappedBuffer(r.pong()));
            } else {
                server.log().limited(Log.WARNING, server.id() + ": handshake refused",
                        server.id() + ": refused " + peer + " (hostname '" + r.clientHostname() + "'): " + r.reason());
                ctx.writeAndFlush(Unpooled.wrappedBuffer(r.pong())).addListener(ChannelFutureListener.CLOSE);
                ctx.channel().config().setAutoRead(false);
            }
            return;
        }
        int markBatches = batches.size();
        int markSize = current == null ? 0 : current.size();
        frameChunk = null;
        frameClaim = null;
        skippedEvents = 0;
        try {
            decoder.decode(buf, off, len, this);
        } catch (ForwardProtocolException | RuntimeException e) {
            rollback(markBatches, markSize);
            if (frameClaim == RecentChunks.Claim.NEW) {
                recent.abandoned(frameChunk);
            }
            throw e;
        }
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
        if (batches.size() >= MAX_GROUP_BATCHES) {
            handOff();
        }
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
        }
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
        }
        Message m = current.add();
        m.setTimestamp(epochSeconds * 1_000_000_000L + nanos);
        m.setTag(tag);
        if (tag != lastTag) {
            lastStream = server.routes().streamFor(tag);
            lastTag = tag;
        }
        if (lastStream != Streams.WILDCARD) {
            m.setStream(lastStream);
        }
        mapper.map(record.buffer(), record.offset(), record.length(), record.metadataOffset(), record.metadataLength(), m);
        if (current.isFull()) {
            batches.add(current);
            current = null;
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        handOff();
        ctx.fireChannelReadComplete();
    }

    /** Hands what this read decoded to the publisher; acks frames that carried no event, and copies, at once. */
    private void handOff() {
        if (current != null && !current.isEmpty()) {
            batches.add(current);
            current = null;
        }
        if (!ackNow.isEmpty()) {
            writeAcks(ackNow.toArray(new String[0]));
            ackNow.clear();
        }
        if (batches.isEmpty()) {
            if (!chunks.isEmpty()) {
                String[] ids = chunks.toArray(new String[0]);
                chunks.clear();
                accepted(ids);
                writeAcks(ids);
            }
            return;
        }
        Batch[] group = batches.toArray(new Batch[0]);
        batches.clear();
        if (!chunks.isEmpty()) {
            AckCompletion ack = new AckCompletion(chunks.toArray(new String[0]));
            chunks.clear();
            group[0].setCompletion(ack);
            for (int i = 1; i < group.length; i++) {
                group[0].shareCompletion(group[i]);
            }
        }
        pending.add(new Group(group));
        int n = queued.incrementAndGet();
        if (n >= server.readAhead() && !paused) {
            paused = true;
            channel.config().setAutoRead(false);
        }
        if (n == 1) {
            server.publisher().execute(this::drain);
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
            // Shutdown gave up waiting for the pipeline: what was not published is released unacknowledged,
            // so the client sends it again to whoever runs next.
            Thread.currentThread().interrupt();
            for (; i < group.length; i++) {
                Completion c = group[i].completion();
                group[i].setCompletion(null);
                group[i].release();
                if (c != null) {
                    ((AckCompletion) c).cancel();
                    c.release();
                }
            }
        }
    }

    private void resume() {
        if (paused && queued.get() < server.readAhead() && channel.isOpen()) {
            paused = false;
            channel.config().setAutoRead(true);
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
        abandoned(chunks.toArray(new String[0]));
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

    /** Acks the group's chunks once every batch derived from it was taken by every producer. */
    private final class AckCompletion extends Completion {
        private final String[] chunkIds;
        private volatile boolean cancelled;

        AckCompletion(String[] chunkIds) {
            this.chunkIds = chunkIds;
        }

        void cancel() {
            cancelled = true;
        }

        @Override
        protected void onComplete() {
            if (cancelled) {
                abandoned(chunkIds);
                return;
            }
            accepted(chunkIds);
            channel.eventLoop().execute(() -> writeAcks(chunkIds));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        String id = server.id();
        if (c instanceof FrameTooLargeException) {
            server.log().limited(Log.WARNING, id + ": frame too large", id + ": closing connection from " + peer
                    + ": frame larger than MaxMessageSize (" + ((FrameTooLargeException) c).maxFrameBytes()
                    + " bytes), refused at its header: " + c.getMessage());
        } else if (c instanceof ForwardProtocolException) {
            server.log().limited(Log.WARNING, id + ": malformed frame", id + ": closing connection from " + peer
                    + ": malformed Forward frame " + c.getMessage());
        } else if (c instanceof NotSslRecordException || c instanceof SSLException) {
            server.log().limited(Log.WARNING, id + ": TLS failure", id + ": closing connection from " + peer
                    + ": TLS failed: " + c.getMessage());
        } else if (c instanceof IOException) {
            server.log().limited(Log.DEBUG, id + ": connection error", id + ": connection from " + peer + " failed: " + c);
        } else {
            server.log().limited(Log.ERROR, id + ": unexpected error", id + ": closing connection from " + peer
                    + " after an unexpected error: " + c);
        }
        // Frames decoded before the bad one are valid: publish them (their acks may not reach the client).
        handOff();
        ctx.channel().config().setAutoRead(false);
        ctx.close();
    }
}
