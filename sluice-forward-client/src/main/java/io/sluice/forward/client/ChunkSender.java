package io.sluice.forward.client;

import io.sluice.forward.codec.ChunkIdGenerator;
import io.sluice.forward.codec.ForwardEncoder;
import io.sluice.forward.codec.ForwardMode;
import io.sluice.forward.codec.Gzip;
import io.sluice.forward.codec.MsgPackWriter;
import java.io.IOException;
import java.util.List;

/**
 * The background thread of a {@link ForwardEmitter}: owns the connection, frames and writes the chunks its
 * {@link ChunkBuffer} hands it, reads acks (on a thread of their own, in ack mode) and computes the backoff after a
 * failure. What is buffered, in flight or due again stays the buffer's, under its lock.
 */
final class ChunkSender implements Runnable {
    private final ChunkBuffer buffer;
    private final ForwardConfig cfg;
    private final ForwardMode mode;
    private final String threadName;
    private final ForwardEncoder encoder;
    private final MsgPackWriter frame = new MsgPackWriter(64 * 1024);
    /** Chunk ids, given when a chunk is first sent (and kept when it is resent). */
    final ChunkIdGenerator ids = new ChunkIdGenerator();
    private volatile Connection conn;
    private int failures;

    ChunkSender(ChunkBuffer buffer, ForwardConfig cfg, ForwardMode mode, String threadName) {
        this.buffer = buffer;
        this.cfg = cfg;
        this.mode = mode;
        this.threadName = threadName;
        this.encoder = new ForwardEncoder(cfg.timeFormat(), new Gzip());
    }

    @Override
    public void run() {
        try {
            while (true) {
                List<ChunkBuffer.Chunk> batch = buffer.nextToSend();
                if (batch == null) {
                    return;
                }
                sendAll(batch);
            }
        } finally {
            closeConnection();
            encoder.close();
        }
    }

    private void sendAll(List<ChunkBuffer.Chunk> chunks) {
        for (int i = 0; i < chunks.size(); i++) {
            ChunkBuffer.Chunk c = chunks.get(i);
            try {
                write(c);
            } catch (IOException e) {
                buffer.failed(chunks.subList(i, chunks.size()));
                return;
            }
            if (!cfg.requireAck()) {
                buffer.written(c);
            }
        }
        if (!chunks.isEmpty()) {
            failures = 0; // a whole batch went out: the connection works again
        }
    }

    private void write(ChunkBuffer.Chunk c) throws IOException {
        Connection k = connection();
        frame.clear();
        encoder.frame(mode, frame, c.tag, c.batch, c.id);
        k.write(frame.array(), 0, frame.size());
    }

    private Connection connection() throws IOException {
        Connection k = conn;
        if (k == null || !k.isOpen()) {
            k = Connection.open(cfg, true); // whole chunks: nothing to coalesce
            conn = k;
            if (cfg.requireAck()) {
                startAckReader(k);
            }
        }
        return k;
    }

    private void startAckReader(Connection k) {
        Thread t = new Thread(() -> readAcks(k), threadName + "-acks");
        t.setDaemon(true);
        t.start();
    }

    private void readAcks(Connection k) {
        try {
            while (true) {
                String id = k.readAck(0);
                if (id != null) {
                    buffer.onAck(id);
                }
            }
        } catch (IOException e) {
            buffer.connectionLost(k);
        }
    }

    /** Whether {@code k} is the connection in use. */
    boolean isCurrent(Connection k) {
        return k == conn;
    }

    /** The wait before the next attempt: RetryBackoff doubled per failure in a row, at most MaxRetryBackoff. */
    long nextBackoffNanos() {
        return cfg.backoffNanos(failures++);
    }

    void closeConnection() {
        Connection k = conn;
        conn = null;
        if (k != null) {
            k.close();
        }
    }
}
