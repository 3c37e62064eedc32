package io.sluice.core.testing;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.CountDownLatch;

/**
 * An event loop held in a task of the test's until {@link #close()}: what a test needs to make work queue behind a
 * busy loop (a registration, a shutdown that begins while the loop runs tasks) at a moment of its choosing.
 */
public final class HeldLoop implements AutoCloseable {
    private final CountDownLatch release = new CountDownLatch(1);

    private HeldLoop() {
    }

    /** Holds {@code loop}; returns once the holding task runs on it. */
    public static HeldLoop hold(EventExecutor loop) throws InterruptedException {
        HeldLoop held = new HeldLoop();
        CountDownLatch running = new CountDownLatch(1);
        loop.execute(() -> {
            running.countDown();
            try {
                held.release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        running.await();
        return held;
    }

    /** Lets the loop go on. */
    @Override
    public void close() {
        release.countDown();
    }
}
