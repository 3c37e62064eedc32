package io.sluice.hec.producer;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.PermanentDeliveryException;
import io.sluice.hec.codec.HecEncoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * What {@code producer.SplunkHEC} could not deliver: the failed messages of a batch, kept in it and tagged with
 * {@code hec_error_status}, {@code hec_error_code} and {@code hec_error_text}, and the exception that tells the
 * pipeline whether retrying can help (else they go to the fallback stream).
 */
final class Undelivered {
    private static final byte[] K_STATUS = "hec_error_status".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] K_CODE = "hec_error_code".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] K_TEXT = "hec_error_text".getBytes(StandardCharsets.US_ASCII);

    private Undelivered() {
    }

    /**
     * Whether a failure is one no retry can fix: a 4xx other than 408 and 429 (413 included, which reaches here
     * only for a single event), or a local refusal (an event over MaxEventSize or alone over MaxContentLength).
     * Giving up after retries or unanswered indexer acks is not: the pipeline's Retry/* policy decides then.
     */
    private static boolean permanent(int status, String why) {
        if (status >= 400 && status < 500) {
            return status != 408 && status != 429;
        }
        return status == 0 && !why.startsWith(RequestSender.GAVE_UP) && !why.startsWith(RequestSender.NOT_ACKED);
    }

    /**
     * Keeps only the failed messages in the batch, tagged with why, and returns the exception that makes the
     * pipeline route them to the fallback stream: a {@link PermanentDeliveryException} when no retry can help
     * any of them (so a rejected event does not block a worker under {@code Retry/Max: -1}), else an
     * IOException the pipeline retries. The delivered ones are removed so they are not sent twice. {@code base} is
     * the number of the batch's first message in the encoder; returns null when none of its messages failed.
     */
    static Exception moveFailed(Batch batch, HecEncoder enc, int base) {
        if (enc.failedMessages() == 0) {
            return null;
        }
        int kept = 0;
        String first = null;
        // Failures come in runs (a whole request shares one reason): encode each distinct reason once.
        String lastWhy = null;
        boolean permanent = true;
        int lastStatus = Integer.MIN_VALUE;
        int lastCode = Integer.MIN_VALUE;
        byte[] status = null;
        byte[] code = null;
        byte[] text = null;
        for (int i = 0; i < batch.size(); i++) {
            int mi = base + i;
            String why = enc.failure(mi);
            if (why == null) {
                continue;
            }
            if (first == null) {
                first = why;
            }
            permanent &= permanent(enc.failureStatus(mi), why);
            if (why != lastWhy) {
                lastWhy = why;
                text = why.getBytes(StandardCharsets.UTF_8);
            }
            if (enc.failureStatus(mi) != lastStatus) {
                lastStatus = enc.failureStatus(mi);
                status = Integer.toString(lastStatus).getBytes(StandardCharsets.US_ASCII);
            }
            if (enc.failureCode(mi) != lastCode) {
                lastCode = enc.failureCode(mi);
                code = Integer.toString(lastCode).getBytes(StandardCharsets.US_ASCII);
            }
            Metadata md = batch.get(i).metadata();
            md.set(K_STATUS, status, Metadata.NUMBER);
            md.set(K_CODE, code, Metadata.NUMBER);
            md.set(K_TEXT, text, Metadata.STRING);
            batch.swap(i, kept++);
        }
        if (kept == 0) {
            return null;
        }
        batch.truncate(kept);
        String message = kept + " events not delivered: " + first;
        return permanent ? new PermanentDeliveryException(message) : new IOException(message);
    }
}
