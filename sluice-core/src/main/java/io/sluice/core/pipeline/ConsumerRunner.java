package io.sluice.core.pipeline;

import io.sluice.core.Daemon;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one consumer on its own thread and implements its {@link ConsumerContext}: stream assignment, the
 * consumer's modulators (inline, or on {@code ModulatorRoutines} threads fed by a bounded queue) and dispatch.
 */
final class ConsumerRunner implements ConsumerContext {
    private final Consumer consumer;
    private final PluginConfig config;
    private final Pipeline pipeline;
    private final PluginStats stats;
    private final int[] streams;
    private final int fallbackStream;
    private final int routines;
    private final BatchQueue modulatorQueue;
    /** Consumers may publish from several threads (one per connection): each thread gets its own modulators. */
    private final ThreadLocal<ModulatorChain> inlineChain;
    private final List<Thread> routineThreads = new ArrayList<>();
    private Thread thread;
    private volatile Tap tap;
    private volatile boolean routinesStop;
    /** Replaced or removed by a reload: its end does not count toward the pipeline's end. */
    private volatile boolean retired;
    private boolean generatedMarked;

    ConsumerRunner(Consumer consumer, Pipeline pipeline, PluginStats stats) {
        this.consumer = consumer;
        this.config = consumer.config();
        this.pipeline = pipeline;
        this.stats = stats;
        this.streams = config.get(PluginSpec.STREAMS).stream().mapToInt(Streams::id).toArray();
        this.fallbackStream = Streams.id(config.get(PluginSpec.FALLBACK_STREAM));
        this.routines = config.get(PluginSpec.MODULATOR_ROUTINES);
        boolean hasModulators = !config.get(PluginSpec.MODULATORS).isEmpty();
        this.modulatorQueue = routines > 0 && hasModulators ? new BatchQueue(config.get(PluginSpec.MODULATOR_QUEUE_SIZE)) : null;
        this.inlineChain = ThreadLocal.withInitial(() -> new ModulatorChain(config.get(PluginSpec.MODULATORS), fallbackStream));
    }

    /** Claims the consumer's listener or files on the starting thread; see {@link Consumer#open}. */
    void open() {
        try {
            consumer.open(this);
        } catch (StartException e) {
            throw e;
        } catch (Exception e) {
            throw new StartException(config.id(), e);
        }
    }

    void start() {
        if (modulatorQueue != null) {
            for (int i = 0; i < routines; i++) {
                ModulatorChain chain = new ModulatorChain(config.get(PluginSpec.MODULATORS), fallbackStream);
                routineThreads.add(Daemon.start("modulator-" + config.id() + "-" + i, () -> routine(chain)));
            }
        }
        thread = Daemon.start("consumer-" + config.id(), this::run);
    }

    private void run() {
        try {
            consumer.consume(this);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            // A consumer that stops by error leaves an input nobody serves: never half-alive, the process ends.
            if (pipeline.isActive()) {
                pipeline.fail(config.id() + ": consumer failed", e);
            }
        } finally {
            pipeline.consumerDone(this);
        }
    }

    private void routine(ModulatorChain chain) {
        try {
            Batch b;
            while ((b = modulatorQueue.poll(100, TimeUnit.MILLISECONDS)) != null || !routinesStop) {
                if (b != null) {
                    modulateAndDispatch(b, chain);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            pipeline.fail(config.id() + ": modulator thread failed", e);
        }
    }

    @Override
    public Batch newBatch() {
        if (!generatedMarked) {
            generatedMarked = true;
            pipeline.markGenerated();
        }
        return pipeline.pool().acquire();
    }

    @Override
    public void publish(Batch batch) throws InterruptedException {
        int n = batch.size();
        if (n == 0) {
            batch.release();
            return;
        }
        stats.addIn(n);
        if (!batch.holdsMemory()) {
            // An input that reserved nothing (a generator, a file, a queue) is charged what its messages hold,
            // and waits here for room: that is its backpressure.
            MemoryBudget memory = pipeline.memory();
            long bytes = MemoryBudget.bytesOf(batch);
            memory.reserve(bytes, 0);
            batch.holdMemory(memory, bytes);
        }
        Batch[] copies = copiesForExtraStreams(batch);
        assignStream(batch, streams[0]);
        handOff(batch);
        for (int s = 1; s < streams.length; s++) {
            assignStream(copies[s], streams[s]);
            handOff(copies[s]);
        }
    }

    /** A consumer writing to several streams sends a copy to each, as Gollum does. */
    private Batch[] copiesForExtraStreams(Batch batch) {
        if (streams.length == 1) {
            return null;
        }
        Batch[] copies = new Batch[streams.length];
        for (int s = 1; s < streams.length; s++) {
            Batch c = batch.pool().acquire();
            batch.shareCompletion(c);
            for (int i = 0; i < batch.size(); i++) {
                c.addCopy(batch.get(i));
            }
            copies[s] = c;
        }
        return copies;
    }

    private static void assignStream(Batch batch, int stream) {
        for (int i = 0; i < batch.size(); i++) {
            Message m = batch.get(i);
            if (m.stream() == Streams.WILDCARD) {
                m.setStream(stream);
            }
        }
    }

    private void handOff(Batch batch) throws InterruptedException {
        if (modulatorQueue != null) {
            if (!modulatorQueue.put(batch, 0)) {
                // Closed while shutting down: the source is told it failed, so it does not acknowledge the batch.
                batch.fail();
            }
        } else {
            modulateAndDispatch(batch, inlineChain.get());
        }
    }

    private void modulateAndDispatch(Batch batch, ModulatorChain chain) throws InterruptedException {
        chain.apply(batch, pipeline.dispatcher(), stats);
        Tap t = tap;
        if (t != null && !t.offer(batch)) {
            tap = null;
        }
        stats.addOut(batch.size());
        pipeline.dispatcher().dispatch(batch);
    }

    @Override
    public boolean isActive() {
        return pipeline.isActive();
    }

    @Override
    public Log log() {
        return pipeline.log();
    }

    @Override
    public MemoryBudget memory() {
        return pipeline.memory();
    }

    /** Asks the consumer to stop and waits for it and its routines. */
    void stop(long timeoutMillis) throws InterruptedException {
        consumer.stop();
        if (thread == null) {
            return; // the start stopped before this consumer ran (another plugin could not start)
        }
        thread.join(timeoutMillis);
        if (thread.isAlive()) {
            pipeline.log().warn(config.id() + ": did not stop within " + timeoutMillis + " ms, interrupting");
            thread.interrupt();
            thread.join(timeoutMillis);
        }
        routinesStop = true;
        if (modulatorQueue != null) {
            modulatorQueue.close();
        }
        for (Thread t : routineThreads) {
            t.join(timeoutMillis);
        }
    }

    /** Samples the next messages this consumer publishes (after its modulators). */
    void tap(Tap t) {
        this.tap = t;
    }

    /** Stops a consumer a reload replaced or removed. */
    void retire(long timeoutMillis) throws InterruptedException {
        retired = true;
        stop(timeoutMillis);
    }

    boolean retired() {
        return retired;
    }

    boolean endsPipeline() {
        return consumer.endsPipeline();
    }

    @Override
    public PluginStats stats() {
        return stats;
    }

    Consumer consumer() {
        return consumer;
    }
}
