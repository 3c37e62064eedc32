package io.sluice.core.testing;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A client that connects to a loopback port over and over (each connection closed at once) on its own thread,
 * counting connections made and refused: what a reload that keeps its listeners must leave at zero refused.
 */
public final class ConnectLoop implements AutoCloseable {
    private final InetSocketAddress address;
    private final AtomicLong connected = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final Thread thread;
    private volatile boolean stop;

    /** Starts connecting to {@code 127.0.0.1:port}. */
    public ConnectLoop(int port) {
        this.address = new InetSocketAddress("127.0.0.1", port);
        this.thread = new Thread(this::run, "connect-loop-" + port);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!stop) {
            try (Socket s = new Socket()) {
                s.connect(address, 2000);
                connected.incrementAndGet();
            } catch (ConnectException e) {
                refused.incrementAndGet();
            } catch (IOException e) {
                failed.incrementAndGet(); // a timeout: the backlog was full, which is not a refusal
            }
            LockSupport.parkNanos(500_000); // paced: a few hundred connections a second, not a flood on 2 cores
        }
    }

    /** Connections made so far. */
    public long connected() {
        return connected.get();
    }

    /** Connections refused so far (connection refused: nothing listened). */
    public long refused() {
        return refused.get();
    }

    /** Connections that failed otherwise (timed out). */
    public long failed() {
        return failed.get();
    }

    /** Waits until {@code n} more connections than now were made (20 s at most). */
    public void awaitMore(long n) {
        long target = connected() + n;
        PipelineHarness.await(n + " more connections to " + address, 20_000, () -> connected() >= target);
    }

    /**
     * Waits until connecting to {@code 127.0.0.1:port} is refused (10 s at most): a closed listener's descriptor is
     * released by its selector's next round, a moment after the close returned.
     */
    public static void awaitRefused(int port) {
        InetSocketAddress a = new InetSocketAddress("127.0.0.1", port);
        PipelineHarness.await("connecting to " + a + " refused", 10_000, () -> {
            try (Socket s = new Socket()) {
                s.connect(a, 2000);
                return false;
            } catch (ConnectException e) {
                return true;
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** Stops connecting and waits for the thread. */
    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(10_000);
    }
}
