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

    /**
     * Claims what the consumer needs from the machine (binds its listening socket, opens its files) on the
     * starting thread, before any consumer runs: a port in use or an unreadable path then stops the start with a
     * clear error (exit code 2) instead of leaving a process that accepts nothing. Called once, before
     * {@link #consume}; the default claims nothing.
     */
    public void open(ConsumerContext ctx) throws Exception {
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
