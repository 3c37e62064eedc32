package io.sluice.core.pipeline;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginSpec;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The {@code Retry/*} group as one object: how often a retryable delivery failure is retried and how long to wait
 * before each attempt. One policy for every producer, so that {@code Retry/Max}, {@code Retry/BackoffMs} and
 * {@code Retry/MaxBackoffMs} mean the same everywhere.
 *
 * <p>Attempts are counted from 0 (the first delivery). The pause before retrying attempt {@code n} is exponential
 * with jitter, {@code cap/2 + random(0..cap/2)} where {@code cap = min(MaxBackoffMs, BackoffMs * 2^n)}, so many
 * senders do not retry in step; a server that named the least time to wait ({@link RetryLaterException}) is never
 * retried sooner than that. Immutable and thread-safe.
 */
public final class RetryPolicy {
    /** {@link #maxRetries()} of a policy that retries without end. */
    public static final int FOREVER = -1;

    private final int maxRetries;
    private final long backoffMillis;
    private final long maxBackoffMillis;

    /**
     * A policy retrying {@code maxRetries} times ({@link #FOREVER} or any negative number: without end), waiting
     * {@code backoffMillis} (at least 1) first and doubling up to {@code maxBackoffMillis} (at least the first wait).
     */
    public RetryPolicy(int maxRetries, long backoffMillis, long maxBackoffMillis) {
        this.maxRetries = maxRetries < 0 ? FOREVER : maxRetries;
        this.backoffMillis = Math.max(1, backoffMillis);
        this.maxBackoffMillis = Math.max(this.backoffMillis, maxBackoffMillis);
    }

    /** The policy a producer's {@code Retry/Max}, {@code Retry/BackoffMs} and {@code Retry/MaxBackoffMs} set. */
    public static RetryPolicy of(PluginConfig config) {
        return new RetryPolicy(config.get(PluginSpec.RETRY_MAX), config.get(PluginSpec.RETRY_BACKOFF_MS),
                config.get(PluginSpec.RETRY_MAX_BACKOFF_MS));
    }

    /** Retries after the first attempt before giving up, or {@link #FOREVER}. */
    public int maxRetries() {
        return maxRetries;
    }

    /** Whether a retryable failure of attempt {@code attempt} (0 = the first delivery) is to be retried. */
    public boolean retries(int attempt) {
        return maxRetries == FOREVER || attempt < maxRetries;
    }

    /** The pause before retrying after attempt {@code attempt} failed: exponential, capped, with jitter. */
    public long backoffMillis(int attempt) {
        long cap = Math.min(maxBackoffMillis, backoffMillis << Math.min(attempt, 20));
        return cap / 2 + ThreadLocalRandom.current().nextLong(cap / 2 + 1);
    }

    /**
     * The pause before retrying after attempt {@code attempt} failed with {@code failure}: {@link #backoffMillis},
     * but at least what the server named ({@link RetryLaterException#retryAfterMillis()}: Retry-After, RetryInfo).
     */
    public long delayMillis(int attempt, Throwable failure) {
        long serverMin = failure instanceof RetryLaterException later ? later.retryAfterMillis() : 0;
        return Math.max(backoffMillis(attempt), serverMin);
    }

    /** Sleeps {@link #delayMillis} before the next attempt. */
    public void pause(int attempt, Throwable failure) throws InterruptedException {
        Thread.sleep(delayMillis(attempt, failure));
    }
}
