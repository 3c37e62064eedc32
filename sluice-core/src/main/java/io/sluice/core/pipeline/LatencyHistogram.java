package io.sluice.core.pipeline;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Batch send latency in fixed buckets (Prometheus histogram style), recorded once per batch with no
 * allocation: one array index and two atomic adds.
 */
public final class LatencyHistogram {
    /** Upper bounds in seconds; the last bucket is +Inf. */
    public static final double[] BOUNDS = {0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5};
    private static final long[] BOUNDS_NANOS = Arrays.stream(BOUNDS).mapToLong(b -> (long) (b * 1e9)).toArray();

    private final AtomicLongArray counts = new AtomicLongArray(BOUNDS.length + 1);
    private final java.util.concurrent.atomic.AtomicLong sumNanos = new java.util.concurrent.atomic.AtomicLong();

    /** Records one observation. */
    public void record(long nanos) {
        int i = 0;
        while (i < BOUNDS_NANOS.length && nanos > BOUNDS_NANOS[i]) {
            i++;
        }
        counts.incrementAndGet(i);
        sumNanos.addAndGet(nanos);
    }

    /** Observations in bucket {@code i} (not cumulative); bucket {@code BOUNDS.length} is +Inf. */
    public long bucket(int i) {
        return counts.get(i);
    }

    /** Sum of all observations in seconds. */
    public double sumSeconds() {
        return sumNanos.get() / 1e9;
    }

    /** Number of observations. */
    public long count() {
        long n = 0;
        for (int i = 0; i < counts.length(); i++) {
            n += counts.get(i);
        }
        return n;
    }
}
