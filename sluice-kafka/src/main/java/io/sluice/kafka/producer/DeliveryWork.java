package io.sluice.kafka.producer;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RetriableException;

/**
 * One delivering thread's scratch, reused from batch to batch: the futures of the records in flight, which
 * records are still to send, which failed and why, and the topic cache. Also cuts a batch down to its failed
 * records, so that only they are retried or sent to the fallback stream.
 */
final class DeliveryWork {
    @SuppressWarnings("unchecked")
    Future<RecordMetadata>[] futures = (Future<RecordMetadata>[]) new Future<?>[0];
    /** Batch indices of the records to send in this attempt. */
    int[] idx = new int[0];
    private int[] failed = new int[0];
    private String[] reasons = new String[0];
    private boolean[] retriable = new boolean[0];
    final TopicTemplate.Cache topics = new TopicTemplate.Cache();

    /** Makes room for a batch of {@code n} messages. */
    void ensure(int n) {
        if (idx.length < n) {
            futures = Arrays.copyOf(futures, n);
            idx = new int[n];
            failed = new int[n];
            reasons = new String[n];
            retriable = new boolean[n];
        }
    }

    /** Records failure number {@code j}: the batch index of its message and the error. */
    void fail(int j, int index, Throwable e) {
        failed[j] = index;
        retriable[j] = e instanceof RetriableException;
        reasons[j] = e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /** The reason of failure number {@code j}, in the order they were recorded. */
    String reason(int j) {
        return reasons[j];
    }

    /** Whether none of the first {@code n} failures is retriable. */
    boolean allPermanent(int n) {
        for (int j = 0; j < n; j++) {
            if (retriable[j]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Moves the {@code n} failed messages to the front of the batch, in their original order, tags each with the
     * reason in {@code errorField} and cuts the batch after them: the pipeline then routes only these to the
     * fallback stream.
     */
    void keepOnlyFailed(Batch batch, int n, byte[] errorField) {
        sortByIndex(n);
        for (int j = 0; j < n; j++) {
            batch.swap(j, failed[j]);
            byte[] reason = reasons[j].getBytes(StandardCharsets.UTF_8);
            batch.get(j).metadata().set(errorField, 0, errorField.length, reason, 0, reason.length, Metadata.STRING);
        }
        batch.truncate(n);
    }

    private void sortByIndex(int n) {
        for (int i = 1; i < n; i++) {
            int v = failed[i];
            String r = reasons[i];
            int j = i - 1;
            while (j >= 0 && failed[j] > v) {
                failed[j + 1] = failed[j];
                reasons[j + 1] = reasons[j];
                j--;
            }
            failed[j + 1] = v;
            reasons[j + 1] = r;
        }
    }
}
