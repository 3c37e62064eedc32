package io.sluice.core.testing;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import java.util.ArrayList;
import java.util.List;

/**
 * A consumer's context without a pipeline, for driving one consumer (or one of its connections) by hand: batches
 * are "published" on the calling thread into {@link #events}, so a test is deterministic. Optionally holds the
 * batches (as a full queue would) or only counts them (floods too big to keep).
 */
public final class DirectContext implements ConsumerContext {
    private final BatchPool pool;
    private final PluginStats stats;
    private final Log log;
    private final List<Captured> events = new ArrayList<>();
    private final List<Batch> held = new ArrayList<>();
    private volatile MemoryBudget memory = MemoryBudget.unlimited();
    private volatile boolean active = true;
    private boolean hold;
    private boolean countOnly;
    private long counted;

    /** A context for consumer {@code id} of {@code type}, with batches of {@code batchSize} messages. */
    public DirectContext(String id, String type, int batchSize, Log log) {
        this.pool = new BatchPool(batchSize);
        this.stats = new PluginStats(id, type);
        this.log = log;
    }

    /** Keeps published batches (and their memory) until {@link #releaseHeld()} instead of releasing them. */
    public synchronized DirectContext hold(boolean on) {
        this.hold = on;
        return this;
    }

    /** Counts published messages without keeping a copy. */
    public synchronized DirectContext countOnly(boolean on) {
        this.countOnly = on;
        return this;
    }

    /** The budget {@link #memory()} answers (default unlimited). */
    public DirectContext memory(MemoryBudget budget) {
        this.memory = budget;
        return this;
    }

    /** What {@link #isActive()} answers from now on: false asks the consumer to return. */
    public void active(boolean on) {
        this.active = on;
    }

    /** A copy of every message published so far (unless {@link #countOnly}). */
    public synchronized List<Captured> events() {
        return new ArrayList<>(events);
    }

    /** Messages published so far, kept or only counted. */
    public synchronized long counted() {
        return counted;
    }

    /** Releases the batches held by {@link #hold}; returns how many there were. */
    public synchronized int releaseHeld() {
        int n = held.size();
        for (Batch b : held) {
            b.release();
        }
        held.clear();
        return n;
    }

    /** Fails the batches held by {@link #hold} (as a producer refusing them would); returns how many there were. */
    public synchronized int failHeld() {
        int n = held.size();
        for (Batch b : held) {
            b.fail();
        }
        held.clear();
        return n;
    }

    /** The pool the batches come from (its {@link BatchPool#outstanding()} shows leaks). */
    public BatchPool pool() {
        return pool;
    }

    @Override
    public Batch newBatch() {
        return pool.acquire();
    }

    @Override
    public synchronized void publish(Batch batch) {
        counted += batch.size();
        for (int i = 0; i < batch.size() && !countOnly; i++) {
            events.add(Captured.of(batch.get(i)));
        }
        if (hold) {
            held.add(batch);
        } else {
            batch.release();
        }
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public Log log() {
        return log;
    }

    @Override
    public PluginStats stats() {
        return stats;
    }

    @Override
    public MemoryBudget memory() {
        return memory;
    }
}
