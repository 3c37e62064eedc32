package io.sluice.core.pipeline;

import io.sluice.core.config.PluginConfig;

/**
 * Reads events from outside and publishes them, in batches, through {@link ConsumerContext#publish}.
 * {@link #consume} runs on a thread of its own; publishing blocks while the queues behind are full,
 * which is how backpressure reaches the source.
 */
public abstract class Consumer {
    protected final PluginConfig config;

    protected Consumer(PluginConfig config) {
        this.config = config;
    }

    /** Reads and publishes until {@link ConsumerContext#isActive()} turns false or the source ends. */
    public abstract void consume(ConsumerContext ctx) throws Exception;

    /** Asks a blocked {@link #consume} to return (close sockets, stop waiting). Called once at shutdown. */
    public void stop() {
    }

    /** True when the end of this consumer's input ends the whole process (Profiler with KeepRunning false). */
    public boolean endsPipeline() {
        return false;
    }

    /** Whether the consumer is accepting input (listening, connected); {@code /ready} reports it. */
    public boolean isReady() {
        return true;
    }

    public PluginConfig config() {
        return config;
    }
}
