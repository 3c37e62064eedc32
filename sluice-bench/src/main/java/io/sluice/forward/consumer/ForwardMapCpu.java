package io.sluice.forward.consumer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

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
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 20_000; i++) {
            b.map();
        }
        double[] ns = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < 2000; i++) {
                b.map();
            }
            ns[r] = (threads.getCurrentThreadCpuTime() - start) / (2000.0 * ForwardMapBenchmark.EVENTS);
        }
        Arrays.sort(ns);
        System.out.printf("Payload %s, Metadata %s: %.1f ns of thread CPU per event (median of %d), min %.1f%n",
                args[0], args[1], ns[rounds / 2], rounds, ns[0]);
    }
}
