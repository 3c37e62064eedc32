package io.sluice.core.pipeline;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Streams;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs one producer: its bounded queue, and {@code max(1, ModulatorRoutines)} worker threads that take
 * batches, apply the producer's modulators (each worker its own instances) and deliver.
 */
public final class ProducerRunner {
    private final Producer producer;
    private final PluginConfig config;
    private final BatchQueue queue;
    private final PluginStats stats;
    private final int[] streams;
    private final boolean wildcard;
    private final int fallbackStream;
    private final long enqueueTimeoutNanos;
    private final ReentrantLock deliverLock = new ReentrantLock();
    private final List<Thread> workers = new ArrayList<>();
    private Dispatcher dispatcher;
    private Log log;
    private volatile Tap tap;

    ProducerRunner(Producer producer, PluginStats stats) {
        this.producer = producer;
        this.config = producer.config();
        this.queue = new BatchQueue(config.get(PluginSpec.CHANNEL));
        this.stats = stats;
        List<String> names = config.get(PluginSpec.STREAMS);
        this.streams = names.stream().mapToInt(Streams::id).toArray();
        this.wildcard = names.contains("*");
        this.fallbackStream = Streams.id(config.get(PluginSpec.FALLBACK_STREAM));
        this.enqueueTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(config.get(PluginSpec.CHANNEL_TIMEOUT_MS));
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

    /** Queues a batch for this producer, blocking while the queue is full (or up to ChannelTimeoutMs). */
    void enqueue(Batch batch) throws InterruptedException {
        if (queue.put(batch, enqueueTimeoutNanos)) {
            return;
        }
        // Timed out or shutting down: the batch goes to the fallback stream rather than vanishing.
        stats.addFailed(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).addHop();
            batch.get(i).setStream(fallbackStream);
        }
        if (batch.get(0).hops() > ModulatorChain.MAX_HOPS || fallbackStream == batch.get(0).origStream()) {
            dispatcher.discard(batch, config.id() + ": queue full and fallback stream loops");
        } else {
            dispatcher.dispatch(batch);
        }
    }

    void start(Dispatcher d, Log log, ProducerContext ctx) throws Exception {
        this.dispatcher = d;
        this.log = log;
        producer.start(ctx);
        int n = Math.max(Math.max(1, config.get(PluginSpec.MODULATOR_ROUTINES)), producer.concurrent() ? producer.workers() : 1);
        for (int i = 0; i < n; i++) {
            ModulatorChain chain = new ModulatorChain(config.get(PluginSpec.MODULATORS), fallbackStream);
            Thread t = new Thread(() -> work(chain), "producer-" + config.id() + "-" + i);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
    }

    private void work(ModulatorChain chain) {
        try {
            Batch b;
            while ((b = queue.poll(1, TimeUnit.SECONDS)) != null || !queueClosed) {
                if (b != null) {
                    process(b, chain);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private volatile boolean queueClosed;

    private void process(Batch b, ModulatorChain chain) throws InterruptedException {
        stats.addIn(b.size());
        chain.apply(b, dispatcher, stats);
        if (b.isEmpty()) {
            b.release();
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
        long start = System.nanoTime();
        try {
            if (producer.concurrent()) {
                producer.deliver(b);
            } else {
                deliverLock.lock();
                try {
                    producer.deliver(b);
                } finally {
                    deliverLock.unlock();
                }
            }
            stats.sendLatency().record(System.nanoTime() - start);
            stats.addOut(n);
            stats.addBytesOut(bytes);
            b.release();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            stats.addFailed(n);
            log.limited(Log.ERROR, config.id() + ": delivery failed", config.id() + ": delivery of " + n
                    + " messages failed, sending them to stream " + Streams.name(fallbackStream) + ": " + e);
            for (int i = 0; i < n; i++) {
                b.get(i).addHop();
                b.get(i).setStream(fallbackStream);
            }
            dispatcher.dispatch(b);
        }
    }

    /** Stops taking new batches once the queue is empty, waits for the workers, then closes the producer. */
    void stop(long timeoutMillis) throws InterruptedException {
        queueClosed = true;
        queue.close();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (Thread t : workers) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                log.warn(config.id() + ": did not drain within " + timeoutMillis + " ms; " + queue.depth()
                        + " messages left in its queue");
                t.interrupt();
            }
        }
        try {
            producer.close();
        } catch (Exception e) {
            log.error(config.id() + ": close failed: " + e);
        }
    }

    /** Samples the next messages this producer delivers (after its modulators). */
    public void tap(Tap t) {
        this.tap = t;
    }

    public Producer producer() {
        return producer;
    }

    public PluginStats stats() {
        return stats;
    }

    public BatchQueue queue() {
        return queue;
    }
}
