package io.sluice.bench.otlp;

import io.sluice.bench.BenchDefaults;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.otlp.codec.LogsDecoder;
import io.sluice.otlp.codec.RecordSink;

/**
 * {@link OtlpDecodeBenchmark}'s decode measured in thread CPU time rather than wall time: robust to other load on
 * a shared machine (time the thread spends descheduled does not count). Prints the median and the spread of
 * rounds of CPU nanoseconds per record, after a warm-up. Usage: {@code java -cp benchmarks.jar
 * io.sluice.bench.otlp.OtlpDecodeCpu [rounds] [decodes per round]}.
 */
public final class OtlpDecodeCpu {
    private OtlpDecodeCpu() {
    }

    public static void main(String[] args) throws Exception {
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
        long[] sum = {0};
        // Warm-up: 5 rounds' worth, to let C2 compile the loop.
        double[] ns = BenchDefaults.cpuNanos(5 * perRound, rounds, perRound, () -> {
            batch.clear();
            sum[0] += decoder.decode(request, 0, request.length, sink);
        });
        double records = OtlpDecodeBenchmark.RECORDS;
        System.out.printf("cpu ns/record: median %.1f min %.1f max %.1f (%d rounds of %d decodes; check %d)%n",
                ns[rounds / 2] / records, ns[0] / records, ns[rounds - 1] / records, rounds, perRound, sum[0]);
    }
}
