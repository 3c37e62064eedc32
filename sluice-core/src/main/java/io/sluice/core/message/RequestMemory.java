package io.sluice.core.message;

import io.sluice.core.pipeline.Rejection;

/**
 * What one request of a network input (an HEC or OTLP request) reserved from the process's {@link MemoryBudget}:
 * its body, its inflated body, the events decoded from it. Reservations never wait (an event loop must not block):
 * a refused one tells why, so the request is answered "too large" when the budget could never hold it and "busy"
 * when it is only spent now.
 * Used by one thread at a time (the connection's event loop); what is left when the events are published is
 * handed to their completion, which returns it on delivery.
 */
public final class RequestMemory {
    private final MemoryBudget budget;
    private long reserved;
    private Rejection refusal;
    private String detail;

    /** An empty reservation against {@code budget}. */
    public RequestMemory(MemoryBudget budget) {
        this.budget = budget;
    }

    /**
     * Reserves {@code bytes} more for this request.
     *
     * @return false when refused: {@link #refusal()} is {@link Rejection#TOO_LARGE} if the request would need more
     *     than the whole budget, {@link Rejection#BUSY} if the budget is spent for now
     */
    public boolean take(long bytes) {
        if (bytes <= 0) {
            return true;
        }
        if (!budget.fits(reserved + bytes)) {
            refusal = Rejection.TOO_LARGE;
            detail = "the request needs more than " + (reserved + bytes) + " bytes, more than the memory budget ("
                    + budget.limit() + " bytes) can ever hold";
            return false;
        }
        if (!budget.tryReserve(bytes)) {
            refusal = Rejection.BUSY;
            detail = "the memory budget is spent (" + budget + "), the request needed " + bytes + " bytes more";
            return false;
        }
        reserved += bytes;
        return true;
    }

    /** Returns {@code bytes} of this request's reservation (no more than it holds). */
    public void give(long bytes) {
        long b = Math.min(bytes, reserved);
        if (b > 0) {
            reserved -= b;
            budget.release(b);
        }
    }

    /** Returns everything this request holds. */
    public void releaseAll() {
        give(reserved);
    }

    /** Bytes held now. */
    public long reserved() {
        return reserved;
    }

    /** Hands what is held to the caller (who attaches it to the published batches): nothing is left here. */
    public long handOff() {
        long r = reserved;
        reserved = 0;
        return r;
    }

    /** Why the last {@link #take} was refused: {@link Rejection#TOO_LARGE} or {@link Rejection#BUSY}. */
    public Rejection refusal() {
        return refusal;
    }

    /** The refusal, in words, for the log. */
    public String detail() {
        return detail;
    }

    public MemoryBudget budget() {
        return budget;
    }
}
