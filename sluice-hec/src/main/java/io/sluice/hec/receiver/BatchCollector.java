package io.sluice.hec.receiver;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Collects the messages of one request into as many batches as it takes. Nothing is published until the whole
 * request parsed, so a request with a bad event is rejected as a whole and the client's retry does not duplicate
 * the events before it.
 */
final class BatchCollector {
    private final Supplier<Batch> batches;
    private final List<Batch> filled = new ArrayList<>(4);
    private Batch current;
    private int count;

    BatchCollector(Supplier<Batch> batches) {
        this.batches = batches;
    }

    /** A cleared message to fill, in a batch of this request. */
    Message next() {
        if (current == null || current.isFull()) {
            current = batches.get();
            filled.add(current);
        }
        count++;
        return current.add();
    }

    /** Drops the message last returned by {@link #next()} (an event that turned out invalid). */
    void dropLast() {
        current.truncate(current.size() - 1);
        count--;
    }

    int count() {
        return count;
    }

    List<Batch> batches() {
        return filled;
    }

    /** Forgets the batches (after they were handed on). */
    void reset() {
        filled.clear();
        current = null;
        count = 0;
    }

    /** Returns every batch to its pool (a rejected request). */
    void releaseAll() {
        for (Batch b : filled) {
            b.release();
        }
        reset();
    }
}
