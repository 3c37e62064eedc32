package io.sluice.core.pipeline;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import java.util.List;

/**
 * Decides how the batches of one stream fan out to the producers reading it. The router's own modulators
 * have already run when {@link #distribute} is called. Implementations hand batches on with {@link #send}.
 */
public abstract class Router {
    protected final PluginConfig config;
    private List<ProducerRunner> targets = List.of();
    private Dispatcher dispatcher;

    protected Router(PluginConfig config) {
        this.config = config;
    }

    /** Routes a non-empty batch; the batch is the router's and must be sent or released. */
    public abstract void distribute(Batch batch) throws InterruptedException;

    /** True for routers that forward to other streams instead of producers (they need no readers of their own). */
    public boolean forwardsToStreams() {
        return false;
    }

    /** Number of producers reading this stream. */
    protected final int targetCount() {
        return targets.size();
    }

    /** Hands a batch to producer {@code i}'s queue (blocking while it is full). */
    protected final void send(int i, Batch batch) throws InterruptedException {
        targets.get(i).enqueue(batch);
    }

    /** An empty batch carrying {@code source}'s acknowledgement. */
    protected final Batch derive(Batch source) {
        Batch b = source.pool().acquire();
        source.shareCompletion(b);
        return b;
    }

    /** A full copy of {@code source} (for broadcast), carrying its acknowledgement. */
    protected final Batch copy(Batch source) {
        Batch b = derive(source);
        for (int i = 0; i < source.size(); i++) {
            b.addCopy(source.get(i));
        }
        return b;
    }

    /** Publishes a batch anew on the stream its messages now carry (for routers that retarget, like Distribute). */
    protected final void reroute(Batch batch) throws InterruptedException {
        dispatcher.dispatch(batch);
    }

    /** Discards a batch no producer reads, counting it. */
    protected final void discard(Batch batch, String reason) {
        dispatcher.discard(batch, reason);
    }

    final void bind(List<ProducerRunner> producers, Dispatcher d) {
        this.targets = List.copyOf(producers);
        this.dispatcher = d;
    }

    final List<ProducerRunner> targets() {
        return targets;
    }

    public PluginConfig config() {
        return config;
    }
}
