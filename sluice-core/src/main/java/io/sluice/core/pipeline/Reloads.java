package io.sluice.core.pipeline;

import java.util.concurrent.atomic.AtomicLong;

/** Counts of reloads by outcome, and the last one, for {@code /metrics} and the log. */
public final class Reloads {
    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong unchanged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile ReloadResult last;

    ReloadResult count(ReloadResult r) {
        (!r.ok() ? failed : r.changed() ? applied : unchanged).incrementAndGet();
        last = r;
        return r;
    }

    /** Reloads that changed the running pipeline. */
    public long applied() {
        return applied.get();
    }

    /** Reloads of a config equal to the running one. */
    public long unchanged() {
        return unchanged.get();
    }

    /** Reloads refused (a bad config, a plugin that could not start): the pipeline ran on as it was. */
    public long failed() {
        return failed.get();
    }

    /** Whether the last reload, if any, succeeded. */
    public boolean lastSucceeded() {
        ReloadResult r = last;
        return r == null || r.ok();
    }
}
