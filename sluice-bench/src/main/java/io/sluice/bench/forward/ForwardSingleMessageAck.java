package io.sluice.bench.forward;

import io.sluice.forward.codec.ForwardMode;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Seed 003's {@code SingleMessageAck}: the same event, acknowledged by the server. One op is
 * one event. {@code sluiceClient} waits for each ack before the next send (stop-and-wait, as fluent-forward-go;
 * fluent-logger-java has no ack mode); {@code sluiceEmitter} vs {@code fluency} are asynchronous emits, timed per burst until the server
 * has counted the whole burst.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ForwardSingleMessageAck {

    @State(Scope.Benchmark)
    public static class SluiceClient extends SenderStates.Client {
        public SluiceClient() {
            super(true);
        }
    }

    @State(Scope.Benchmark)
    public static class Emitter extends SenderStates.Emitter {
        public Emitter() {
            super(true, ForwardMode.PACKED_FORWARD);
        }
    }

    @State(Scope.Benchmark)
    public static class FluencyState extends SenderStates.FluencySender {
        public FluencyState() {
            super(true);
        }
    }

    @Benchmark
    public void sluiceClient(SluiceClient s) throws IOException {
        long ms = System.currentTimeMillis();
        s.client.sendMessage(Records.TAG, ms / 1000, (int) (ms % 1000) * 1_000_000, Records.RECORD);
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
