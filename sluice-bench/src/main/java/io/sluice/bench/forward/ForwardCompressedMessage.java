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
 * {@code CompressedMessage}: the same event through the asynchronous senders, gzip-compressed
 * (CompressedPackedForward) by Sluice's emitter. fluency 2.7.3 has no compression for Forward, so it sends its plain
 * PackedForward: the comparison shows what compression costs Sluice against fluency's cheapest mode.
 * One op is one event, timed per burst until the server has counted the whole burst.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ForwardCompressedMessage {

    @State(Scope.Benchmark)
    public static class Emitter extends SenderStates.Emitter {
        public Emitter() {
            super(false, ForwardMode.COMPRESSED_PACKED_FORWARD);
        }
    }

    @State(Scope.Benchmark)
    public static class FluencyState extends SenderStates.FluencySender {
        public FluencyState() {
            super(false);
        }
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
