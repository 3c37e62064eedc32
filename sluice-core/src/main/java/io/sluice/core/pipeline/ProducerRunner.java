package io.sluice.core.pipeline;

import io.sluice.core.Daemon;
import io.sluice.core.buffer.BufferSettings;
import io.sluice.core.buffer.MemoryBuffer;
import io.sluice.core.buffer.ProducerBuffer;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Streams;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs one producer: its buffer (the bounded queue, or a disk buffer), and {@code max(1, ModulatorRoutines)}
 * worker threads that take batches, apply the producer's modulators (each worker its own instances) and deliver,
 * retrying retryable failures with backoff ({@code Retry/*}, and at least the delay a {@link RetryLaterException}
 * names) before the batch goes to the fallback stream.
 */
public final class ProducerRunner {
    private final Producer producer;
    private final PluginConfig config;
    private final PluginStats stats;
    private final int[] streams;
    private final boolean wildcard;
    private final int fallbackStream;
    private final long enqueueTimeoutNanos;
    private final RetryPolicy retry;
    private final BufferSettings bufferSettings;
    private final ReentrantLock deliverLock = new ReentrantLock();
    private final List<Thread> workers = new ArrayList<>();
    private volatile ProducerBuffer buffer;
    /** Counted down when the buffer is open (or the start failed): batches routed here before wait for it. */
    private final java.util.concurrent.CountDownLatch opened = new java.util.concurrent.CountDownLatch(1);
    /** Replaced by a reload: batches that still reach it are routed again, to its successor. */
    private volatile boolean retired;
    private boolean started;
    private Dispatcher dispatcher;
    private Log log;
    private volatile Tap tap;
    private volatile boolean stopping;
    private java.util.function.BiConsumer<String, Throwable> fatal;

    ProducerRunner(Producer producer, PluginStats stats) {
        this.producer = producer;
        this.config = producer.config();
        this.stats = stats;
        this.bufferSettings = BufferSettings.of(config);
        // A memory buffer is made with the runner (its queue can be watched before the start); a disk buffer opens
        // and replays its files only at the start, so that validating a config touches no disk.
        this.buffer = bufferSettings.kind() == BufferSettings.Kind.MEMORY ? bufferSettings.open(null, stats, null) : null;
        if (buffer != null) {
            opened.countDown();
        }
        List<String> names = config.get(PluginSpec.STREAMS);
        this.streams = names.stream().mapToInt(Streams::id).toArray();
        this.wildcard = names.contains("*");
        this.fallbackStream = Streams.id(config.get(PluginSpec.FALLBACK_STREAM));
        this.enqueueTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(config.get(PluginSpec.CHANNEL_TIMEOUT_MS));
        this.retry = RetryPolicy.of(config);
    }

    boolean reads(int stream) {
        for (int s : streams) {
            if (s == stream) {
                return true;
            }
        }
        return false;
    }

    boolean readsWildcard() {
        return wildcard;
    }

    /** Hands a batch to this producer's buffer, blocking while it is full (or up to ChannelTimeoutMs). */
    void enqueue(Batch batch) throws InterruptedException {
        ProducerBuffer b = buffer;
        if (b == null) {
            // A disk buffer replacing a producer's opens once that one has stopped and left its files.
            opened.await();
            b = buffer;
        }
        if (b != null && b.put(batch, enqueueTimeoutNanos)) {
            return;
        }
        if (retired) {
            // Routed here just before a reload switched the routes: its successor takes it.
            dispatcher.dispatch(batch);
            return;
        }
        // Timed out or shutting down: the batch goes to the fallback stream rather than vanishing.
        stats.addFailed(batch.size());
        toFallback(batch, "queue full");
    }

    private void toFallback(Batch batch, String reason) throws InterruptedException {
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).addHop();
            batch.get(i).setStream(fallbackStream);
        }
        if (batch.get(0).hops() > ModulatorChain.MAX_HOPS || fallbackStream == batch.get(0).origStream()) {
            dispatcher.discard(batch, config.id() + ": " + reason + " and the fallback stream loops");
        } else if (!dispatcher.delivers(fallbackStream)) {
            // Nobody reads the fallback stream: the batch is lost here, so its source must not acknowledge it.
            dispatcher.discardFailed(batch, config.id() + ": " + reason + " and no producer reads stream "
                    + Streams.name(fallbackStream));
        } else {
            dispatcher.dispatch(batch);
        }
    }

    void start(Dispatcher d, Log log, ProducerContext ctx, BatchPool pool, java.util.function.BiConsumer<String, Throwable> fatal) {
        this.dispatcher = d;
        this.log = log;
        this.fatal = fatal;
        if (buffer == null) {
            try {
                buffer = bufferSettings.open(pool, stats, log);
            } finally {
                opened.countDown();
            }
        }
        started = true;
        try {
            producer.start(ctx);
        } catch (StartException e) {
            throw e;
        } catch (Exception e) {
            throw new StartException(config.id(), e);
        }
        // A concurrent producer may ask for more workers than ModulatorRoutines, one per connection it keeps busy.
        int n = Math.max(Math.max(1, config.get(PluginSpec.MODULATOR_ROUTINES)), producer.concurrent() ? producer.workers() : 1);
        for (int i = 0; i < n; i++) {
            ModulatorChain chain = new ModulatorChain(config.get(PluginSpec.MODULATORS), fallbackStream);
            workers.add(Daemon.start("producer-" + config.id() + "-" + i, () -> work(chain)));
        }
    }

    private void work(ModulatorChain chain) {
        try {
            Batch b;
            while ((b = buffer.poll(1, TimeUnit.SECONDS)) != null || !stopping) {
                if (b != null) {
                    process(b, chain);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            // A worker that dies leaves a queue nobody drains: the process ends rather than fill it and hang.
            fatal.accept(config.id() + ": producer worker failed", e);
        }
    }

    private void process(Batch b, ModulatorChain chain) throws InterruptedException {
        stats.addIn(b.size());
        chain.apply(b, dispatcher, stats);
        if (b.isEmpty()) {
            settle(b);
            return;
        }
        int n = b.size();
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            bytes += b.get(i).length();
        }
        Tap t = tap;
        if (t != null && !t.offer(b)) {
            tap = null;
        }
        for (int attempt = 0; ; attempt++) {
            long start = System.nanoTime();
            try {
                deliver(b);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                boolean permanent = e instanceof PermanentDeliveryException;
                if (permanent || !retry.retries(attempt)) {
                    stats.addFailed(n);
                    log.limited(Log.ERROR, config.id() + ": delivery failed", config.id() + ": delivery of " + n
                            + " messages failed" + (permanent ? "" : " after " + (attempt + 1) + " attempts")
                            + ", sending them to stream " + Streams.name(fallbackStream) + ": " + e);
                    buffer.delivered(b);
                    toFallback(b, "delivery failed");
                    return;
                }
                stats.addRetried(n);
                log.limited(Log.WARNING, config.id() + ": retrying", config.id() + ": delivery of " + n
                        + " messages failed (attempt " + (attempt + 1) + "), retrying: " + e);
                retry.pause(attempt, e);
                continue;
            }
            stats.sendLatency().record(System.nanoTime() - start);
            stats.addOut(n);
            stats.addBytesOut(bytes);
            settle(b);
            return;
        }
    }

    /**
     * A delivered batch goes back: its buffer forgets it and its source is told (an ack, an answer). What the source
     * does then is not this delivery's business: an exception from it is logged, never taken for a failed delivery,
     * which would send the batch, already released, again.
     */
    private void settle(Batch b) {
        try {
            buffer.delivered(b);
            b.release();
        } catch (RuntimeException e) {
            log.limited(Log.ERROR, config.id() + ": completion failed", config.id()
                    + ": acknowledging a delivered batch to its source failed: " + e);
        }
    }

    private void deliver(Batch b) throws Exception {
        if (producer.concurrent()) {
            producer.deliver(b);
            return;
        }
        deliverLock.lock();
        try {
            producer.deliver(b);
        } finally {
            deliverLock.unlock();
        }
    }

    /** Samples the next messages this producer delivers (after its modulators). */
    public void tap(Tap t) {
        this.tap = t;
    }

    /**
     * Marks this producer as replaced by a reload and stops it: what is in its buffer is delivered (or, for a disk
     * buffer, kept for its successor), and a batch that still reaches it is routed again.
     */
    void retire(long timeoutMillis) throws InterruptedException {
        retired = true;
        stop(timeoutMillis);
    }

    /**
     * Stops taking new batches, lets the workers drain the buffer until the timeout, then closes the producer.
     * A disk buffer keeps what was not delivered for the next start.
     */
    void stop(long timeoutMillis) throws InterruptedException {
        stopping = true;
        if (!started) {
            opened.countDown(); // never started: the start stopped at an earlier plugin
            return;
        }
        buffer.close();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (Thread t : workers) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                log.warn(config.id() + ": did not drain within " + timeoutMillis + " ms; " + buffer.leftBehind());
                t.interrupt();
            }
        }
        for (Thread t : workers) {
            t.join(1000);
        }
        buffer.shutdown();
        try {
            producer.close();
        } catch (Exception e) {
            log.error(config.id() + ": close failed: " + e);
        }
    }

    public Producer producer() {
        return producer;
    }

    public PluginStats stats() {
        return stats;
    }

    /** The memory buffer's queue, or null for a disk buffer. */
    public BatchQueue queue() {
        return buffer instanceof MemoryBuffer memory ? memory.queue() : null;
    }

    /** Where batches wait: memory or disk. */
    public ProducerBuffer buffer() {
        return buffer;
    }

    /** Whether the producer can deliver and its buffer can take batches (a disk buffer that cannot write cannot). */
    public boolean isReady() {
        ProducerBuffer b = buffer;
        return producer.isReady() && (b == null || b.isReady());
    }
}
