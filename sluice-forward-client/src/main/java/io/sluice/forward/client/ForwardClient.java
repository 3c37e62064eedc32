package io.sluice.forward.client;

import io.sluice.forward.codec.ChunkIdGenerator;
import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.codec.ForwardEncoder;
import io.sluice.forward.codec.Gzip;
import io.sluice.forward.codec.KeyCache;
import io.sluice.forward.codec.MsgPackWriter;
import java.io.Closeable;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A blocking Fluent Forward client: each send writes one frame and, in ack mode, waits for the
 * server's {@code {"ack": chunk}} before returning.
 *
 * <p>On a failure (connection error, ack timeout) it reconnects and resends the same frame, with
 * the same chunk id so the server can drop a duplicate, up to {@link ForwardConfig#maxRetries()}
 * times with doubling backoff, then throws. The first send connects if {@link #connect()} was not
 * called.
 *
 * <p>Frames are encoded into one reused buffer, so steady-state sends do not allocate beyond the
 * chunk id. Thread-safe: sends are serialized. For high volume from many threads use
 * {@link ForwardEmitter}.
 *
 * <pre>{@code
 * try (ForwardClient client = new ForwardClient(ForwardConfig.builder().port(24224).build())) {
 *     client.sendMessage("app.access", Instant.now(), Map.of("path", "/", "status", 200));
 * }
 * }</pre>
 */
public final class ForwardClient implements Closeable {
    private final ForwardConfig cfg;
    private final ForwardEncoder encoder;
    private final MsgPackWriter frame = new MsgPackWriter(64 * 1024);
    private final ChunkIdGenerator chunkIds = new ChunkIdGenerator();
    private volatile Connection conn;
    private volatile boolean closed;

    /**
     * Creates a client; nothing is connected until {@link #connect()} or the first send.
     *
     * @param cfg where and how to send
     */
    public ForwardClient(ForwardConfig cfg) {
        this.cfg = cfg;
        this.encoder = new ForwardEncoder(cfg.timeFormat(), new Gzip());
    }

    /**
     * Creates a client with default settings and connects it.
     *
     * @param host server host
     * @param port server port
     * @return a connected client
     * @throws IOException when the server cannot be reached
     */
    public static ForwardClient connect(String host, int port) throws IOException {
        ForwardClient c = new ForwardClient(ForwardConfig.builder().host(host).port(port).build());
        c.connect();
        return c;
    }

    /** @return the configuration */
    public ForwardConfig config() {
        return cfg;
    }

    /**
     * Connects now (including TLS and handshake), if not connected yet.
     *
     * @throws IOException when the server cannot be reached or refuses the handshake
     */
    public synchronized void connect() throws IOException {
        if (closed) {
            throw new IOException("client is closed");
        }
        if (conn == null || !conn.isOpen()) {
            conn = Connection.open(cfg, cfg.requireAck()); // see ForwardConfig.tcpNoDelay
        }
    }

    /** @return whether a connection is open */
    public synchronized boolean isConnected() {
        return conn != null && conn.isOpen();
    }

    /**
     * @return a new batch using this client's time format, to fill and pass to
     *     {@link #sendForward}, {@link #sendPacked} or {@link #sendCompressed}; reuse it after
     *     {@link EventBatch#clear()}
     */
    public EventBatch newBatch() {
        return new EventBatch(cfg.timeFormat(), new KeyCache(), 4096);
    }

    /**
     * Sends one event in Message mode, timed now.
     *
     * @param tag    the tag
     * @param record the record
     * @throws IOException when it could not be delivered (acknowledged, in ack mode) after retries
     */
    public void sendMessage(String tag, Map<String, ?> record) throws IOException {
        sendMessage(tag, Instant.now(), record);
    }

    /**
     * Sends one event in Message mode.
     *
     * @param tag    the tag
     * @param time   event time
     * @param record the record
     * @throws IOException when it could not be delivered after retries
     */
    public void sendMessage(String tag, Instant time, Map<String, ?> record) throws IOException {
        sendMessage(tag, time.getEpochSecond(), time.getNano(), record);
    }

    /**
     * Sends one event in Message mode.
     *
     * @param tag          the tag
     * @param epochSeconds seconds since the epoch
     * @param nanos        nanoseconds within the second
     * @param record       the record
     * @throws IOException when it could not be delivered after retries
     */
    public synchronized void sendMessage(String tag, long epochSeconds, int nanos, Map<String, ?> record)
            throws IOException {
        String chunk = begin();
        encoder.message(frame, tag, epochSeconds, nanos, record, chunk);
        deliver(chunk);
    }

    /**
     * Sends one event in Message mode whose record is already msgpack (one map).
     *
     * @param tag          the tag
     * @param epochSeconds seconds since the epoch
     * @param nanos        nanoseconds within the second
     * @param record       msgpack bytes of the record, sent as they are
     * @throws IOException when it could not be delivered after retries
     */
    public synchronized void sendMessageRaw(String tag, long epochSeconds, int nanos, byte[] record)
            throws IOException {
        String chunk = begin();
        encoder.messageRaw(frame, tag, epochSeconds, nanos, record, 0, record.length, chunk);
        deliver(chunk);
    }

    /**
     * Sends a batch in Forward mode: {@code [tag, [[time, record], ...], options]}.
     *
     * @param tag   the tag
     * @param batch the events (left as they are; clear it to reuse)
     * @throws IOException when it could not be delivered after retries
     */
    public synchronized void sendForward(String tag, EventBatch batch) throws IOException {
        String chunk = begin();
        encoder.forward(frame, tag, batch, chunk);
        deliver(chunk);
    }

    /**
     * Sends a batch in PackedForward mode: {@code [tag, bin, options]}.
     *
     * @param tag   the tag
     * @param batch the events
     * @throws IOException when it could not be delivered after retries
     */
    public synchronized void sendPacked(String tag, EventBatch batch) throws IOException {
        String chunk = begin();
        encoder.packed(frame, tag, batch, chunk);
        deliver(chunk);
    }

    /**
     * Sends a batch in CompressedPackedForward mode (gzip).
     *
     * @param tag   the tag
     * @param batch the events
     * @throws IOException when it could not be delivered after retries
     */
    public synchronized void sendCompressed(String tag, EventBatch batch) throws IOException {
        String chunk = begin();
        encoder.compressed(frame, tag, batch, chunk);
        deliver(chunk);
    }

    /**
     * Sends a frame that is already encoded, as is, without waiting for an ack.
     *
     * @param frame a whole Forward frame
     * @throws IOException when it could not be written after retries
     */
    public void sendRaw(byte[] frame) throws IOException {
        sendRaw(frame, null);
    }

    /**
     * Sends a frame that is already encoded, as is. If the frame carries a {@code chunk} option,
     * pass it to wait for its ack (in any mode).
     *
     * @param frame a whole Forward frame
     * @param chunk the chunk id in the frame's options, or null not to wait for an ack
     * @throws IOException when it could not be delivered after retries
     */
    public synchronized void sendRaw(byte[] frame, String chunk) throws IOException {
        begin();
        this.frame.writeRaw(frame);
        deliver(chunk);
    }

    /** Starts a send: refuses after close, empties the frame buffer, picks a chunk id if acking. */
    private String begin() throws IOException {
        if (closed) {
            throw new IOException("client is closed");
        }
        frame.clear();
        return cfg.requireAck() ? chunkIds.next() : null;
    }

    /** Writes the frame and awaits its ack; on failure reconnects and resends, with backoff. */
    private void deliver(String chunk) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                connect();
                conn.write(frame.array(), 0, frame.size());
                if (chunk != null) {
                    awaitAck(chunk);
                }
                return;
            } catch (ForwardAuthenticationException e) {
                throw e;
            } catch (IOException e) {
                dropConnection();
                if (attempt >= cfg.maxRetries() || closed) {
                    throw e;
                }
                LockSupport.parkNanos(cfg.backoffNanos(attempt));
            }
        }
    }

    /** Skips acks for other chunks: a late ack for a frame that was already resent. */
    private void awaitAck(String chunk) throws IOException {
        long timeoutMs = cfg.ackTimeout().toMillis();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                throw new AckTimeoutException(chunk, timeoutMs);
            }
            try {
                if (chunk.equals(conn.readAck((int) left))) {
                    return;
                }
            } catch (SocketTimeoutException e) {
                throw new AckTimeoutException(chunk, timeoutMs);
            }
        }
    }

    private void dropConnection() {
        if (conn != null) {
            conn.close();
            conn = null;
        }
    }

    /**
     * Closes the connection. A send blocked on an ack fails at once; sends after this fail.
     */
    @Override
    public void close() {
        closed = true;
        Connection c = conn;
        if (c != null) {
            c.close(); // unblocks a send waiting for an ack, which then gives up (closed is set)
        }
        synchronized (this) {
            dropConnection();
            encoder.close();
        }
    }
}
