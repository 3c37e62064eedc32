package io.sluice.kafka.consumer;

import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.ConsumerContext;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The thread that calls {@link ConsumerContext#publish}, which blocks while the pipeline is full: the poll thread
 * must never block on the pipeline (a consumer that stops polling is thrown out of its group). Counts the
 * messages it holds (waiting or being published), which is what the poll thread pauses on.
 */
final class Publisher implements Runnable {
    private final ConsumerContext ctx;
    private final String id;
    private final LinkedBlockingQueue<Batch> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger buffered = new AtomicInteger();
    private final Thread thread;
    private volatile boolean stop;
    private volatile boolean failed;

    Publisher(ConsumerContext ctx, String id) {
        this.ctx = ctx;
        this.id = id;
        this.thread = new Thread(this, "consumer-" + id + "-publish");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Messages handed over and not yet taken by the pipeline. */
    int buffered() {
        return buffered.get();
    }

    /** Whether publishing failed (the error is logged); the poll loop then ends. */
    boolean failed() {
        return failed;
    }

    /** Registers the batch's offsets (if tracked) and queues it; never blocks. */
    void hand(Batch batch, OffsetTracker.Ack ack) {
        if (ack != null) {
            ack.register();
            batch.setCompletion(ack);
        }
        buffered.addAndGet(batch.size());
        queue.add(batch);
    }

    @Override
    public void run() {
        try {
            while (!stop) {
                Batch b = queue.poll(100, TimeUnit.MILLISECONDS);
                if (b == null) {
                    continue;
                }
                int n = b.size();
                try {
                    ctx.publish(b);
                } finally {
                    buffered.addAndGet(-n);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            ctx.log().error(id + ": publishing failed: " + e);
            failed = true;
        }
    }

    /**
     * Lets the batch being published finish (the producers are still running during shutdown), then drops
     * what waits without acknowledging it.
     */
    void stopAndCancel(long deadlineNanos) throws InterruptedException {
        stop = true;
        if (thread.isAlive()) {
            thread.join(Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000));
        }
        Batch b;
        while ((b = queue.poll()) != null) {
            OffsetTracker.Ack ack = (OffsetTracker.Ack) b.completion();
            if (ack != null) {
                ack.cancelled = true;
            }
            buffered.addAndGet(-b.size());
            b.release();
        }
    }
}
