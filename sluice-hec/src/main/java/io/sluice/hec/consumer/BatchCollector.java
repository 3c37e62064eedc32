package io.sluice.hec.consumer;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.RequestMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Collects the messages of one request into as many batches as it takes. Nothing is published until the whole
 * request parsed, so a request with a bad event is rejected as a whole and the client's retry does not duplicate
 * the events before it.
 *
 * <p>Bounded (see {@link #limit}): the parser {@link #admit() admits} every event first, which refuses the event
 * past {@code MaxEventsPerRequest}, and reserves each new batch's events from the request's memory (their per-event
 * overhead, once per batch, not per event) before the batch is taken, so a million tiny events cannot be parsed
 * into memory the budget does not have.
 */
final class BatchCollector {
    private final Supplier<Batch> batches;
    private final List<Batch> filled = new ArrayList<>(4);
    private Batch current;
    private int count;
    private RequestMemory memory;
    private long perEvent;
    private int maxEvents = Integer.MAX_VALUE;
    private HecStatus refusal;
    private String refusalDetail;

    BatchCollector(Supplier<Batch> batches) {
        this.batches = batches;
    }

    /**
     * Bounds the request about to be parsed: at most {@code maxEvents} events, each batch's capacity times
     * {@code perEvent} bytes reserved from {@code memory} (null: no reservation) before the batch is used.
     */
    void limit(RequestMemory memory, long perEvent, int maxEvents) {
        this.memory = memory;
        this.perEvent = perEvent;
        this.maxEvents = maxEvents;
        this.refusal = null;
        this.refusalDetail = null;
    }

    /**
     * Makes room for one more event; call before {@link #next()}.
     *
     * @return false when the event is refused: {@link #refusal()} says why (too many events, budget)
     */
    boolean admit() {
        if (count >= maxEvents) {
            refusal = HecStatus.TOO_MANY_EVENTS;
            refusalDetail = "more than MaxEventsPerRequest (" + maxEvents + ") events";
            return false;
        }
        if (current == null || current.isFull()) {
            Batch b = batches.get();
            if (memory != null && !memory.take(b.capacity() * perEvent)) {
                b.release();
                refusal = HecStatus.of(memory.refusal());
                refusalDetail = memory.detail();
                return false;
            }
            current = b;
            filled.add(b);
        }
        return true;
    }

    /** A cleared message to fill, in a batch of this request, in the room {@link #admit()} made. */
    Message next() {
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

    /** Why {@link #admit()} refused: {@link HecStatus#TOO_MANY_EVENTS}, TOO_LARGE or SERVER_BUSY. */
    HecStatus refusal() {
        return refusal;
    }

    String refusalDetail() {
        return refusalDetail;
    }

    /** Forgets the batches (after they were handed on) and the request's limits. */
    void reset() {
        filled.clear();
        current = null;
        count = 0;
        memory = null;
        maxEvents = Integer.MAX_VALUE;
    }

    /** Returns every batch to its pool (a rejected request). */
    void releaseAll() {
        for (Batch b : filled) {
            b.release();
        }
        reset();
    }
}
