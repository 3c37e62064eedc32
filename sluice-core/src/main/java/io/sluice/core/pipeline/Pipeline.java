package io.sluice.core.pipeline;

import io.sluice.core.Daemon;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.Streams;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A running set of consumers, routers and producers built from validated configs.
 * Lifecycle: {@link #start()}, then {@link #stop()} (or the end of every consumer that ends the pipeline):
 * stop consumers, drain queues, flush producers, report. {@link #reload} changes it while it runs ({@link Reloader}).
 * It stays one class of about 470 lines because it owns the lists of running plugins that start, stop, reload and the
 * admin views all read: split, they would need a shared mutable holder that says less.
 */
public final class Pipeline {
    private final Log log;
    private final BatchPool pool;
    private final MemoryBudget memory;
    private volatile String failure;
    private volatile java.util.function.Consumer<String> onFailure = reason -> { };
    private final Dispatcher dispatcher;
    private final PluginRegistry registry;
    /** What runs now; replaced whole (never changed in place) by a reload, under {@link #changeLock}. */
    private volatile List<ConsumerRunner> consumers = List.of();
    private volatile List<ProducerRunner> producers = List.of();
    private volatile List<Dispatcher.RouteEntry> routers = List.of();
    private volatile List<PluginConfig> configs;
    /** Held by a reload and by the stop, so that they never interleave. */
    private final java.util.concurrent.locks.ReentrantLock changeLock = new java.util.concurrent.locks.ReentrantLock();
    private final Reloads reloads = new Reloads();
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
        this.registry = registry;
        this.dispatcher = new Dispatcher(registry, log);
        this.configs = List.copyOf(configs);
        configs.forEach(c -> c.deprecations().forEach(log::warn));
        List<ProducerRunner> ps = enabled(configs, PluginKind.PRODUCER).stream()
                .map(c -> newProducer(c, new PluginStats(c.id(), c.type()))).toList();
        this.routers = enabled(configs, PluginKind.ROUTER).stream()
                .map(c -> dispatcher.newRoute((Router) c.spec().create(c), null, new PluginStats(c.id(), c.type()), ps))
                .toList();
        this.consumers = enabled(configs, PluginKind.CONSUMER).stream()
                .map(c -> newConsumer(c, new PluginStats(c.id(), c.type()))).toList();
        validateChains(configs);
        this.producers = ps;
        dispatcher.install(producers, routers);
    }

    /** The enabled plugins of one kind, in config order. */
    static List<PluginConfig> enabled(List<PluginConfig> configs, PluginKind kind) {
        return configs.stream().filter(c -> c.get(PluginSpec.ENABLE) && c.spec().kind() == kind).toList();
    }

    /** Builds each modulator chain once, so that a bad modulator setting fails before anything starts. */
    static void validateChains(List<PluginConfig> configs) {
        configs.stream().filter(c -> c.get(PluginSpec.ENABLE) && c.spec().kind() != PluginKind.MODULATOR)
                .forEach(c -> new ModulatorChain(c.get(PluginSpec.MODULATORS), Streams.DROPPED));
    }

    ProducerRunner newProducer(PluginConfig c, PluginStats stats) {
        return new ProducerRunner((Producer) c.spec().create(c), stats);
    }

    ConsumerRunner newConsumer(PluginConfig c, PluginStats stats) {
        return new ConsumerRunner((Consumer) c.spec().create(c), this, stats);
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
            producers.forEach(this::startProducer);
            consumers.forEach(ConsumerRunner::open);
        } catch (StartException e) {
            stop();
            throw e;
        }
        endingConsumersLeft.set((int) consumers.stream().filter(ConsumerRunner::endsPipeline).count());
        consumers.forEach(ConsumerRunner::start);
    }

    void startProducer(ProducerRunner p) {
        p.start(dispatcher, log, producerContext(p.stats()), pool, this::fail);
    }

    private ProducerContext producerContext(PluginStats stats) {
        return ProducerContext.of(log, stats, firstGenerated::get);
    }

    void consumerDone(ConsumerRunner c) {
        if (c.endsPipeline() && !c.retired() && endingConsumersLeft.decrementAndGet() == 0) {
            log.info("every message was generated; shutting down");
            Daemon.start("shutdown", this::stop);
        }
    }

    /**
     * Graceful stop: consumers stop, queues drain, producers flush and close. Idempotent; a second caller
     * waits for the first to finish.
     */
    public void stop() {
        if (!stopping.compareAndSet(false, true)) {
            try {
                terminated.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        active.set(false);
        changeLock.lock(); // a reload under way finishes first; none starts after this
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
            changeLock.unlock();
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
        long producersTotal = producers.stream()
                .mapToLong(p -> p.producer().config().get(PluginSpec.SHUTDOWN_TIMEOUT_MS) + 1000).sum();
        return 3 * maxShutdownTimeout() + producersTotal + 5000;
    }

    /** The longest ShutdownTimeoutMs, at least a second; also how long a reload waits for a replaced consumer. */
    long maxShutdownTimeout() {
        return producers.stream().mapToLong(p -> p.producer().config().get(PluginSpec.SHUTDOWN_TIMEOUT_MS))
                .reduce(1000, Math::max);
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
        routers.forEach(r -> all.add(r.stats));
        producers.forEach(p -> all.add(p.stats()));
        return all;
    }

    /**
     * Changes the running pipeline to {@code next} without a restart: plugins whose settings did not change keep
     * running untouched; new and changed ones are built first (a bad setting changes nothing), producers are started
     * before the routes switch to them, the ones they replace are drained and stopped, then changed consumers are
     * swapped, a listener on an unchanged address keeping its socket. Nothing accepted is lost: a batch that reaches
     * a replaced producer after the switch is routed again. Serialized with other reloads and with {@link #stop()}.
     *
     * @param load reads and validates the new config (as the first was read); a {@link ConfigException} it throws
     *     refuses the reload
     * @return what changed, or why nothing did
     */
    public ReloadResult reload(java.util.function.Supplier<List<PluginConfig>> load) {
        changeLock.lock();
        try {
            if (stopping.get() || !active.get()) {
                return reloads.count(ReloadResult.failed("the pipeline is not running"));
            }
            List<PluginConfig> next;
            try {
                next = load.get();
            } catch (ConfigException e) {
                return reloads.count(ReloadResult.failed(e.getMessage()));
            }
            ReloadResult r = new Reloader(this).apply(next);
            if (r.ok()) {
                configs = List.copyOf(next);
            }
            return reloads.count(r);
        } finally {
            changeLock.unlock();
        }
    }

    /** Reloads tried, and their outcomes. */
    public Reloads reloads() {
        return reloads;
    }

    /** The config running now (the last one a reload applied). */
    public List<PluginConfig> configs() {
        return configs;
    }

    List<ConsumerRunner> consumerRunners() {
        return consumers;
    }

    List<Dispatcher.RouteEntry> routes() {
        return routers;
    }

    /** Installs what a reload built: the dispatcher's routes first, so that new batches reach the new producers. */
    void replace(List<ProducerRunner> ps, List<Dispatcher.RouteEntry> rs) {
        producers = List.copyOf(ps);
        routers = List.copyOf(rs);
        dispatcher.install(producers, routers);
    }

    void replaceConsumers(List<ConsumerRunner> cs) {
        consumers = List.copyOf(cs);
    }

    /** A consumer started by a reload that ends the pipeline when it is done (a generator) is counted. */
    void addEndingConsumer() {
        endingConsumersLeft.incrementAndGet();
    }

    /** The consumers' counters. */
    public List<PluginStats> consumerStats() {
        return consumers.stream().map(ConsumerRunner::stats).toList();
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
        return active.get() && failure == null && plugins().stream().allMatch(PluginInfo::ready);
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
        return producers;
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
        return Summary.of(this);
    }
}
