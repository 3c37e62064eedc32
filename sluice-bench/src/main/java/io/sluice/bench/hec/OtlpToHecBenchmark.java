package io.sluice.bench.hec;

import static io.sluice.bench.otlp.KeyValues.str;
import static io.sluice.bench.otlp.KeyValues.string;

import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.resource.v1.Resource;
import io.sluice.bench.BenchDefaults;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.hec.producer.HecProducer;
import io.sluice.hec.producer.HecResponse;
import io.sluice.otlp.codec.LogsDecoder;
import io.sluice.otlp.codec.RecordSink;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * OTLP in, HEC out: the OTel Collector splunkhec exporter's {@code Benchmark_pushLogData_100_200_2M} (its
 * {@code createLogData}: 100 resources, one scope each, 200 records each, uncompressed, 2 MiB requests), starting
 * from the protobuf {@code ExportLogsServiceRequest} bytes as consumer.OTLP receives them. One op decodes the
 * request into a batch ({@link LogsDecoder}, messages as {@code OtlpFields} says) and delivers it with
 * {@code producer.SplunkHEC} (the OTLP mapping of {@code logdata_to_splunk.go}, cut into requests) to a transport
 * that only counts the bytes, as {@link HecPushBenchmark} does. The exporter's own figure starts from pdata, so
 * this one does more: the protobuf decoding is in it.
 */
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class OtlpToHecBenchmark extends BenchDefaults {
    private byte[] request;
    private final LogsDecoder decoder = new LogsDecoder();
    private Batch batch;
    private RecordSink records;
    private HecProducer producer;
    private long bytes;
    private int requests;
    /** The first request body sent, kept for the check in {@link #setup()}. */
    private byte[] firstRequest;

    @Setup
    public void setup() throws Exception {
        request = createLogData(100, 200).toByteArray();
        batch = new BatchPool(100 * 200).acquire();
        records = batch::add;
        producer = HecPushBenchmark.producer(2 * 1024 * 1024, false, false, (path, body, off, len, gz) -> {
            if (firstRequest == null) {
                firstRequest = Arrays.copyOfRange(body, off, off + len);
            }
            bytes += len;
            requests++;
            return HecResponse.SUCCESS;
        });
        // The events must be the exporter's: check one before timing anything (2 requests, as the exporter's).
        push();
        String want = "{\"time\":0.001,\"host\":\"myhost\",\"source\":\"myapp\",\"sourcetype\":\"myapp-type\","
                + "\"index\":\"myindex\",\"event\":\"mylog\",\"fields\":{\"custom\":\"custom\",\"otel.log.name\":\"0_0_1\"}}";
        String second = new String(firstRequest, StandardCharsets.UTF_8).split("\n", 3)[1];
        if (requests != 2 || !second.equals(want)) {
            throw new IllegalStateException(requests + " requests; second event " + second + ", not " + want);
        }
    }

    /** createLogData(numResources, 1, numRecords) from the exporter's client_test.go, as protobuf. */
    static ExportLogsServiceRequest createLogData(int resources, int records) {
        ExportLogsServiceRequest.Builder req = ExportLogsServiceRequest.newBuilder();
        for (int i = 0; i < resources; i++) {
            ScopeLogs.Builder scope = ScopeLogs.newBuilder();
            for (int k = 0; k < records; k++) {
                scope.addLogRecords(LogRecord.newBuilder()
                        .setTimeUnixNano(k * 1_000_000L)
                        .setBody(str("mylog"))
                        .addAttributes(string("otel.log.name", i + "_0_" + k))
                        .addAttributes(string("com.splunk.source", "myapp"))
                        .addAttributes(string("com.splunk.sourcetype", "myapp-type"))
                        .addAttributes(string("com.splunk.index", "myindex"))
                        .addAttributes(string("host.name", "myhost"))
                        .addAttributes(string("custom", "custom")));
            }
            req.addResourceLogs(ResourceLogs.newBuilder().setResource(Resource.newBuilder()).addScopeLogs(scope));
        }
        return req.build();
    }

    private long push() throws Exception {
        batch.clear();
        decoder.decode(request, 0, request.length, records);
        producer.deliver(batch);
        return bytes;
    }

    @Benchmark
    public long otlpToHec_pushLogData_100_200_2M() throws Exception {
        return push();
    }

    /**
     * The HEC side alone: the same request decoded once (in setup), then only delivered per op, so that the OTLP
     * mapping's cost can be measured apart from the decoder's. {@link #plainToHec_encodeOnly} delivers the same
     * messages without their {@code otlp.signal} (the plain path, for reference).
     */
    @State(Scope.Benchmark)
    public static class Decoded {
        Batch otlp;
        Batch plain;
        HecProducer producer;

        @Setup
        public void setup() throws Exception {
            OtlpToHecBenchmark b = new OtlpToHecBenchmark();
            b.setup();
            producer = b.producer;
            // Both batches decoded alike, one after the other, then collected: their messages then lie in
            // memory alike (the setup's own batch, older, may have been moved by more collections).
            otlp = new BatchPool(100 * 200).acquire();
            b.decoder.decode(b.request, 0, b.request.length, otlp::add);
            plain = new BatchPool(100 * 200).acquire();
            b.decoder.decode(b.request, 0, b.request.length, plain::add);
            for (int i = 0; i < plain.size(); i++) {
                io.sluice.core.message.Metadata md = plain.get(i).metadata();
                md.remove(md.indexOf(io.sluice.core.message.OtlpFields.SIGNAL));
            }
            b.batch = null;
            System.gc();
            System.gc();
        }
    }

    @Benchmark
    public long otlpToHec_encodeOnly(Decoded d) throws Exception {
        d.producer.deliver(d.otlp);
        return d.otlp.size();
    }

    @Benchmark
    public long plainToHec_encodeOnly(Decoded d) throws Exception {
        d.producer.deliver(d.plain);
        return d.plain.size();
    }

    /**
     * Thread CPU time per delivery of the decoded batch (robust to a busy machine): {@code java -cp
     * benchmarks.jar io.sluice.bench.hec.OtlpToHecBenchmark [rounds [otlp|plain|plain-first|full [n]]]}; prints the
     * median ms of each round (200 deliveries; {@code full}: 100 decodes and deliveries, the benchmark's op).
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        if (args.length > 1 && args[1].equals("full")) { // the benchmark's own op: decode, then deliver
            OtlpToHecBenchmark full = new OtlpToHecBenchmark();
            full.setup();
            for (int r = 0; r < rounds; r++) {
                System.out.printf("full %.3f ms%n", cpuNanos(0, 100, 1, full::push)[50] / 1e6);
            }
            return;
        }
        Decoded d = new Decoded();
        d.setup();
        if (args.length > 2) { // only the first n records (a working set that fits the caches), times 20000 / n
            int n = Integer.parseInt(args[2]);
            d.otlp.truncate(n);
            d.plain.truncate(n);
        }
        for (int r = 0; r < rounds; r++) {
            Batch[] which = args.length > 1 && args[1].equals("plain-first") ? new Batch[] {d.plain, d.otlp}
                    : args.length > 1 && args[1].equals("otlp") ? new Batch[] {d.otlp}
                    : args.length > 1 && args[1].equals("plain") ? new Batch[] {d.plain} : new Batch[] {d.otlp, d.plain};
            for (Batch b : which) {
                double median = cpuNanos(0, 200, 1, () -> d.producer.deliver(b))[100];
                System.out.printf("%s %.3f ms  ", b == d.otlp ? "otlp" : "plain", median / 1e6);
            }
            System.out.println();
        }
    }
}
