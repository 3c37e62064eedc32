package io.sluice.bench.forward;

import io.sluice.forward.client.ForwardClient;
import io.sluice.forward.client.ForwardEmitter;
import io.sluice.forward.codec.ForwardMode;
import java.io.IOException;
import org.komamitsu.fluency.Fluency;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The senders the Forward benchmarks share, opened once per trial against the {@link ServerProcess} and closed
 * after it. The seed that runs says how they send, by its class name: {@code …Ack} with acks,
 * {@code …Compressed…} CompressedPackedForward (the emitter; fluency has no compression), otherwise PackedForward
 * without acks. So the three seed benchmarks keep their names and share their methods ({@link ForwardSends}).
 */
public final class SenderStates {
    private SenderStates() {
    }

    static boolean ack(BenchmarkParams seed) {
        return seed.getBenchmark().contains("Ack.");
    }

    /** The synchronous client. */
    @State(Scope.Benchmark)
    public static class Client {
        ForwardClient client;

        @Setup(Level.Trial)
        public void setup(ServerProcess server, BenchmarkParams seed) throws IOException {
            client = Senders.client(server.port, ack(seed));
        }

        @TearDown(Level.Trial)
        public void close() {
            client.close();
        }
    }

    /** The asynchronous emitter; {@link #total} is what the server should have counted so far. */
    @State(Scope.Benchmark)
    public static class Emitter {
        ForwardEmitter emitter;
        long total;

        @Setup(Level.Trial)
        public void setup(ServerProcess server, BenchmarkParams seed) {
            ForwardMode mode = seed.getBenchmark().contains("Compressed") ? ForwardMode.COMPRESSED_PACKED_FORWARD
                    : ForwardMode.PACKED_FORWARD;
            emitter = Senders.emitter(server.port, ack(seed), mode);
        }

        @TearDown(Level.Trial)
        public void close() {
            emitter.close();
        }
    }

    /** fluency, the asynchronous peer. */
    @State(Scope.Benchmark)
    public static class FluencySender {
        Fluency fluency;
        long total;

        @Setup(Level.Trial)
        public void setup(ServerProcess server, BenchmarkParams seed) {
            fluency = Senders.fluency(server.port, ack(seed));
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            fluency.close();
        }
    }
}
