package io.sluice.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * An event loop held in a task of the test's until {@link #close()}: what a test needs to make work queue behind a
 * busy loop (a registration, a shutdown that begins while the loop runs tasks) at a moment of its choosing; and the
 * check that a stop left no connection open behind it.
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

    /**
     * Runs {@code stop} on another thread while {@code loop} is held, lets the loop go once the stop reached it (shut
     * it down, or queued work for it first), and waits for the stop to end: a stop that begins while its loop is busy.
     */
    public static void stopWhileBusy(SingleThreadEventExecutor loop, Runnable stop) throws Exception {
        try (HeldLoop held = hold(loop)) {
            CompletableFuture<Void> stopped = CompletableFuture.runAsync(stop);
            PipelineHarness.await("the stop to reach the event loop", 10_000,
                    () -> loop.isShuttingDown() || loop.pendingTasks() > 0);
            held.close();
            stopped.get();
        }
    }

    /**
     * Asserts that {@code client}'s connection was closed by the other end: end of stream, or a reset (the client
     * fails at once all the same). A read that times out (the caller sets the socket's timeout) means it was left
     * open, read by nobody: the assertion fails with {@code ifOpen}.
     */
    public static void assertClosed(Socket client, String ifOpen) {
        int read;
        try {
            read = client.getInputStream().read();
        } catch (SocketTimeoutException e) {
            throw new AssertionError(ifOpen, e);
        } catch (IOException reset) {
            read = -1;
        }
        assertThat(read).as("end of stream: the connection is closed").isEqualTo(-1);
    }

    /** Lets the loop go on. */
    @Override
    public void close() {
        release.countDown();
    }
}
