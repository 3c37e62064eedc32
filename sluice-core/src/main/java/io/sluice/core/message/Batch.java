package io.sluice.core.message;

import java.util.Arrays;

/**
 * A group of messages that moves through the pipeline as one: consumers fill batches, queues hold
 * batches, producers deliver batches. Batches come from a {@link BatchPool} and go back to it with
 * {@link #release()}, so their messages (and the messages' buffers) are reused.
 */
public final class Batch {
    private final Message[] messages;
    private final BatchPool pool;
    private int size;
    private Completion completion;
    /** What this batch held when it went back to the pool's free list (the pool's own bookkeeping). */
    long retainedBytes;

    Batch(BatchPool pool, int capacity) {
        this.pool = pool;
        this.messages = new Message[capacity];
        Arrays.setAll(messages, i -> new Message());
    }

    /** Number of messages. */
    public int size() {
        return size;
    }

    /** Maximum number of messages. */
    public int capacity() {
        return messages.length;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public boolean isFull() {
        return size == messages.length;
    }

    /** Message {@code i}, {@code 0 <= i < size()}. */
    public Message get(int i) {
        if (i >= size) {
            throw outOfBounds(i);
        }
        return messages[i];
    }

    /** Built apart from {@link #get}, which stays short enough (35 bytes) to be inlined everywhere. */
    private IndexOutOfBoundsException outOfBounds(int i) {
        return new IndexOutOfBoundsException(i + " >= " + size);
    }

    /** Appends a cleared message and returns it for the caller to fill. */
    public Message add() {
        Message m = messages[size++];
        m.reset();
        return m;
    }

    /** Appends a copy of {@code m}. */
    public Message addCopy(Message m) {
        Message copy = add();
        copy.copyFrom(m);
        return copy;
    }

    /**
     * Moves message {@code i} into {@code target} without copying: the two batches swap message objects.
     * Message {@code i} of this batch is left stale; callers move every message and then {@link #clear()},
     * or use {@link #swap(int, int)} and {@link #truncate(int)} to keep some.
     */
    public void moveTo(int i, Batch target) {
        Message moved = messages[i];
        messages[i] = target.messages[target.size];
        target.messages[target.size++] = moved;
    }

    /** Swaps messages {@code i} and {@code j}; used to compact kept messages to the front. */
    public void swap(int i, int j) {
        Message t = messages[i];
        messages[i] = messages[j];
        messages[j] = t;
    }

    /** Keeps the first {@code newSize} messages. */
    public void truncate(int newSize) {
        size = newSize;
    }

    /** Empties the batch, keeping its messages for reuse. */
    public void clear() {
        size = 0;
    }

    /** The acknowledgement this batch carries, or null. */
    public Completion completion() {
        return completion;
    }

    /** Attaches an acknowledgement; derived batches share it through {@link #shareCompletion(Batch)}. */
    public void setCompletion(Completion completion) {
        this.completion = completion;
    }

    /** Makes {@code derived} (a copy or a part of this batch) carry this batch's acknowledgement too. */
    public void shareCompletion(Batch derived) {
        if (completion != null) {
            completion.retain();
            derived.completion = completion;
        }
    }

    /**
     * Makes this batch carry {@code bytes} reserved from {@code budget}, returned when it (and every batch derived
     * from it) is released: the consumer's reservation lasts until delivery or the disk buffer.
     */
    public void holdMemory(MemoryBudget budget, long bytes) {
        if (completion == null) {
            completion = Completion.memoryOnly(budget, bytes);
        } else {
            completion.holdMemory(budget, bytes);
        }
    }

    /** Whether this batch carries reserved memory. */
    public boolean holdsMemory() {
        return completion != null && completion.holdsMemory();
    }

    /**
     * Done with this batch without delivering it (refused by a closed queue, lost by a failed write): its source
     * is told it failed ({@link Completion#onFailed()}), never that it was delivered. Returns it to the pool.
     */
    public void fail() {
        if (completion != null) {
            completion.fail();
        }
        release();
    }

    /**
     * About the bytes this batch's messages hold, used or not (objects, payload buffers, metadata storage), from
     * every sixteenth message: the pool asks on every release, and reading all 512 messages cost about 0.5 ns per
     * message on the raw profile's path. Messages of one batch come from one source and look alike; a single
     * outsize buffer is capped anyway ({@link Message#RETAIN_CAPACITY}).
     */
    long retainedBytes() {
        int step = Math.max(1, messages.length / 32);
        long n = 0;
        for (int i = 0; i < messages.length; i += step) {
            n += messages[i].retainedBytes();
        }
        return n * step;
    }

    /** The pool this batch returns to. */
    public BatchPool pool() {
        return pool;
    }

    /** Done with this batch: signals its acknowledgement and returns it to the pool. */
    public void release() {
        Completion c = completion;
        completion = null;
        size = 0;
        pool.recycle(this);
        if (c != null) {
            c.release();
        }
    }
}
