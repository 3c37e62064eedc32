package io.sluice.hec.receiver;

import io.sluice.core.message.MemoryBudget;

/**
 * What one HEC request reserved from the process's {@link MemoryBudget}: its body, its inflated body, the events
 * parsed from it. Reservations never wait (an event loop must not block): a refused one tells why, so the
 * request gets 413 when the budget could never hold it and 503 "Server is busy" when it is only spent now.
 * Used by one thread at a time (the connection's event loop); what is left when the events are published is
 * handed to their completion, which returns it on delivery.
 */
final class RequestMemory {
    private final MemoryBudget budget;
    private long reserved;
    private HecStatus refusal;
    private String detail;

    RequestMemory(MemoryBudget budget) {
        this.budget = budget;
    }

    /**
     * Reserves {@code bytes} more for this request.
     *
     * @return false when refused: {@link #refusal()} is {@link HecStatus#TOO_LARGE} if the request would need more
     *     than the whole budget, {@link HecStatus#SERVER_BUSY} if the budget is spent for now
     */
    boolean take(long bytes) {
        if (bytes <= 0) {
            return true;
        }
        if (!budget.fits(reserved + bytes)) {
            refusal = HecStatus.TOO_LARGE;
            detail = "the request needs more than " + (reserved + bytes) + " bytes, more than the memory budget ("
                    + budget.limit() + " bytes) can ever hold";
            return false;
        }
        if (!budget.tryReserve(bytes)) {
            refusal = HecStatus.SERVER_BUSY;
            detail = "the memory budget is spent (" + budget + "), the request needed " + bytes + " bytes more";
            return false;
        }
        reserved += bytes;
        return true;
    }

    /** Returns {@code bytes} of this request's reservation (no more than it holds). */
    void give(long bytes) {
        long b = Math.min(bytes, reserved);
        if (b > 0) {
            reserved -= b;
            budget.release(b);
        }
    }

    /** Returns everything this request holds. */
    void releaseAll() {
        give(reserved);
    }

    /** Bytes held now. */
    long reserved() {
        return reserved;
    }

    /** Hands what is held to the caller (who attaches it to the published batches): nothing is left here. */
    long handOff() {
        long r = reserved;
        reserved = 0;
        return r;
    }

    /** Why the last {@link #take} was refused: {@link HecStatus#TOO_LARGE} or {@link HecStatus#SERVER_BUSY}. */
    HecStatus refusal() {
        return refusal;
    }

    /** The refusal, in words, for the log. */
    String detail() {
        return detail;
    }

    MemoryBudget budget() {
        return budget;
    }
}
