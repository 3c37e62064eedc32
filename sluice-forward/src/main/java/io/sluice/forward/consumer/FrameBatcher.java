package io.sluice.forward.consumer;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Completion;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import io.sluice.forward.FrameDecoder;
import io.sluice.forward.codec.DecodeSuspendedException;
import io.sluice.forward.codec.EventSink;
import io.sluice.forward.codec.ForwardDecoder;
import io.sluice.forward.codec.ForwardProtocolException;
import io.sluice.forward.codec.RecordView;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * Decodes one connection's frames into batches and hands them off in groups, each group acked as one: what a
 * {@link ForwardConnection} does with a frame once the peer is authenticated. Event loop only.
 *
 * <p><b>Grouping.</b> Events of all frames decoded from one read go into the same batches (a read of Message
 * mode frames holds hundreds of events; publishing each alone would cost a queue handoff per event). The group's
 * batches share one {@link ChunkAcks.GroupAck} that acks every chunk whose frame ended in the group; a group is
 * handed off at the end of the read ({@link #handOff}), or early once it holds {@value #MAX_GROUP_BATCHES} batches.
 *
 * <p><b>Memory.</b> Every event is charged to the {@link ConnectionMemory} before it is copied into its message,
 * and each batch carries what its events were charged ({@link Batch#holdMemory}) back to the budget when it is
 * delivered. An event that finds no room suspends the frame ({@link ForwardDecoder#resume}): what was decoded so
 * far is handed off and the connection pauses. A frame that fails part-way is rolled back to where it began (what
 * was handed off before stays handed off).
 *
 * <p><b>Copies of a chunk.</b> A frame's chunk id is looked up in the server's {@link RecentChunks} before its
 * events are decoded. A copy of a chunk already accepted is acked at once and its events are not published; a copy
 * of one still in flight (on this or another connection) is acked when the first copy is accepted.
 */
final class FrameBatcher implements EventSink {
    /** A group is handed off early when a big read produced this many batches. */
    private static final int MAX_GROUP_BATCHES = 8;
    /** Charged per event for its metadata storage (arena, field table, objects) when fields are copied. */
    static final int METADATA_OVERHEAD = 600;
    private static final String[] NO_CHUNKS = ChunkAcks.NO_CHUNKS;

    private final ForwardServer server;
    private final FrameDecoder frames;
    private final ForwardDecoder decoder;
    private final RecordMapper mapper;
    private final RecentChunks recent;
    private final TagRoutes routes;
    private final ConnectionMemory memory;
    private final ChunkAcks acks;
    private final GroupPublisher publisher;
    /** Told when a frame was suspended for want of memory: the connection pauses. */
    private final Runnable pause;
    private final boolean metadata;
    private final int eventBase;
    private final int eventPerByte;
    private String peer = "?";

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
    private ChunkAcks.GroupAck group;
    private String lastTag;
    private int lastStream;
    private long invalidUtf8Reported;

    FrameBatcher(ForwardServer server, FrameDecoder frames, ConnectionMemory memory, ChunkAcks acks,
            GroupPublisher publisher, Runnable pause) {
        this.server = server;
        this.frames = frames;
        this.memory = memory;
        this.acks = acks;
        this.publisher = publisher;
        this.pause = pause;
        this.recent = server.recentChunks();
        ForwardServer.Settings s = server.settings();
        this.routes = s.routes();
        this.decoder = new ForwardDecoder(s.maxDecompressedBytes());
        this.decoder.allowance(memory);
        this.mapper = new RecordMapper(s.payloadMode(), s.payloadKey(), s.metadata(), s.eventMetadataPrefix());
        this.mapper.memory(memory, memory::charge);
        this.metadata = s.metadata();
        // Charged per event before it is mapped: the message; its metadata (storage, and about the record's size);
        // the payload when it is the record's bytes (else the mapper charges it once written).
        this.eventBase = MemoryBudget.MESSAGE_OVERHEAD + (metadata ? METADATA_OVERHEAD : 0);
        this.eventPerByte = (metadata ? 1 : 0) + (mapper.payloadIsRecord() ? 1 : 0);
    }

    /** The peer's address, for what is counted and logged. */
    void peer(String peer) {
        this.peer = peer;
    }

    /** A frame was suspended for want of memory and waits for {@link #resumeFrame}. */
    boolean frameOpen() {
        return frameOpen;
    }

    /** Decodes one whole frame; a frame that is malformed is rolled back and its exception thrown. */
    void decode(byte[] buf, int off, int len) throws ForwardProtocolException {
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

    /** Continues the suspended frame (memory may have come back); a failure rolls it back and is thrown. */
    void resumeFrame() throws ForwardProtocolException {
        mark();
        try {
            decoder.resume(this);
            endFrame();
        } catch (DecodeSuspendedException e) {
            suspendFrame();
        } catch (ForwardProtocolException | RuntimeException e) {
            failFrame();
            throw e;
        }
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
    void failFrame() {
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
        pause.run();
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
        memory.refund(pendingBytes - markPending);
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
            frameClaim = recent.claim(chunk, acks);
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
        memory.startEvent();
        try {
            // The message and its metadata are charged before anything is copied; the payload by the mapper.
            memory.charge(eventBase + eventPerByte * record.length()
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
            lastStream = routes.streamFor(tag);
            lastTag = tag;
        }
        if (lastStream != Streams.WILDCARD) {
            m.setStream(lastStream);
        }
        long charged = memory.eventCharged();
        currentBytes += charged;
        pendingBytes += charged;
        if (current.isFull()) {
            closeCurrent();
        }
    }

    /** The event being decoded was refused (no room now, or never) part-way: leaves no trace of it. */
    private void undoEvent(long invalidBefore) {
        current.truncate(current.size() - 1);
        memory.undoEvent();
        mapper.invalidUtf8(invalidBefore);
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

    /** Hands what was decoded to the publisher; acks frames that carried no event, and copies, at once. */
    void handOff() {
        if (current != null && !current.isEmpty()) {
            closeCurrent();
        }
        if (!ackNow.isEmpty()) {
            acks.write(ackNow.toArray(NO_CHUNKS));
            ackNow.clear();
        }
        memory.releaseCredit();
        reportInvalidUtf8();
        if (batches.isEmpty()) {
            if (!frameOpen) {
                String[] ids = chunks.isEmpty() ? NO_CHUNKS : chunks.toArray(NO_CHUNKS);
                chunks.clear();
                if (group != null) {
                    ChunkAcks.GroupAck g = group;
                    group = null;
                    g.close(ids);
                } else if (ids.length > 0) {
                    acks.accepted(ids);
                    acks.write(ids);
                }
            }
            return;
        }
        if (group == null) {
            group = acks.openGroup();
        }
        MemoryBudget budget = memory.budget();
        Batch[] handed = batches.toArray(new Batch[0]);
        for (int i = 0; i < handed.length; i++) {
            Completion done = ChunkAcks.batchOf(group);
            done.holdMemory(budget, batchBytes[i]);
            handed[i].setCompletion(done);
        }
        batches.clear();
        pendingBytes = currentBytes; // 0: what is left of current is empty
        if (!frameOpen) {
            ChunkAcks.GroupAck g = group;
            group = null;
            String[] ids = chunks.isEmpty() ? NO_CHUNKS : chunks.toArray(NO_CHUNKS);
            chunks.clear();
            g.close(ids);
        }
        publisher.submit(handed);
    }

    /** Counts the invalid UTF-8 replaced since the last report. */
    void reportInvalidUtf8() {
        long n = mapper.invalidUtf8();
        if (n != invalidUtf8Reported) {
            server.invalidUtf8(n - invalidUtf8Reported, peer);
            invalidUtf8Reported = n;
        }
    }

    /** The connection closed: drops what was not handed off, forgets its chunks, and lets go of the decoder. */
    void close() {
        for (Batch b : batches) {
            b.release();
        }
        batches.clear();
        if (current != null) {
            current.release();
            current = null;
        }
        memory.refund(pendingBytes);
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
            ChunkAcks.GroupAck g = group;
            group = null;
            g.close(chunks.toArray(NO_CHUNKS));
        } else {
            acks.abandoned(chunks.toArray(NO_CHUNKS));
        }
        chunks.clear();
        ackNow.clear();
        decoder.close();
    }
}
