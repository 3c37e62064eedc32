package io.sluice.bench.forward;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/**
 * The asynchronous senders every Forward seed compares, Sluice's emitter against fluency, each op one event, timed
 * per burst until the server has counted the whole burst. A seed extends this class (JMH runs inherited benchmark
 * methods under the subclass's name); its name says how the senders send ({@link SenderStates}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public abstract class ForwardSends {

    @Benchmark
    @OperationsPerInvocation(Senders.BURST)
    public void sluiceEmitter(SenderStates.Emitter s, ServerProcess server) throws IOException {
        s.total = Senders.emitterBurst(s.emitter, server, s.total);
    }

    @Benchmark
    @OperationsPerInvocation(Senders.BURST)
    public void fluency(SenderStates.FluencySender s, ServerProcess server) throws IOException {
        s.total = Senders.fluencyBurst(s.fluency, server, s.total);
    }

    /**
     * The seeds that also time Sluice's synchronous client, one event per send (the event is in the socket when the
     * call returns; with acks, stop-and-wait as fluent-forward-go).
     */
    public abstract static class WithClient extends ForwardSends {
        @Benchmark
        public void sluiceClient(SenderStates.Client s) throws IOException {
            long ms = System.currentTimeMillis();
            s.client.sendMessage(Records.TAG, ms / 1000, (int) (ms % 1000) * 1_000_000, Records.RECORD);
        }
    }
}
