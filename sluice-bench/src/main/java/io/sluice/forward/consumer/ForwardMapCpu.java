package io.sluice.forward.consumer;

import io.sluice.bench.BenchDefaults;

/**
 * {@link ForwardMapBenchmark}'s work timed in thread CPU time rather than wall time: on a shared 2-core machine
 * a busy neighbour stretches JMH's wall-clock figures, much less the CPU time this thread itself used. Warms up,
 * then prints the median and the minimum of {@code rounds} rounds of 2,000 frames (2M events each).
 *
 * <pre>java -cp benchmarks.jar io.sluice.forward.consumer.ForwardMapCpu json|msgpack true|false [rounds=15]</pre>
 */
public final class ForwardMapCpu {
    private ForwardMapCpu() {
    }

    public static void main(String[] args) throws Exception {
        ForwardMapBenchmark b = new ForwardMapBenchmark();
        b.payload = args[0];
        b.metadata = Boolean.parseBoolean(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        b.setup();
        double[] ns = BenchDefaults.cpuNanos(20_000, rounds, 2000, b::map);
        double events = ForwardMapBenchmark.EVENTS;
        System.out.printf("Payload %s, Metadata %s: %.1f ns of thread CPU per event (median of %d), min %.1f%n",
                args[0], args[1], ns[rounds / 2] / events, rounds, ns[0] / events);
    }
}
