package io.sluice.forward.consumer;

import io.sluice.core.message.MemoryBudget;
import io.sluice.forward.FrameDecoder;
import io.sluice.forward.OverBudgetException;
import io.sluice.forward.codec.BufferAllowance;
import io.sluice.forward.codec.DecodeSuspendedException;

/**
 * What one connection of {@code consumer.Forward} holds of the process's {@link MemoryBudget}: its frame buffer
 * (for its {@link FrameDecoder}), the inflate buffer and the mapper's scratch buffers as they grow
 * ({@link BufferAllowance}), and the events decoded, charged against a credit reserved {@value #CREDIT_STEP} bytes
 * at a time (one budget operation per step, not per event).
 *
 * <p>A request the budget cannot grant now throws {@link DecodeSuspendedException} (the connection pauses and tries
 * again); one it could never grant, beside what the connection already holds, throws {@link OverBudgetException}
 * (the connection is refused). Event loop only.
 */
final class ConnectionMemory implements FrameDecoder.Memory, BufferAllowance {
    /** Events are charged against a credit reserved this many bytes at a time (one budget operation per step). */
    static final int CREDIT_STEP = 256 << 10;

    private final ForwardServer server;
    /** Told when the frame decoder found no room for a read: the connection pauses. */
    private final Runnable starved;
    private FrameDecoder frames;
    /** Reserved for events and not yet charged. */
    private long credit;
    /** Charged for the event being decoded. */
    private long eventCharged;
    /** Granted to the decoder's inflate buffer and the mapper's scratch buffers. */
    private long scratch;

    ConnectionMemory(ForwardServer server, Runnable starved) {
        this.server = server;
        this.starved = starved;
    }

    /** The frame decoder whose buffer counts with this connection's other memory (made after this). */
    void frames(FrameDecoder frames) {
        this.frames = frames;
    }

    /** The process's budget (asked of the server each time: it is the pipeline's). */
    MemoryBudget budget() {
        return server.memory();
    }

    /** A new event is about to be decoded: nothing is charged to it yet. */
    void startEvent() {
        eventCharged = 0;
    }

    /** What the event being decoded was charged so far. */
    long eventCharged() {
        return eventCharged;
    }

    /** Charges {@code bytes} of the current event against the credit, reserving more when it runs out. */
    void charge(long bytes) {
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

    /** The event being decoded was undone: what it was charged goes back to the credit. */
    void undoEvent() {
        credit += eventCharged;
    }

    /** Events undone (or never handed off) give back what they were charged, to the credit. */
    void refund(long bytes) {
        credit += bytes;
    }

    /** Returns the unused credit to the budget (at each hand-off, and when the connection closes). */
    void releaseCredit() {
        if (credit > 0) {
            budget().release(credit);
        }
        credit = 0;
    }

    /** Returns the scratch buffers' grant to the budget (the connection closed). */
    void releaseScratch() {
        budget().release(scratch);
        scratch = 0;
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
        starved.run();
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
}
