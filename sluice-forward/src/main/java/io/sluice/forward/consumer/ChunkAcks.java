package io.sluice.forward.consumer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.sluice.core.message.Completion;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The acks of one connection of {@code consumer.Forward}: {@code {"ack": chunk}} written once every producer took
 * a chunk's events, the server's {@link RecentChunks} told which chunks were accepted (so that copies of them are
 * acked at once) or abandoned (so that a copy is delivered), and the acks of copies that waited on another
 * connection's first copy.
 *
 * <p>Completions run on whichever producer thread released the last batch; they only touch {@link RecentChunks}
 * and schedule the write on the connection's event loop.
 */
final class ChunkAcks implements RecentChunks.Waiter {
    static final String[] NO_CHUNKS = new String[0];
    private static final byte[] ACK_PREFIX = {(byte) 0x81, (byte) 0xa3, 'a', 'c', 'k'};

    /** Null when the server does not remember chunks. */
    private final RecentChunks recent;
    /** Groups handed off whose batches are not all released yet. */
    private final AtomicInteger inFlight = new AtomicInteger();
    private Channel channel;

    ChunkAcks(RecentChunks recent) {
        this.recent = recent;
    }

    /** The connection's channel, once active. */
    void channel(Channel channel) {
        this.channel = channel;
    }

    /** Groups handed off and not yet delivered (or failed). */
    int inFlight() {
        return inFlight.get();
    }

    /** A new group of batches, acked when all of them are delivered; open until {@link GroupAck#close}. */
    GroupAck openGroup() {
        inFlight.incrementAndGet();
        return new GroupAck();
    }

    /** The completion of one batch of {@code group}. */
    static Completion batchOf(GroupAck group) {
        return new BatchDone(group);
    }

    /** Every producer took the chunks' events: remembers them, and acks the copies other connections hold. */
    void accepted(String[] ids) {
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
    void abandoned(String[] ids) {
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
            writeLater(new String[] {chunk});
        }
    }

    /**
     * Writes the acks on the connection's event loop. One that has terminated (its server stopped before the
     * pipeline was done) has closed the connection: nobody is left to tell. The sender sends the chunks again, and
     * {@link RecentChunks}, which remembers them as accepted, acks the copies without delivering them twice.
     */
    private void writeLater(String[] ids) {
        try {
            channel.eventLoop().execute(() -> write(ids));
        } catch (RejectedExecutionException closed) {
            // see above
        }
    }

    /** Writes an ack for each chunk and flushes them (event loop). */
    void write(String[] chunkIds) {
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
    final class GroupAck extends Completion {
        private volatile String[] chunkIds = NO_CHUNKS;

        void close(String[] ids) {
            chunkIds = ids;
            release();
        }

        @Override
        protected void onComplete() {
            String[] ids = chunkIds;
            if (ids.length > 0) {
                accepted(ids);
                writeLater(ids);
            }
            // Only now: a stopping server that sees nothing in flight closes the connection, and its close must
            // come after the write of these acks on the event loop.
            inFlight.decrementAndGet();
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
}
