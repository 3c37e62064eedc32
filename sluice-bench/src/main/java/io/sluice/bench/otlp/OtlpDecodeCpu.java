package io.sluice.bench.otlp;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.otlp.codec.LogsDecoder;
import io.sluice.otlp.codec.OtlpFormatException;
import io.sluice.otlp.codec.RecordSink;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * {@link OtlpDecodeBenchmark}'s decode measured in thread CPU time rather than wall time: robust to other load on
 * a shared machine (time the thread spends descheduled does not count). Prints the median and the spread of
 * rounds of CPU nanoseconds per record, after a warm-up. Usage: {@code java -cp benchmarks.jar
 * io.sluice.bench.otlp.OtlpDecodeCpu [rounds] [decodes per round]}.
 */
public final class OtlpDecodeCpu {
    private OtlpDecodeCpu() {
    }

    public static void main(String[] args) throws OtlpFormatException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        byte[] request = OtlpDecodeBenchmark.logs(OtlpDecodeBenchmark.RECORDS).toByteArray();
        Batch batch = new BatchPool(OtlpDecodeBenchmark.RECORDS).acquire();
        // "one": every record into the same message, to tell cache misses on 1,000 messages from the decoding work.
        RecordSink sink = args.length > 2 && args[2].equals("one") ? () -> {
            batch.clear();
            return batch.add();
        } : batch::add;
        LogsDecoder decoder = new LogsDecoder();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (int i = 0; i < 5 * perRound; i++) { // warm-up: let C2 compile the loop
            batch.clear();
            sum += decoder.decode(request, 0, request.length, sink);
        }
        double[] ns = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long t0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < perRound; i++) {
                batch.clear();
                sum += decoder.decode(request, 0, request.length, sink);
            }
            ns[r] = (double) (mx.getCurrentThreadCpuTime() - t0) / ((long) perRound * OtlpDecodeBenchmark.RECORDS);
        }
        double[] sorted = ns.clone();
        Arrays.sort(sorted);
        System.out.printf("cpu ns/record: median %.1f min %.1f max %.1f (%d rounds of %d decodes; check %d)%n",
                sorted[rounds / 2], sorted[0], sorted[rounds - 1], rounds, perRound, sum);
    }
}
