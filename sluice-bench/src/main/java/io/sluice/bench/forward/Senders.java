package io.sluice.bench.forward;

import io.sluice.forward.client.ForwardClient;
import io.sluice.forward.client.ForwardConfig;
import io.sluice.forward.client.ForwardEmitter;
import io.sluice.forward.codec.ForwardMode;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.fluentd.logger.FluentLogger;
import org.komamitsu.fluency.Fluency;
import org.komamitsu.fluency.fluentd.FluencyBuilderForFluentd;

/**
 * The senders compared, like against like: synchronous (Sluice's {@link ForwardClient} and fluent-logger-java), and
 * asynchronous (Sluice's {@link ForwardEmitter} and fluency), the latter measured per burst until the server has
 * counted every event of the burst (and, with acks, until the sender has its acks back).
 */
final class Senders {
    /** Events per invocation of an asynchronous benchmark. */
    static final int BURST = 2000;

    private Senders() {
    }

    static ForwardClient client(int port, boolean ack) throws IOException {
        ForwardClient c = new ForwardClient(ForwardConfig.builder().host("127.0.0.1").port(port).requireAck(ack).build());
        c.connect();
        return c;
    }

    static ForwardEmitter emitter(int port, boolean ack, ForwardMode mode) {
        return ForwardEmitter.builder(ForwardConfig.builder().host("127.0.0.1").port(port).requireAck(ack).build())
                .mode(mode).bufferCapacity(64L << 20).chunkBytes(1 << 20).flushInterval(Duration.ofMillis(100))
                .ackWindow(8).build();
    }

    static Fluency fluency(int port, boolean ack) {
        FluencyBuilderForFluentd b = new FluencyBuilderForFluentd();
        b.setAckResponseMode(ack);
        b.setFlushAttemptIntervalMillis(100);
        b.setBufferChunkInitialSize(256 * 1024);
        b.setBufferChunkRetentionSize(1 << 20);
        b.setMaxBufferSize(64L << 20);
        return b.build("127.0.0.1", port);
    }

    static FluentLogger fluentLogger(int port) {
        return FluentLogger.getLogger("", "127.0.0.1", port);
    }

    /** Sends a burst through the emitter and waits until it left the process (and was acked, in ack mode). */
    static long emitterBurst(ForwardEmitter e, ServerProcess server, long total) throws IOException {
        long nanos = System.currentTimeMillis() * 1_000_000L;
        for (int i = 0; i < BURST; i++) {
            while (!e.emit(Records.TAG, nanos, Records.RECORD)) {
                LockSupport.parkNanos(10_000); // buffer full: the sender catches up
            }
        }
        e.flush();
        total += BURST;
        server.awaitEvents(total);
        while (e.bufferedBytes() > 0) {
            LockSupport.parkNanos(10_000); // acks still on their way back
        }
        return total;
    }

    /** Sends a burst through fluency and waits until it left the process (and was acked, in ack mode). */
    static long fluencyBurst(Fluency f, ServerProcess server, long total) throws IOException {
        for (int i = 0; i < BURST; i++) {
            f.emit(Records.TAG, Records.RECORD);
        }
        f.flush();
        total += BURST;
        server.awaitEvents(total);
        while (f.getBufferedDataSize() > 0) {
            LockSupport.parkNanos(10_000);
        }
        return total;
    }
}
