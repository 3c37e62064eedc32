package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.komamitsu.fluency.BufferFullException;
import org.komamitsu.fluency.EventTime;
import org.komamitsu.fluency.Fluency;
import org.komamitsu.fluency.fluentd.FluencyBuilderForFluentd;

/**
 * fluency in ack mode sending events {@code {"n":i,"s":"f","p":"…"}} numbered 0…n-1, paced at a steady rate, on
 * its own thread. Ack mode makes fluency keep a chunk until the server answered {@code {"ack": chunk}}, and an
 * endless retry count makes it resend unacknowledged chunks after any failure (a killed server, a refused
 * connection): so an event fluency dropped from its buffer is an event Sluice acknowledged.
 *
 * <p>fluency is stop-and-wait in ack mode (its one flusher thread sends a chunk and reads the ack before the next),
 * so at most one chunk ({@link #CHUNK_BYTES} plus one event) is unacknowledged at any moment.
 */
final class FluencySender implements AutoCloseable {
    /** fluency moves a chunk to sending once it holds this many bytes. */
    static final int CHUNK_BYTES = 128 * 1024;
    /** The smallest msgpack size of one event as fluency packs it: [tag..., time ext8 (10), {n, s, p}] ≥ 60 bytes. */
    static final int MIN_EVENT_BYTES = 60;
    /** Events in one chunk at most: what one lost ack can make fluency send twice. */
    static final int MAX_CHUNK_EVENTS = CHUNK_BYTES / MIN_EVENT_BYTES + 1;
    static final String PAD = "x".repeat(40);

    final Fluency fluency;
    private final AtomicLong emitted = new AtomicLong();
    private final AtomicLong bufferFull = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private volatile Throwable failure;
    private Thread thread;

    FluencySender(int port, long maxBufferBytes) {
        FluencyBuilderForFluentd b = new FluencyBuilderForFluentd();
        b.setAckResponseMode(true);
        b.setSenderMaxRetryCount(Integer.MAX_VALUE);
        b.setSenderBaseRetryIntervalMillis(50);
        b.setSenderMaxRetryIntervalMillis(500);
        b.setConnectionTimeoutMilli(5000);
        // Longer than any stall a test provokes: a read timeout would resend a chunk Sluice may still ack.
        b.setReadTimeoutMilli(180_000);
        b.setBufferChunkInitialSize(32 * 1024);
        b.setBufferChunkRetentionSize(CHUNK_BYTES);
        b.setBufferChunkRetentionTimeMillis(200);
        b.setFlushAttemptIntervalMillis(50);
        b.setMaxBufferSize(maxBufferBytes);
        b.setWaitUntilBufferFlushed(120);
        b.setWaitUntilFlusherTerminated(120);
        b.setErrorHandler(e -> errors.incrementAndGet());
        fluency = b.build("127.0.0.1", port);
    }

    /** Emits events {@code from}…{@code to-1} at {@code perSecond} (0: as fast as fluency takes them) on a thread. */
    FluencySender start(int from, int to, int perSecond) {
        thread = new Thread(() -> {
            Map<String, Object> record = new LinkedHashMap<>();
            long start = System.nanoTime();
            try {
                for (int i = from; i < to; i++) {
                    if (perSecond > 0) {
                        long due = start + (long) (i - from) * 1_000_000_000L / perSecond;
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            TimeUnit.NANOSECONDS.sleep(wait); // pacing the offered rate, not waiting for a result
                        }
                    }
                    record.put("n", i);
                    record.put("s", "f");
                    record.put("p", PAD);
                    while (true) {
                        try {
                            fluency.emit("e2e", EventTime.fromEpochMilli(System.currentTimeMillis()), record);
                            break;
                        } catch (BufferFullException e) {
                            // fluency's buffer is full because Sluice stopped acknowledging: held back; offer it again.
                            bufferFull.incrementAndGet();
                            Thread.sleep(5);
                        }
                    }
                    emitted.incrementAndGet();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable e) {
                failure = e;
            }
        }, "fluency-emitter");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    long emitted() {
        return emitted.get();
    }

    /** Times an emit was refused because fluency's buffer was full (senders held back). */
    long bufferFull() {
        return bufferFull.get();
    }

    /** Send failures fluency reported to its error handler (it retried them). */
    long errors() {
        return errors.get();
    }

    /** Bytes fluency holds that were not acknowledged yet (the chunk on the wire excepted). */
    long buffered() {
        return fluency.getBufferedDataSize();
    }

    void awaitEmitted(long seconds) throws InterruptedException {
        thread.join(TimeUnit.SECONDS.toMillis(seconds));
        assertThat(thread.isAlive()).as("fluency emitted everything within " + seconds + " s (" + emitted() + " so far)").isFalse();
        assertThat(failure).as("fluency emit failure").isNull();
    }

    /**
     * Flushes and closes fluency and checks that it holds nothing: every chunk was acknowledged. close() waits
     * for the buffer to drain and the flusher to end, so the chunk that was on the wire is accounted for too.
     */
    void finishAllAcked() throws IOException, InterruptedException {
        fluency.flush();
        Await.until("fluency acked everything (" + fluency.getBufferedDataSize() + " bytes left)", 180,
                () -> fluency.getBufferedDataSize() == 0);
        fluency.close();
        assertThat(fluency.waitUntilFlusherTerminated(60)).as("fluency flusher terminated").isTrue();
        assertThat(fluency.getBufferedDataSize()).as("bytes fluency holds unacknowledged after close").isZero();
    }

    @Override
    public void close() {
        if (thread != null) {
            thread.interrupt();
        }
        if (fluency.isTerminated()) {
            return;
        }
        // After a failed test the server may be gone and fluency would retry for minutes: close in the background.
        Thread closer = new Thread(() -> {
            try {
                fluency.close();
            } catch (IOException | RuntimeException ignored) {
                // Cleanup after a failed test.
            }
        }, "fluency-close");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
