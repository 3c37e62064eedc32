package io.sluice.bench.forward;

import io.sluice.forward.codec.ForwardMode;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.fluentd.logger.FluentLogger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Seed 003's {@code SingleMessage}: build and send one Message-mode event of 12 key/value pairs, no ack. One op is
 * one event. {@code sluiceClient} vs {@code fluentLogger} are synchronous sends (the event is in the socket when the
 * call returns); {@code sluiceEmitter} vs {@code fluency} are asynchronous emits, timed per burst until the server
 * has counted the whole burst.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ForwardSingleMessage {

    @State(Scope.Benchmark)
    public static class SluiceClient extends SenderStates.Client {
        public SluiceClient() {
            super(false);
        }
    }

    @State(Scope.Benchmark)
    public static class Logger {
        FluentLogger logger;

        @Setup(Level.Trial)
        public void setup(ServerProcess server) {
            logger = Senders.fluentLogger(server.port);
        }

        @TearDown(Level.Trial)
        public void close() {
            logger.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Emitter extends SenderStates.Emitter {
        public Emitter() {
            super(false, ForwardMode.PACKED_FORWARD);
        }
    }

    @State(Scope.Benchmark)
    public static class FluencyState extends SenderStates.FluencySender {
        public FluencyState() {
            super(false);
        }
    }

    @Benchmark
    public void sluiceClient(SluiceClient s) throws IOException {
        long ms = System.currentTimeMillis();
        s.client.sendMessage(Records.TAG, ms / 1000, (int) (ms % 1000) * 1_000_000, Records.RECORD);
    }

    @Benchmark
    public boolean fluentLogger(Logger s) {
        return s.logger.log(Records.TAG, Records.RECORD, System.currentTimeMillis() / 1000);
    }

    @Benchmark
    @OperationsPerInvocation(Senders.BURST)
    public void sluiceEmitter(Emitter s, ServerProcess server) throws IOException {
        s.total = Senders.emitterBurst(s.emitter, server, s.total);
    }

    @Benchmark
    @OperationsPerInvocation(Senders.BURST)
    public void fluency(FluencyState s, ServerProcess server) throws IOException {
        s.total = Senders.fluencyBurst(s.fluency, server, s.total);
    }
}
