package io.sluice.otlp.consumer;

import io.netty.util.concurrent.FastThreadLocal;

/**
 * Request body buffers, reused per event loop: an exporter sends requests of about the same size again and again
 * (hundreds of KiB to a few MiB), and a new array per request is garbage at the rate of the input itself, zeroed
 * first, and from 512 KiB on a humongous allocation for G1. A body is received, decoded and dropped on one event
 * loop, so each loop keeps its own few buffers and nothing is shared.
 *
 * <p>What is kept is not charged to the memory budget (a request's reservation covers its body while it is in use):
 * it is bounded instead, {@value #KEEP} buffers of at most {@value #KEEP_MAX_BYTES} bytes per event loop.
 */
final class BodyBuffers {
    /** Buffers kept per event loop. */
    static final int KEEP = 2;
    /** Largest buffer kept; larger bodies are left to the collector. */
    static final int KEEP_MAX_BYTES = 4 * 1024 * 1024;
    /** Sizes are rounded up to this, so that bodies of nearly the same size share buffers. */
    private static final int GRAIN = 64 * 1024;

    private static final FastThreadLocal<byte[][]> FREE = new FastThreadLocal<>() {
        @Override
        protected byte[][] initialValue() {
            return new byte[KEEP][];
        }
    };

    private BodyBuffers() {
    }

    /** A buffer of at least {@code n} bytes (contents undefined). */
    static byte[] take(int n) {
        byte[][] free = FREE.get();
        for (int i = 0; i < free.length; i++) {
            byte[] b = free[i];
            if (b != null && b.length >= n) {
                free[i] = null;
                return b;
            }
        }
        long rounded = ((long) n + GRAIN - 1) / GRAIN * GRAIN;
        return new byte[rounded <= KEEP_MAX_BYTES ? (int) rounded : n];
    }

    /** Gives back a buffer from {@link #take} (or null) for the next body on this thread. */
    static void give(byte[] b) {
        if (b == null || b.length > KEEP_MAX_BYTES || b.length < GRAIN) {
            return;
        }
        byte[][] free = FREE.get();
        int smallest = -1;
        for (int i = 0; i < free.length; i++) {
            if (free[i] == null) {
                free[i] = b;
                return;
            }
            if (smallest < 0 || free[i].length < free[smallest].length) {
                smallest = i;
            }
        }
        if (free[smallest].length < b.length) {
            free[smallest] = b; // keep the larger: it serves every smaller body too
        }
    }
}
