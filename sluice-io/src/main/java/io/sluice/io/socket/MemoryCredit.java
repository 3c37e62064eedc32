package io.sluice.io.socket;

import io.sluice.core.message.MemoryBudget;

/**
 * The memory a {@link StreamLoop} holds from the process's {@link MemoryBudget}: a read's hold, connections'
 * unfinished frames, messages until their batch carries them, TLS buffers. Reservations are taken from a credit
 * topped up from the budget a chunk at a time, so most takes touch no shared counter; between rounds the loop
 * gives back what exceeds one chunk. Used by the loop's thread only.
 */
final class MemoryCredit {
    private final MemoryBudget budget;
    /** Reserved from the budget beyond what a take needs, when the budget has it: a sixteenth of it, 64 KiB at most. */
    private final long chunk;
    private long credit;

    MemoryCredit(MemoryBudget budget) {
        this.budget = budget;
        this.chunk = Math.max(1, Math.min(64 * 1024, budget.limit() / 16));
    }

    /** Reserves {@code n} bytes from the credit, topping it up from the budget; false when spent. */
    boolean take(long n) {
        if (credit < n) {
            long need = n - credit;
            if (budget.limit() - budget.used() >= need + chunk && budget.tryReserve(need + chunk)) {
                credit += need + chunk;
            } else if (budget.tryReserve(need)) {
                credit += need;
            } else {
                return false;
            }
        }
        credit -= n;
        return true;
    }

    /** Bytes taken earlier come back (a buffer dropped, a read's hold ended). */
    void give(long n) {
        credit += n;
    }

    /** Waits up to {@code nanos} for {@code n} bytes of the budget, added to the credit; whether they came. */
    boolean await(long n, long nanos) throws InterruptedException {
        if (budget.reserve(n, nanos)) {
            credit += n;
            return true;
        }
        return false;
    }

    /** Between rounds: what exceeds one chunk goes back to the budget. */
    void trim() {
        if (credit > chunk) {
            budget.release(credit - chunk);
            credit = chunk;
        }
    }

    /** Closing: the whole credit, and {@code held} bytes taken and not given back, go back to the budget. */
    void releaseAll(long held) {
        budget.release(credit + held);
        credit = 0;
    }
}
