package io.sluice.kafka.consumer;

import io.sluice.core.message.Completion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Which offsets may be committed: every published batch carries an {@link Ack} (its {@link Completion}) that
 * records, per partition, the offset after its last record. Batches complete in any order (several producers,
 * several workers), so a partition's committable offset is that of the longest run of completed batches from
 * the oldest one still tracked. All methods but {@link Ack#onComplete} run on the poll thread; the only state
 * shared with the producers' threads is each ack's volatile {@code done} flag and the {@link #progress} monitor.
 */
final class OffsetTracker {
    /** Signalled when an ack completes, for the poll thread waiting at revocation or shutdown. */
    final Object progress = new Object();
    private volatile boolean waiting;
    private final Map<TopicPartition, Partition> partitions = new HashMap<>();

    /** Per-partition state: acks in publish order, and what was committed. */
    static final class Partition {
        final TopicPartition tp;
        final byte[] topicBytes;
        final byte[] partitionDigits;
        final ArrayDeque<Ack> inflight = new ArrayDeque<>();
        long committable = -1;
        long committed = -1;

        Partition(TopicPartition tp) {
            this.tp = tp;
            this.topicBytes = tp.topic().getBytes(StandardCharsets.UTF_8);
            this.partitionDigits = Integer.toString(tp.partition()).getBytes(StandardCharsets.US_ASCII);
        }
    }

    /** A batch's acknowledgement: which partitions it holds records of, and the offset after each one's last. */
    final class Ack extends Completion {
        private Partition[] parts = new Partition[2];
        private long[] next = new long[2];
        private int count;
        volatile boolean done;
        volatile boolean cancelled;

        /** Records that this batch holds partition {@code p} up to (but not including) offset {@code nextOffset}. */
        void note(Partition p, long nextOffset) {
            if (count > 0 && parts[count - 1] == p) {
                next[count - 1] = nextOffset;
                return;
            }
            if (count == parts.length) {
                parts = Arrays.copyOf(parts, count * 2);
                next = Arrays.copyOf(next, count * 2);
            }
            parts[count] = p;
            next[count++] = nextOffset;
        }

        /** Puts this ack in the queue of every partition it holds; called once, before the batch is published. */
        void register() {
            for (int i = 0; i < count; i++) {
                parts[i].inflight.addLast(this);
            }
        }

        long nextOffset(Partition p) {
            for (int i = 0; i < count; i++) {
                if (parts[i] == p) {
                    return next[i];
                }
            }
            return -1;
        }

        @Override
        protected void onComplete() {
            done = true;
            if (waiting) {
                synchronized (progress) {
                    progress.notifyAll();
                }
            }
        }
    }

    Ack newAck() {
        return new Ack();
    }

    /** The state of a partition, created on first sight. */
    Partition partition(TopicPartition tp) {
        return partitions.computeIfAbsent(tp, Partition::new);
    }

    /** Forgets partitions this consumer no longer owns; their acks may complete later and are then ignored. */
    void remove(Collection<TopicPartition> tps) {
        for (TopicPartition tp : tps) {
            partitions.remove(tp);
        }
    }

    /**
     * Advances each partition past its completed acks and returns the offsets not yet committed (of
     * {@code only} if not null), or null if there are none. Cancelled acks (polled but never published) stop
     * the advance: their records must be read again.
     */
    Map<TopicPartition, OffsetAndMetadata> committable(Collection<TopicPartition> only) {
        Map<TopicPartition, OffsetAndMetadata> out = null;
        for (Partition p : partitions.values()) {
            if (only != null && !only.contains(p.tp)) {
                continue;
            }
            Ack head;
            while ((head = p.inflight.peekFirst()) != null && head.done && !head.cancelled) {
                p.committable = head.nextOffset(p);
                p.inflight.pollFirst();
            }
            if (p.committable > p.committed) {
                if (out == null) {
                    out = new HashMap<>();
                }
                out.put(p.tp, new OffsetAndMetadata(p.committable));
            }
        }
        return out;
    }

    /** Marks offsets as committed (after a successful commit, or optimistically before an async one). */
    void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
            Partition p = partitions.get(e.getKey());
            if (p != null) {
                p.committed = Math.max(p.committed, e.getValue().offset());
            }
        }
    }

    /** An async commit failed: commit these partitions again next time. */
    void commitFailed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        for (TopicPartition tp : offsets.keySet()) {
            Partition p = partitions.get(tp);
            if (p != null) {
                p.committed = -1;
            }
        }
    }

    /** True while a published (not cancelled) batch of one of these partitions (all if null) is not done. */
    boolean inFlight(Collection<TopicPartition> only) {
        for (Partition p : partitions.values()) {
            if (only != null && !only.contains(p.tp)) {
                continue;
            }
            for (Ack a : p.inflight) {
                if (a.cancelled) {
                    break;
                }
                if (!a.done) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Waits until no batch of these partitions is in flight, or the deadline passes; true if none is. */
    boolean awaitDone(Collection<TopicPartition> only, long deadlineNanos) throws InterruptedException {
        waiting = true;
        try {
            while (inFlight(only)) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                synchronized (progress) {
                    // Bounded wait: a completion between the check and the wait is seen on the next round.
                    progress.wait(Math.max(1, Math.min(50, left / 1_000_000)));
                }
            }
            return true;
        } finally {
            waiting = false;
        }
    }
}
