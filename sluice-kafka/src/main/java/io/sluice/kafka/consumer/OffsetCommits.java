package io.sluice.kafka.consumer;

import io.sluice.core.pipeline.Log;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * When and how a group member commits what its {@link OffsetTracker} allows: asynchronously every
 * {@code PresistTimoutMs} from the poll loop, synchronously at revocation and shutdown (after waiting up to
 * {@code CommitTimeoutMs} for the batches in flight). Runs on the poll thread only.
 */
final class OffsetCommits {
    private final OffsetTracker tracker;
    private final String id;
    private final long intervalNanos;
    private final long timeoutMs;
    private Log log;
    private long lastNanos;

    OffsetCommits(OffsetTracker tracker, String id, long intervalNanos, long timeoutMs) {
        this.tracker = tracker;
        this.id = id;
        this.intervalNanos = intervalNanos;
        this.timeoutMs = timeoutMs;
    }

    /** Where commit failures are logged; set before anything is committed. */
    void logTo(Log log) {
        this.log = log;
    }

    /** Starts the commit clock, once reading starts. */
    void start() {
        this.lastNanos = System.nanoTime();
    }

    /** Commits asynchronously once the interval has passed since the last commit. */
    void maybeCommit(Consumer<ByteBuffer, ByteBuffer> c) {
        if (System.nanoTime() - lastNanos < intervalNanos) {
            return;
        }
        lastNanos = System.nanoTime();
        Map<TopicPartition, OffsetAndMetadata> offsets = tracker.committable(null);
        if (offsets == null) {
            return;
        }
        tracker.committed(offsets);
        c.commitAsync(offsets, (done, error) -> {
            if (error != null) {
                log.warn(id + ": offset commit failed, retrying with the next one: " + error);
                tracker.commitFailed(done == null ? offsets : done);
            }
        });
    }

    /** Commits synchronously what completed for {@code only} (all if null); used at revocation and shutdown. */
    void commitSync(Consumer<ByteBuffer, ByteBuffer> c, Collection<TopicPartition> only) {
        Map<TopicPartition, OffsetAndMetadata> offsets = tracker.committable(only);
        if (offsets == null) {
            return;
        }
        try {
            c.commitSync(offsets, Duration.ofMillis(Math.max(1000, timeoutMs)));
            tracker.committed(offsets);
        } catch (WakeupException e) {
            // stop() woke the client during the commit: try once more, the wake-up is used up.
            c.commitSync(offsets, Duration.ofMillis(Math.max(1000, timeoutMs)));
            tracker.committed(offsets);
        } catch (KafkaException e) {
            log.warn(id + ": offset commit failed; the records after the last commit will be read again: " + e);
        }
    }

    /** Revocation: waits for the revoked partitions' batches in flight, commits them and forgets them. */
    void revoked(Consumer<ByteBuffer, ByteBuffer> c, Collection<TopicPartition> revoked) {
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            if (!tracker.awaitDone(revoked, deadline)) {
                log.warn(id + ": partitions " + revoked + " revoked with batches still in flight after "
                        + timeoutMs + " ms; their new owner reads them again");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        commitSync(c, revoked);
        tracker.remove(revoked);
    }

    /** Shutdown: waits until {@code deadline} for every batch in flight, then commits what completed. */
    void last(Consumer<ByteBuffer, ByteBuffer> c, long deadline) throws InterruptedException {
        if (!tracker.awaitDone(null, deadline)) {
            log.warn(id + ": batches still in flight after " + timeoutMs + " ms; their records will be read again");
        }
        commitSync(c, null);
    }
}
