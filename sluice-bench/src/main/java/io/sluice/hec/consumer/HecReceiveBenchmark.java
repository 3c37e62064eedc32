package io.sluice.hec.consumer;

import io.sluice.bench.BenchDefaults;
import io.sluice.bench.peer.NeutralData;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.RequestMemory;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * consumer.HEC's per-request work on the event loop (issue 17): one /services/collector/event body of 1,000
 * events of about 180 bytes ({@code {"event":{"level":..,"service":..,"n":..,"user":..,"message":..}}}, the
 * shape of scripts/bench-peers.sh's {@code hec} workload) parsed into pooled batches, which are then released.
 * In the package of the receiver for its package-private parser; run with {@code -prof gc}: the aim is no
 * allocation per event.
 *
 * <p>On a machine shared with other people's benchmarks JMH's wall-clock figures spread widely; {@link #main} times
 * the same op in this thread's CPU time instead (15 rounds of 2,000 ops after 20,000 warm-up ops), which preemption
 * does not inflate: {@code java -cp sluice-bench/target/benchmarks.jar io.sluice.hec.consumer.HecReceiveBenchmark}.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
public class HecReceiveBenchmark extends BenchDefaults {
    static final int EVENTS = 1000;

    private byte[] body;
    private BatchPool pool;
    private EventParser parser;
    private BatchCollector collector;
    private RequestMemory memory;

    @Setup
    public void setup() {
        SplittableRandom r = new SplittableRandom(17);
        StringBuilder sb = new StringBuilder(EVENTS * 200);
        for (int n = 0; n < EVENTS; n++) {
            StringBuilder msg = new StringBuilder();
            for (int w = 0; w < 12; w++) {
                msg.append(w == 0 ? "" : " ").append(NeutralData.WORDS[r.nextInt(NeutralData.WORDS.length)]);
            }
            sb.append("{\"event\":{\"level\":\"").append(NeutralData.LEVELS[r.nextInt(NeutralData.LEVELS.length)])
                    .append("\",\"service\":\"").append(NeutralData.SERVICES[r.nextInt(NeutralData.SERVICES.length)])
                    .append("\",\"n\":").append(n)
                    .append(",\"user\":\"u").append(r.nextInt(100_000))
                    .append("\",\"message\":\"").append(msg).append("\"}}");
        }
        body = sb.toString().getBytes(StandardCharsets.UTF_8);
        pool = new BatchPool();
        parser = new EventParser(512, true);
        collector = new BatchCollector(pool::acquire);
        memory = new RequestMemory(new MemoryBudget(1L << 30));
    }

    /** Parses the body into batches (reserving from the budget as the receiver does) and releases them. */
    @Benchmark
    public int parse() {
        memory.take(2L * body.length);
        collector.limit(memory, MemoryBudget.MESSAGE_OVERHEAD, 100_000);
        if (!parser.parseEvents(body, 0, body.length, collector, null, null, 1L)) {
            throw new IllegalStateException(parser.error() + ": " + parser.detail());
        }
        int n = collector.count();
        for (Batch b : collector.batches()) {
            b.release();
        }
        collector.reset();
        memory.releaseAll();
        return n;
    }

    /** Thread CPU time per op: median and lowest of 15 rounds. */
    public static void main(String[] args) throws Exception {
        HecReceiveBenchmark b = new HecReceiveBenchmark();
        b.setup();
        double[] ns = cpuNanos(20_000, 15, 2000, b::parse);
        System.out.printf("parse of %d events: CPU median %.1f us/op, lowest %.1f us/op%n", EVENTS, ns[7] / 1000,
                ns[0] / 1000);
    }
}
