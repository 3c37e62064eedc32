package io.sluice.core.pipeline;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import java.util.List;

/**
 * The modulators of one plugin, instantiated for one thread. Applying it to a batch runs every modulator on
 * every message, keeps the passing ones in order, and sends dropped ones to the plugin's fallback stream.
 */
final class ModulatorChain {
    /** A message re-routed more often than this is in a routing loop: it is discarded and counted. */
    static final int MAX_HOPS = 8;

    private final Modulator[] modulators;
    private final int fallbackStream;

    ModulatorChain(List<PluginConfig> configs, int fallbackStream) {
        this.modulators = Modulator.of(configs);
        this.fallbackStream = fallbackStream;
    }

    boolean isEmpty() {
        return modulators.length == 0;
    }

    /**
     * Modulates the batch in place. Dropped messages move to a new batch that is dispatched on the fallback
     * stream; discarded ones are counted. Returns with the batch holding the messages that passed.
     */
    void apply(Batch batch, Dispatcher dispatcher, PluginStats stats) throws InterruptedException {
        if (modulators.length == 0) {
            return;
        }
        Batch dropped = null;
        int kept = 0;
        int discarded = 0;
        int n = batch.size();
        for (int i = 0; i < n; i++) {
            Message m = batch.get(i);
            int streamBefore = m.stream();
            Modulator.Result r = modulate(m);
            if (r == Modulator.Result.CONTINUE) {
                if (i != kept) {
                    batch.swap(i, kept);
                }
                kept++;
            } else if (r == Modulator.Result.DROP && m.addHop() <= MAX_HOPS) {
                if (dropped == null) {
                    dropped = batch.pool().acquire();
                    batch.shareCompletion(dropped);
                }
                if (m.stream() == streamBefore) {
                    // The filter chose no stream of its own (FilteredStream): the plugin's fallback takes it.
                    m.setStream(fallbackStream);
                }
                batch.moveTo(i, dropped);
            } else {
                discarded++;
            }
        }
        batch.truncate(kept);
        if (discarded > 0) {
            stats.addDiscarded(discarded);
        }
        if (dropped != null) {
            stats.addDropped(dropped.size());
            dispatcher.dispatch(dropped);
        }
    }

    private Modulator.Result modulate(Message m) {
        Modulator.Result r = Modulator.Result.CONTINUE;
        for (Modulator mod : modulators) {
            r = mod.modulate(m);
            if (r != Modulator.Result.CONTINUE) {
                break;
            }
        }
        // A payload the last formatter left pending refers to that formatter's state, which belongs to this
        // thread and is reused for the next message: write it before the message goes anywhere else.
        m.writePending();
        return r;
    }
}
