package io.sluice.forward.producer;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import io.sluice.forward.codec.ChunkIdGenerator;
import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.codec.ForwardEncoder;
import io.sluice.forward.codec.ForwardMode;
import io.sluice.forward.codec.Gzip;
import io.sluice.forward.codec.KeyCache;
import io.sluice.forward.codec.MsgPackWriter;
import io.sluice.forward.codec.TimeFormat;
import java.util.Arrays;

/**
 * Encodes a pipeline batch into Forward frames, one per run of messages with the same tag, all into one reused
 * buffer: nothing is allocated per message once the buffers have grown (a chunk id per frame in ack mode).
 * Frames stay in the buffer until the batch is acknowledged, so retries resend the same bytes with the same chunk
 * ids (the server can drop duplicates). Not thread-safe: one per producer worker.
 */
final class BatchEncoder implements AutoCloseable {
    private final ForwardMode mode;
    private final boolean requireAck;
    private final String fixedTag;
    private final RecordEncoder records;
    private final ForwardEncoder encoder;
    private final EventBatch events;
    private final MsgPackWriter out = new MsgPackWriter(64 * 1024);
    private final ChunkIdGenerator chunkIds = new ChunkIdGenerator();

    private int frames;
    private int[] offsets = new int[4];
    private int[] lengths = new int[4];
    private int[] counts = new int[4];
    private String[] chunks = new String[4];
    private boolean[] acked = new boolean[4];
    private int skipped;

    BatchEncoder(ForwardMode mode, boolean requireAck, TimeFormat timeFormat, String fixedTag, RecordEncoder records,
                 int gzipLevel) {
        this.mode = mode;
        this.requireAck = requireAck;
        this.fixedTag = fixedTag.isEmpty() ? null : fixedTag;
        this.records = records;
        this.encoder = new ForwardEncoder(timeFormat, new Gzip(gzipLevel));
        this.events = new EventBatch(timeFormat, new KeyCache(), 64 * 1024);
    }

    /** Encodes every message of {@code batch}; returns the number of frames. */
    int encode(Batch batch) {
        out.clear();
        frames = 0;
        skipped = 0;
        events.clear();
        String runTag = null;
        for (int i = 0; i < batch.size(); i++) {
            Message m = batch.get(i);
            String tag = tagOf(m);
            if (runTag != null && !runTag.equals(tag)) {
                frame(runTag);
            }
            runTag = tag;
            if (!records.encode(m)) {
                skipped++;
                continue;
            }
            long ts = m.timestamp();
            MsgPackWriter r = records.writer();
            events.addRaw(Math.floorDiv(ts, 1_000_000_000L), (int) Math.floorMod(ts, 1_000_000_000L), r.array(), 0, r.size());
        }
        if (runTag != null) {
            frame(runTag);
        }
        return frames;
    }

    private String tagOf(Message m) {
        if (fixedTag != null) {
            return fixedTag;
        }
        String t = m.tag();
        return t != null ? t : Streams.name(m.stream());
    }

    private void frame(String tag) {
        if (events.isEmpty()) {
            return;
        }
        grow();
        String chunk = requireAck ? chunkIds.next() : null;
        int start = out.size();
        encoder.frame(mode, out, tag, events, chunk);
        offsets[frames] = start;
        lengths[frames] = out.size() - start;
        counts[frames] = events.count();
        chunks[frames] = chunk;
        acked[frames] = false;
        frames++;
        events.clear();
    }

    private void grow() {
        if (frames == offsets.length) {
            int n = frames * 2;
            offsets = Arrays.copyOf(offsets, n);
            lengths = Arrays.copyOf(lengths, n);
            counts = Arrays.copyOf(counts, n);
            chunks = Arrays.copyOf(chunks, n);
            acked = Arrays.copyOf(acked, n);
        }
    }

    byte[] array() {
        return out.array();
    }

    int frames() {
        return frames;
    }

    int offset(int i) {
        return offsets[i];
    }

    int length(int i) {
        return lengths[i];
    }

    int count(int i) {
        return counts[i];
    }

    String chunk(int i) {
        return chunks[i];
    }

    boolean acked(int i) {
        return acked[i];
    }

    void setAcked(int i) {
        acked[i] = true;
    }

    /** Messages left out because they could not be made into a record. */
    int skipped() {
        return skipped;
    }

    @Override
    public void close() {
        encoder.close();
    }
}
