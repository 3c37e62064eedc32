package io.sluice.core.net;

/**
 * An open hold on listening sockets (see {@link ListenerHandover#hold()}): while one is open, a listener its
 * consumer closes stays bound and waits for the consumer that binds its address next. Closing the last hold
 * closes the listeners nobody took. Closing twice is harmless.
 */
public final class ListenerHold implements AutoCloseable {
    private boolean closed;

    ListenerHold() {
    }

    /** Ends this hold; when it was the last, the sockets still parked are closed. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        ListenerHandover.release();
    }
}
