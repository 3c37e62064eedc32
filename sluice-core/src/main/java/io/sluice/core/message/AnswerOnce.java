package io.sluice.core.message;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The completion of a request a network input answers once its batches were delivered (HEC's success, OTLP's
 * export response): {@link #answer} runs exactly once, with {@code true} when every batch was delivered and
 * {@code false} when any failed or when the input gave up handing them over ({@link #abandon()}) — whichever comes
 * first. It runs on the thread that released the last batch (a producer's) or the one that abandoned, so it must
 * hand the answer to the connection's own thread and let nothing escape.
 */
public abstract class AnswerOnce extends Completion {
    private final AtomicBoolean answered = new AtomicBoolean();

    @Override
    protected final void onComplete() {
        once(true);
    }

    @Override
    protected final void onFailed() {
        once(false);
    }

    /** The batches cannot all be handed over (the pipeline is stopping): the request is answered as failed now. */
    public final void abandon() {
        fail();
        once(false);
    }

    private void once(boolean delivered) {
        if (answered.compareAndSet(false, true)) {
            answer(delivered);
        }
    }

    /** Called once: whether every batch of the request was delivered. */
    protected abstract void answer(boolean delivered);
}
