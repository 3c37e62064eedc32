package io.sluice.core.pipeline;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.Streams;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A running set of consumers, routers and producers built from validated configs.
 * Lifecycle: {@link #start()}, then {@link #stop()} (or the end of every consumer that ends the pipeline):
 * stop consumers, drain queues, flush producers, report.
 */
public final class Pipeline {
    private final Log log;
    private final BatchPool pool;
    private final MemoryBudget memory;
    private volatile String failure;
    private volatile java.util.function.Consumer<String> onFailure = reason -> { };
    private final Dispatcher dispatcher;
    private final List<ConsumerRunner> consumers = new ArrayList<>();
    private final List<ProducerRunner> producers = new ArrayList<>();
    private final List<PluginStats> routerStats = new ArrayList<>();
    private final AtomicBoolean active = new AtomicBoolean(false);
    private final AtomicBoolean stopping = new AtomicBoolean(false);
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final AtomicInteger endingConsumersLeft = new AtomicInteger();
    private final AtomicLong firstGenerated = new AtomicLong();
    private volatile long startedNanos;
    private volatile long stoppedNanos;

    /** Builds (but does not start) a pipeline with a budget of a share of the heap; see the four-argument form. */
    public Pipeline(List<PluginConfig> configs, PluginRegistry registry, Log log) {
        this(configs, registry, log, MemoryBudget.ofHeapShare());
    }

    /**
     * Builds (but does not start) a pipeline; plugin constructors may throw ConfigException.
     *
     * @param memory the budget every input reserves from before it reads
     */
    public Pipeline(List<PluginConfig> configs, PluginRegistry registry, Log log, MemoryBudget memory) {
        this.log = log;
        this.memory = memory;
        // Free batches keep their messages' buffers: an eighth of the budget, so they stay a small share of the heap.
        this.pool = new BatchPool(BatchPool.DEFAULT_BATCH_SIZE, Math.min(64L << 20, memory.limit() / 8));
        this.dispatcher = new Dispatcher(Collections.unmodifiableList(producers), registry, log);
        for (PluginConfig c : configs) {
            c.deprecations().forEach(log::warn);
        }
        for (PluginConfig c : configs) {
            if (c.get(PluginSpec.ENABLE) && c.spec().kind() == PluginKind.PRODUCER) {
                producers.add(new ProducerRunner((Producer) c.spec().create(c), new PluginStats(c.id(), c.type())));
            }
        }
        for (PluginConfig c : configs) {
            if (!c.get(PluginSpec.ENABLE)) {
                continue;
            }
            if (c.spec().kind() == PluginKind.ROUTER) {
                PluginStats s = new PluginStats(c.id(), c.type());
                routerStats.add(s);
                dispatcher.addRouter((Router) c.spec().create(c), s);
            } else if (c.spec().kind() == PluginKind.CONSUMER) {
                Consumer consumer = (Consumer) c.spec().create(c);
                consumers.add(new ConsumerRunner(consumer, this, new PluginStats(c.id(), c.type())));
            }
        }
        // Validate each modulator chain once now, so a bad modulator setting fails before anything starts.
        for (PluginConfig c : configs) {
            if (c.get(PluginSpec.ENABLE) && c.spec().kind() != PluginKind.MODULATOR) {
                new ModulatorChain(c.get(PluginSpec.MODULATORS), Streams.DROPPED);
            }
        }
    }

    /**
     * Starts producers first, then claims every consumer's listener or files, then starts the consumers.
     *
     * @throws StartException when a plugin cannot start (a port in use, a path that cannot be written), before
     *     any input is accepted; what had started is stopped again
     */
    public void start() throws Exception {
        active.set(true);
        startedNanos = System.nanoTime();
        try {
            for (ProducerRunner p : producers) {
                p.start(dispatcher, log, producerContext(p.stats()), pool, this::fail);
            }
            for (ConsumerRunner c : consumers) {
                c.open();
            }
        } catch (StartException e) {
            stop();
            throw e;
        }
        int ending = 0;
        for (ConsumerRunner c : consumers) {
            if (c.endsPipeline()) {
                ending++;
            }
        }
        endingConsumersLeft.set(ending);
        for (ConsumerRunner c : consumers) {
            c.start();
        }
    }

    private ProducerContext producerContext(PluginStats stats) {
        return new ProducerContext() {
            @Override
            public long firstGeneratedNanos() {
                return firstGenerated.get();
            }

            @Override
            public Log log() {
                return log;
            }

            @Override
            public PluginStats stats() {
                return stats;
            }
        };
    }

    void consumerDone(ConsumerRunner c) {
        if (c.endsPipeline() && endingConsumersLeft.decrementAndGet() == 0) {
            log.info("every message was generated; shutting down");
            Thread t = new Thread(this::stop, "shutdown");
            t.setDaemon(true);
            t.start();
        }
    }

    /**
     * Graceful stop: consumers stop, queues drain, producers flush and close. Idempotent; a second caller
     * waits for the first to finish.
     */
    public void stop() {
        if (!stopping.compareAndSet(false, true)) {
            awaitQuietly();
            return;
        }
        active.set(false);
        try {
            long timeout = maxShutdownTimeout();
            for (ConsumerRunner c : consumers) {
                c.stop(timeout);
            }
            awaitDrained(timeout);
            for (ProducerRunner p : producers) {
                p.stop(p.producer().config().get(PluginSpec.SHUTDOWN_TIMEOUT_MS));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            log.flushSuppressed();
            stoppedNanos = System.nanoTime();
            terminated.countDown();
        }
    }

    /** Waits until nothing is in flight: every batch went back to the pool. */
    private void awaitDrained(long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (pool.outstanding() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        if (pool.outstanding() > 0) {
            log.warn("shutdown: " + pool.outstanding() + " batches still in flight after " + timeoutMillis + " ms");
        }
    }

    /**
     * The longest a graceful {@link #stop()} can take: consumers, then the drain, then each producer, each bounded
     * by the longest ShutdownTimeoutMs. A stop that takes longer is stuck, and the command line halts the process.
     */
    public long stopDeadlineMillis() {
        long producersTotal = 0;
        for (ProducerRunner p : producers) {
            producersTotal += p.producer().config().get(PluginSpec.SHUTDOWN_TIMEOUT_MS) + 1000;
        }
        return 3 * maxShutdownTimeout() + producersTotal + 5000;
    }

    private long maxShutdownTimeout() {
        long max = 1000;
        for (ProducerRunner p : producers) {
            max = Math.max(max, p.producer().config().get(PluginSpec.SHUTDOWN_TIMEOUT_MS));
        }
        return max;
    }

    private void awaitQuietly() {
        try {
            terminated.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A plugin thread failed beyond recovery (an error escaped it, its listener is gone): logged at ERROR,
     * {@code /ready} answers 503 from now on, and the failure handler (the command line's: exit non-zero) runs.
     * Only the first failure is acted on.
     */
    public void fail(String what, Throwable cause) {
        String reason = what + ": " + cause;
        synchronized (this) {
            if (failure != null) {
                log.error(reason);
                return;
            }
            failure = reason;
        }
        log.error(reason);
        onFailure.accept(reason);
    }

    /** What {@link #fail} runs after logging; the command line ends the process with a non-zero exit. */
    public void onFailure(java.util.function.Consumer<String> handler) {
        this.onFailure = handler;
    }

    /** The first failure reported through {@link #fail}, or null. */
    public String failure() {
        return failure;
    }

    /** The budget every input reserves from. */
    public MemoryBudget memory() {
        return memory;
    }

    /** Blocks until the pipeline has stopped. */
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    /** Blocks until stopped or the timeout passes; true if stopped. */
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminated.await(timeout, unit);
    }

    void markGenerated() {
        firstGenerated.compareAndSet(0, System.nanoTime());
    }

    public boolean isActive() {
        return active.get();
    }

    Log log() {
        return log;
    }

    BatchPool pool() {
        return pool;
    }

    Dispatcher dispatcher() {
        return dispatcher;
    }

    /** Counters of every consumer, router and producer, in that order. */
    public List<PluginStats> stats() {
        List<PluginStats> all = new ArrayList<>();
        consumers.forEach(c -> all.add(c.stats()));
        all.addAll(routerStats);
        producers.forEach(p -> all.add(p.stats()));
        return all;
    }

    /** The consumers' counters. */
    public List<PluginStats> consumerStats() {
        List<PluginStats> all = new ArrayList<>();
        consumers.forEach(c -> all.add(c.stats()));
        return all;
    }

    /** Every consumer and producer with its counters, for the admin API and graphs. */
    public List<PluginInfo> plugins() {
        List<PluginInfo> all = new ArrayList<>();
        for (ConsumerRunner c : consumers) {
            all.add(new PluginInfo(c.consumer().config(), c.stats(), null, c.consumer()::isReady));
        }
        for (ProducerRunner p : producers) {
            all.add(new PluginInfo(p.producer().config(), p.stats(), p.buffer(), p::isReady));
        }
        return all;
    }

    /** Whether every consumer accepts input and every producer can deliver. */
    public boolean isReady() {
        if (!active.get() || failure != null) {
            return false;
        }
        for (PluginInfo p : plugins()) {
            if (!p.ready()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Starts sampling the messages passing plugin {@code id}.
     *
     * @return false when no consumer or producer has that id
     */
    public boolean tap(String id, Tap tap) {
        for (ConsumerRunner c : consumers) {
            if (c.consumer().config().id().equals(id)) {
                c.tap(tap);
                return true;
            }
        }
        for (ProducerRunner p : producers) {
            if (p.producer().config().id().equals(id)) {
                p.tap(tap);
                return true;
            }
        }
        return false;
    }

    /** The running producers, with their queues and counters. */
    public List<ProducerRunner> producers() {
        return Collections.unmodifiableList(producers);
    }

    /** Messages discarded because no producer read their stream. */
    public long unroutedDiscarded() {
        return dispatcher.discarded();
    }

    /** Batches created so far; bounded when queues are. */
    public int batchesCreated() {
        return pool.created();
    }

    /** Nanoseconds from start to the end of stop, or to now if running. */
    public long runNanos() {
        long end = stoppedNanos == 0 ? System.nanoTime() : stoppedNanos;
        return end - startedNanos;
    }

    /** A multi-line summary of what every plugin counted, printed at shutdown. */
    public String summary() {
        // Numbers, not String.format: the summary is written on the way out (see Numbers).
        String nl = System.lineSeparator();
        StringBuilder b = new StringBuilder("summary after ").append(Numbers.fixed(runNanos() / 1e9, 3)).append(" s:");
        for (PluginStats s : stats()) {
            Numbers.appendPadded(b.append(nl).append("  "), s.id(), 24).append(' ');
            Numbers.appendPadded(b, s.type(), 22).append(" in ");
            Numbers.appendGrouped(b, s.in()).append("  out ");
            Numbers.appendGrouped(b, s.out());
            if (s.dropped() > 0) {
                Numbers.appendGrouped(b.append("  dropped "), s.dropped());
            }
            if (s.discarded() > 0) {
                Numbers.appendGrouped(b.append("  discarded "), s.discarded());
            }
            if (s.failed() > 0) {
                Numbers.appendGrouped(b.append("  failed "), s.failed());
            }
        }
        if (unroutedDiscarded() > 0) {
            Numbers.appendGrouped(b.append(nl).append("  discarded (no reader): "), unroutedDiscarded());
        }
        return b.toString();
    }
}
