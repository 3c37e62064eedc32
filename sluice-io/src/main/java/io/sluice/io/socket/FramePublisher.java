package io.sluice.io.socket;

import io.sluice.core.message.Batch;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.ConsumerContext;
import java.util.concurrent.TimeUnit;

/**
 * Turns the frames a {@link StreamLoop}'s connections send into messages and publishes their batches: the
 * {@link Framer.Sink} of every connection. Each message is reserved from the loop's {@link MemoryCredit} before its
 * frame is taken (its bytes plus {@link MemoryBudget#MESSAGE_OVERHEAD}); the reservation travels with its batch
 * ({@link Batch#holdMemory}) until the batch is delivered. When the memory is spent the frame is refused and its
 * connection paused ({@link StreamLoop#pause}) with its frames kept. Used by the loop's thread only.
 */
final class FramePublisher implements Framer.Sink {
    /** A publish that took longer than this waited for the pipeline (see {@link #unblockedAt}). */
    private static final long WAITED_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final SocketServer server;
    private final ConsumerContext ctx;
    private final MemoryBudget budget;
    private final MemoryCredit credit;
    private final StreamLoop loop;
    private final boolean skipEmpty;
    private final SyslogParser parser;
    private Batch batch;
    private long batchBytes;
    private int admitted;
    private long lines;
    /** The connection whose frames come next. */
    private StreamConnection current;
    /** Stopping: every frame is taken, charged only when published. */
    private boolean draining;
    /** When the last publish that had to wait for the pipeline ended: no connection was read until then. */
    private long unblockedAt;

    FramePublisher(SocketServer server, ConsumerContext ctx, MemoryCredit credit, StreamLoop loop) {
        this.server = server;
        this.ctx = ctx;
        this.budget = ctx.memory();
        this.credit = credit;
        this.loop = loop;
        this.skipEmpty = server.s.skipEmpty;
        this.parser = server.s.syslog == null ? null : new SyslogParser(server.s.syslog);
    }

    /** The frames that follow are {@code c}'s. */
    void from(StreamConnection c) {
        current = c;
    }

    /** Stopping: frames are taken without waiting for memory. */
    void drain() {
        draining = true;
    }

    /** When the last publish that waited for the pipeline ended (nanoTime; 0: none did). */
    long unblockedAt() {
        return unblockedAt;
    }

    @Override
    public boolean admit(int len) {
        if (draining || (len == 0 && skipEmpty)) {
            admitted = 0;
            return true;
        }
        int cost = len + MemoryBudget.MESSAGE_OVERHEAD;
        if (!credit.take(cost)) {
            loop.pause(current, cost);
            return false;
        }
        admitted = cost;
        return true;
    }

    @Override
    public void frame(byte[] buf, int off, int len, boolean cut) throws InterruptedException {
        StreamConnection c = current;
        c.lastProgress = c.readNanos;
        if (len == 0 && skipEmpty) {
            return;
        }
        if (batch == null) {
            batch = ctx.newBatch();
        }
        server.fill(batch.add(), buf, off, len, cut, c.readEpoch, parser, ctx, c.peer);
        batchBytes += admitted;
        admitted = 0;
        lines++;
        if (batch.isFull()) {
            publish();
        }
    }

    /**
     * Hands the batch being filled to the pipeline, carrying its memory from now on. May wait while the queues
     * behind are full: nothing is read meanwhile, which is the backpressure.
     */
    void publish() throws InterruptedException {
        Batch b = batch;
        batch = null;
        if (b == null) {
            return;
        }
        if (batchBytes > 0) {
            b.holdMemory(budget, batchBytes);
        }
        batchBytes = 0;
        server.lines.addAndGet(lines);
        lines = 0;
        long t0 = System.nanoTime();
        ctx.publish(b);
        long t1 = System.nanoTime();
        if (t1 - t0 > WAITED_NANOS) {
            unblockedAt = t1; // every connection waited for the pipeline, not only this one
        }
    }

    /** Stopping: the counts go to the server (lines, syslog errors). */
    void count() {
        server.lines.addAndGet(lines);
        lines = 0;
        if (parser != null) {
            server.syslogErrors.addAndGet(parser.errors());
        }
    }

    /**
     * Stopping: a batch that could not be published (interrupted) goes back to the pool.
     *
     * @return the bytes reserved for its messages, for the loop to give back to the budget
     */
    long discard() {
        if (batch != null) {
            batch.fail();
            batch = null;
        }
        long held = batchBytes;
        batchBytes = 0;
        return held;
    }
}
