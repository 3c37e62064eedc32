package io.sluice.io.file;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.ConsumerContext;
import java.nio.charset.StandardCharsets;

/**
 * Fills and publishes the batches of {@link FileConsumer}, one file per batch: each published batch carries a
 * completion ({@link TailedFile#track}) that moves the file's acknowledged offset to the end of the batch's last
 * line once every producer delivered it.
 */
final class LinePublisher {
    private static final byte[] KEY_FILE = "file".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEY_DIR = "dir".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEY_TRUNCATED = "truncated".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);

    private final ConsumerContext ctx;
    private final boolean setMetadata;
    private final Runnable onAck;
    private Batch batch;
    private TailedFile batchFile;
    private long batchEnd;

    /**
     * @param setMetadata add the file name and folder to every message
     * @param onAck       run (on the producer's thread) when a batch was delivered
     */
    LinePublisher(ConsumerContext ctx, boolean setMetadata, Runnable onAck) {
        this.ctx = ctx;
        this.setMetadata = setMetadata;
        this.onAck = onAck;
    }

    /** Adds one line (or record) of {@code f} ending at file offset {@code endOffset}; publishes a full batch. */
    void emit(TailedFile f, byte[] b, int off, int len, long endOffset, boolean cut, long stamp)
            throws InterruptedException {
        if (batch != null && batchFile != f) {
            publish();
        }
        if (batch == null) {
            batch = ctx.newBatch();
            batchFile = f;
        }
        Message m = batch.add();
        m.setPayload(b, off, len);
        m.setTimestamp(stamp);
        if (setMetadata) {
            Metadata md = m.metadata();
            md.set(KEY_FILE, 0, KEY_FILE.length, f.nameBytes, 0, f.nameBytes.length, Metadata.STRING);
            md.set(KEY_DIR, 0, KEY_DIR.length, f.dirBytes, 0, f.dirBytes.length, Metadata.STRING);
        }
        if (cut) {
            m.metadata().set(KEY_TRUNCATED, 0, KEY_TRUNCATED.length, TRUE, 0, TRUE.length, Metadata.BOOLEAN);
        }
        batchEnd = endOffset;
        if (batch.isFull()) {
            publish();
        }
    }

    /** The end of a skipped over-long line moves the checkpoint of the batch holding its head. */
    void moveBatchEnd(TailedFile f, long offset) {
        if (batch != null && batchFile == f) {
            batchEnd = offset;
        }
    }

    /** Hands the batch being filled to the pipeline (may wait while the queues behind are full). */
    void publish() throws InterruptedException {
        Batch b = batch;
        if (b == null) {
            return;
        }
        batch = null;
        b.setCompletion(batchFile.track(batchEnd, onAck));
        ctx.publish(b);
    }

    /** Stopping: a batch that could not be published goes back to the pool. */
    void discard() {
        if (batch != null) {
            batch.release();
            batch = null;
        }
    }
}
