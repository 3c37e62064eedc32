package io.sluice.hec.consumer;

import io.sluice.core.message.GzipBody;
import io.sluice.core.pipeline.ConsumerContext;

/**
 * What one event-loop thread of {@code consumer.HEC} reuses from request to request: parser, inflater, batch
 * collector and spare body buffers, so that nothing is allocated per event. A request is parsed completely before
 * the thread takes the next.
 */
final class EventLoopState {
    /** Body buffers kept for the next requests, and the largest kept. */
    static final int SPARE_BUFFERS = 4;
    static final int SPARE_MAX = 1024 * 1024;

    final EventParser parser;
    final GzipBody gzip = new GzipBody();
    final BatchCollector collector;
    private final byte[][] spares = new byte[SPARE_BUFFERS][];

    EventLoopState(HecServer.Settings s, ConsumerContext ctx) {
        parser = new EventParser(s.maxDepth, s.eventRequired);
        collector = new BatchCollector(ctx::newBatch);
    }

    /** A buffer of at least n bytes: a spare one if one is large enough, else a new one of exactly n. */
    byte[] take(int n) {
        for (int i = 0; i < spares.length; i++) {
            byte[] b = spares[i];
            if (b != null && b.length >= n) {
                spares[i] = null;
                return b;
            }
        }
        return new byte[n];
    }

    /** Keeps a buffer for later requests if it is small enough, in place of a smaller one if all slots are taken. */
    void give(byte[] b) {
        if (b == null || b.length > SPARE_MAX) {
            return;
        }
        int smallest = -1;
        for (int i = 0; i < spares.length; i++) {
            if (spares[i] == null) {
                spares[i] = b;
                return;
            }
            if (smallest < 0 || spares[i].length < spares[smallest].length) {
                smallest = i;
            }
        }
        if (spares[smallest].length < b.length) {
            spares[smallest] = b;
        }
    }
}
