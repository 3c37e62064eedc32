package io.sluice.core.pipeline;

import io.sluice.core.message.AnswerOnce;
import io.sluice.core.message.Batch;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The publishing side of a network input that answers each request once the pipeline delivered it (consumer.HEC,
 * consumer.OTLP): event loops parse a request into batches and hand them here; one publisher thread puts them into
 * the pipeline, so a full pipeline holds back this thread and never an event loop. It counts the events accepted and
 * not delivered yet (for busy answers) and the requests not answered yet (so that a stop can wait for their answers
 * before it closes their connections).
 */
public final class RequestPublisher {
    private final ConsumerContext ctx;
    private final String id;
    private final String failure;
    private final ExecutorService thread;
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicInteger unanswered = new AtomicInteger();

    /**
     * @param ctx     the consumer's context, which publishes and logs
     * @param id      the plugin id, for the thread's name and log lines
     * @param threadPrefix the publisher thread's name before the id ("hec-publish-")
     * @param failure what a failed publish means for the client, for the log line ("answered 503")
     */
    public RequestPublisher(ConsumerContext ctx, String id, String threadPrefix, String failure) {
        this.ctx = ctx;
        this.id = id;
        this.failure = failure;
        this.thread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, threadPrefix + id);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Queues a request's batches, each already completing {@code done}; counts its {@code events} as pending and the
     * request as unanswered. Once stopped, the batches fail at once (the request is answered busy, its memory goes
     * back).
     */
    public void submit(List<Batch> batches, AnswerOnce done, int events) {
        pending.addAndGet(events);
        unanswered.incrementAndGet();
        try {
            thread.execute(() -> publish(batches, done));
        } catch (RejectedExecutionException stopped) {
            batches.forEach(Batch::fail);
        }
    }

    /**
     * On the publisher thread. Nothing escapes: a failure fails the request rather than the thread, and the batches
     * not yet handed to the pipeline are failed (their memory goes back). The batch whose publish threw is left to
     * the pipeline, which may hold it (releasing it twice would corrupt the pool).
     */
    private void publish(List<Batch> batches, AnswerOnce done) {
        int i = 0;
        try {
            for (; i < batches.size(); i++) {
                ctx.publish(batches.get(i));
            }
        } catch (Throwable t) {
            if (t instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            ctx.log().limited(Log.ERROR, id + ": publish failed", id + ": publishing " + failure + ": " + t);
            for (int j = i + 1; j < batches.size(); j++) {
                batches.get(j).fail();
            }
            done.abandon();
        }
    }

    /** A request's {@code events} were delivered or failed: they are no longer pending. */
    public void finished(int events) {
        pending.addAndGet(-events);
    }

    /** A request submitted was answered (or can no longer be). */
    public void answered() {
        unanswered.decrementAndGet();
    }

    /** Events accepted and not delivered yet. */
    public int pending() {
        return pending.get();
    }

    /** Waits up to {@code millis} for every request submitted to be answered (a stop, before closing connections). */
    public void awaitAnswered(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (unanswered.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Lets the thread finish what was submitted (waiting up to {@code millis}); later submissions fail at once. */
    public void stop(long millis) {
        thread.shutdown();
        try {
            thread.awaitTermination(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
