package io.sluice.e2e;

import java.util.concurrent.TimeUnit;

/** Polls a condition until it holds or a deadline passes; no fixed sleeps stand in for a result. */
final class Await {
    /** A condition that may throw (a failed assertion inside stops the wait at once). */
    interface Condition {
        boolean holds() throws Exception;
    }

    private Await() {
    }

    static void until(String what, long seconds, Condition c) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            try {
                if (c.holds()) {
                    return;
                }
            } catch (AssertionError e) {
                throw e;
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out after " + seconds + " s waiting for " + what + ": " + e, e);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + seconds + " s waiting for " + what);
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }
}
