package io.sluice.bench.forward;

import io.sluice.forward.client.ForwardClient;
import io.sluice.forward.client.ForwardEmitter;
import io.sluice.forward.codec.ForwardMode;
import java.io.IOException;
import org.komamitsu.fluency.Fluency;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The senders the Forward benchmarks share, opened once per trial against the {@link ServerProcess} and closed
 * after it. Each benchmark class subclasses the ones it uses as its own {@code @State}, saying with or without
 * acks (and which mode for the emitter), so the three seed benchmarks keep their names without repeating setup.
 */
final class SenderStates {
    private SenderStates() {
    }

    /** The synchronous client. */
    public abstract static class Client {
        private final boolean ack;
        ForwardClient client;

        protected Client(boolean ack) {
            this.ack = ack;
        }

        @Setup(Level.Trial)
        public void setup(ServerProcess server) throws IOException {
            client = Senders.client(server.port, ack);
        }

        @TearDown(Level.Trial)
        public void close() {
            client.close();
        }
    }

    /** The asynchronous emitter; {@link #total} is what the server should have counted so far. */
    public abstract static class Emitter {
        private final boolean ack;
        private final ForwardMode mode;
        ForwardEmitter emitter;
        long total;

        protected Emitter(boolean ack, ForwardMode mode) {
            this.ack = ack;
            this.mode = mode;
        }

        @Setup(Level.Trial)
        public void setup(ServerProcess server) {
            emitter = Senders.emitter(server.port, ack, mode);
        }

        @TearDown(Level.Trial)
        public void close() {
            emitter.close();
        }
    }

    /** fluency, the asynchronous peer. */
    public abstract static class FluencySender {
        private final boolean ack;
        Fluency fluency;
        long total;

        protected FluencySender(boolean ack) {
            this.ack = ack;
        }

        @Setup(Level.Trial)
        public void setup(ServerProcess server) {
            fluency = Senders.fluency(server.port, ack);
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            fluency.close();
        }
    }
}
