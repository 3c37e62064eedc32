package io.sluice.forward.client;

import io.sluice.forward.codec.ForwardMode;
import java.io.Closeable;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * An asynchronous Fluent Forward emitter: {@code emit} encodes the event into a per-tag chunk in
 * memory and returns at once; a background thread sends chunks when they reach
 * {@link Builder#chunkBytes} or are older than {@link Builder#flushInterval}.
 *
 * <p><b>Bounded.</b> All chunks not yet delivered (open, queued, in flight) share a budget of
 * {@link Builder#bufferCapacity} bytes. When an event does not fit, {@code emit} returns
 * {@code false} and the event is not kept: the caller decides whether to drop, wait or spill. Memory
 * never grows without end.
 *
 * <p><b>Acks.</b> With {@link ForwardConfig#requireAck()} each chunk carries a chunk id, and up to
 * {@link Builder#ackWindow} chunks are in flight at once (pipelined, not stop-and-wait). A chunk's
 * bytes are released only when its ack arrives. If an ack is late beyond
 * {@link ForwardConfig#ackTimeout()}, or the connection fails, the emitter reconnects and resends
 * every unacknowledged chunk in order with its original chunk id (so the server may drop
 * duplicates): at-least-once delivery. Without acks a chunk is released once written to the socket.
 *
 * <p>{@link #close()} flushes everything and waits, up to {@link Builder#closeTimeout}, until all is
 * delivered. Thread-safe: emit from any thread. The chunks live in a {@link ChunkBuffer}; a {@link ChunkSender}
 * thread sends them.
 */
public final class ForwardEmitter implements Closeable {
    private final Duration closeTimeout;
    private final ChunkBuffer buffer;
    private final Thread sender;
    private final ChunkSender senderState;

    private ForwardEmitter(Builder b) {
        closeTimeout = b.closeTimeout;
        buffer = new ChunkBuffer(b.cfg, b.bufferCapacity, b.chunkBytes, b.flushInterval.toNanos(), b.ackWindow);
        senderState = new ChunkSender(buffer, b.cfg, b.mode, b.threadName);
        buffer.sender(senderState);
        sender = new Thread(senderState, b.threadName);
        sender.setDaemon(true);
        sender.start();
    }

    /**
     * @param cfg where and how to send
     * @return a builder for an emitter using {@code cfg}
     */
    public static Builder builder(ForwardConfig cfg) {
        return new Builder(cfg);
    }

    /**
     * Buffers an event timed now.
     *
     * @param tag    the tag
     * @param record the record
     * @return true if buffered; false if the buffer is full or the emitter is closed
     */
    public boolean emit(String tag, Map<String, ?> record) {
        return emit(tag, Instant.now(), record);
    }

    /**
     * Buffers an event.
     *
     * @param tag    the tag
     * @param time   event time
     * @param record the record
     * @return true if buffered; false if the buffer is full or the emitter is closed
     */
    public boolean emit(String tag, Instant time, Map<String, ?> record) {
        return buffer.append(tag, time.getEpochSecond(), time.getNano(), record, null);
    }

    /**
     * Buffers an event.
     *
     * @param tag        the tag
     * @param epochNanos event time in nanoseconds since the epoch
     * @param record     the record
     * @return true if buffered; false if the buffer is full or the emitter is closed
     */
    public boolean emit(String tag, long epochNanos, Map<String, ?> record) {
        return buffer.append(tag, Math.floorDiv(epochNanos, 1_000_000_000L),
                (int) Math.floorMod(epochNanos, 1_000_000_000L), record, null);
    }

    /**
     * Buffers an event whose record is already msgpack (one map), copied as is.
     *
     * @param tag        the tag
     * @param epochNanos event time in nanoseconds since the epoch
     * @param record     msgpack bytes of the record
     * @return true if buffered; false if the buffer is full or the emitter is closed
     */
    public boolean emitRaw(String tag, long epochNanos, byte[] record) {
        return buffer.append(tag, Math.floorDiv(epochNanos, 1_000_000_000L),
                (int) Math.floorMod(epochNanos, 1_000_000_000L), null, Objects.requireNonNull(record));
    }

    /** Asks the sender to send all open chunks now, without waiting for it. */
    public void flush() {
        buffer.flush();
    }

    /** @return bytes of events accepted but not yet delivered (acknowledged, in ack mode) */
    public long bufferedBytes() {
        return buffer.usedBytes();
    }

    /** @return chunks sent and awaiting their ack */
    public int inFlightChunks() {
        return buffer.inFlightChunks();
    }

    /** @return events refused because the buffer was full */
    public long rejectedEvents() {
        return buffer.rejected();
    }

    /** @return chunks put back in the queue to be sent again after a failure or a missing ack */
    public long resentChunks() {
        return buffer.resent();
    }

    /**
     * Flushes, waits up to the configured close timeout for everything to be delivered, then stops.
     * Events not delivered by then are dropped.
     */
    @Override
    public void close() {
        close(closeTimeout);
    }

    /**
     * Flushes, waits up to {@code timeout} for everything to be delivered, then stops.
     *
     * @param timeout how long to wait for delivery
     * @return true if every accepted event was delivered
     */
    public boolean close(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean drained = buffer.closeAndDrain(deadline);
        senderState.closeConnection();
        joinSender(deadline);
        return drained;
    }

    private void joinSender(long deadline) {
        try {
            sender.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()) + 1000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Builds a {@link ForwardEmitter}. */
    public static final class Builder {
        private final ForwardConfig cfg;
        private ForwardMode mode = ForwardMode.PACKED_FORWARD;
        private long bufferCapacity = 64L << 20;
        private int chunkBytes = 1 << 20;
        private Duration flushInterval = Duration.ofMillis(500);
        private int ackWindow = 8;
        private Duration closeTimeout = Duration.ofSeconds(10);
        private String threadName = "forward-emitter";

        private Builder(ForwardConfig cfg) {
            this.cfg = Objects.requireNonNull(cfg);
        }

        /**
         * @param mode FORWARD, PACKED_FORWARD (default) or COMPRESSED_PACKED_FORWARD
         * @return this
         */
        public Builder mode(ForwardMode mode) {
            if (mode == ForwardMode.MESSAGE) {
                throw new IllegalArgumentException("the emitter sends chunks; use ForwardClient for Message mode");
            }
            this.mode = Objects.requireNonNull(mode);
            return this;
        }

        /**
         * @param bytes most bytes of events held before {@code emit} returns false (default 64 MiB)
         * @return this
         */
        public Builder bufferCapacity(long bytes) {
            this.bufferCapacity = bytes;
            return this;
        }

        /**
         * @param bytes a chunk is sent once its events reach this size (default 1 MiB)
         * @return this
         */
        public Builder chunkBytes(int bytes) {
            this.chunkBytes = bytes;
            return this;
        }

        /**
         * @param interval a chunk is sent at the latest this long after its first event (default 500 ms)
         * @return this
         */
        public Builder flushInterval(Duration interval) {
            this.flushInterval = interval;
            return this;
        }

        /**
         * @param chunks most chunks awaiting acks at once, in ack mode (default 8)
         * @return this
         */
        public Builder ackWindow(int chunks) {
            if (chunks < 1) {
                throw new IllegalArgumentException("ackWindow must be >= 1");
            }
            this.ackWindow = chunks;
            return this;
        }

        /**
         * @param timeout how long {@link ForwardEmitter#close()} waits for delivery (default 10 s)
         * @return this
         */
        public Builder closeTimeout(Duration timeout) {
            this.closeTimeout = timeout;
            return this;
        }

        /**
         * @param name name of the background thread
         * @return this
         */
        public Builder threadName(String name) {
            this.threadName = name;
            return this;
        }

        /** @return a started emitter; it connects when it first has something to send */
        public ForwardEmitter build() {
            return new ForwardEmitter(this);
        }
    }
}
