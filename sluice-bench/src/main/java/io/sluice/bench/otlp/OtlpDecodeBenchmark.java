package io.sluice.bench.otlp;

import static io.sluice.bench.otlp.KeyValues.bool;
import static io.sluice.bench.otlp.KeyValues.dbl;
import static io.sluice.bench.otlp.KeyValues.integer;
import static io.sluice.bench.otlp.KeyValues.str;
import static io.sluice.bench.otlp.KeyValues.string;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.resource.v1.Resource;
import io.sluice.bench.BenchDefaults;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.otlp.codec.LogsDecoder;
import io.sluice.otlp.codec.OtlpFormatException;
import io.sluice.otlp.codec.RecordSink;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link LogsDecoder} on an {@code ExportLogsServiceRequest} of 1,000 log records with ten attributes each
 * (strings of realistic lengths, ints, doubles, a bool), trace and span ids, a string body, under one resource
 * with five attributes and one scope: the shape of an SDK's batch export. Decodes into one reused batch; the
 * score is per record ({@link OperationsPerInvocation}). Run with {@code -prof gc} for bytes per record.
 * Targets: at most 200 ns and under 16 B per record.
 *
 * <p>Measured on the shared 2-core build machine (AMD EPYC, JDK 17.0.15, {@code -f 1 -wi 3 -i 5 -r 2 -prof gc},
 * load average 1): 550-600 ns and 0.002 B per record (JDK 25: 580 ns). Taking parts out one at a time: core's
 * Metadata taking the record's sixteen fields one by one (each key hashed and looked up) about 160 ns; spelling
 * numbers and ids as text (five ints, two doubles, two hex ids, the 19-digit observed time) about 150 ns; the
 * resource and scope fields, one {@code Metadata.copyFrom} per record, about 40 ns; the ten attributes in all
 * (reading, staging, spelling, inserting) about 330 ns; with all of that out, 120 ns remain.
 *
 * <p>Branch otlp-dperf (key hashes carried from a per-position key cache and Keys' constants into a bulk
 * Metadata.addDecodedFields, the common attribute and a string body read straight from the bytes, SWAR hex and
 * eight-digit decimals): about 480-500 ns per record in thread CPU time ({@link OtlpDecodeCpu}, against 570-600
 * for the code before, alternated on the same loaded machine), still 0.002 B. Wall-clock JMH scores on that
 * machine swung by ±100% with the load of other work and are not comparable run to run.
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class OtlpDecodeBenchmark extends BenchDefaults {
    static final int RECORDS = 1000;

    private byte[] request;
    private final LogsDecoder decoder = new LogsDecoder();
    private Batch batch;
    private RecordSink sink;

    @Setup
    public void setup() throws OtlpFormatException {
        request = logs(RECORDS).toByteArray();
        batch = new BatchPool(RECORDS).acquire();
        sink = batch::add;
        if (decode() != RECORDS) {
            throw new IllegalStateException("decoded the wrong number of records");
        }
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public int decodeLogs() throws OtlpFormatException {
        return decode();
    }

    private int decode() throws OtlpFormatException {
        batch.clear();
        return decoder.decode(request, 0, request.length, sink);
    }

    static ExportLogsServiceRequest logs(int records) {
        byte[] traceId = {0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71, (byte) 0x82, (byte) 0x93, (byte) 0xa4,
            (byte) 0xb5, (byte) 0xc6, (byte) 0xd7, (byte) 0xe8, (byte) 0xf9};
        byte[] spanId = {(byte) 0xff, 0x00, 0x01, 0x7f, (byte) 0x80, (byte) 0xab, (byte) 0xcd, (byte) 0xef};
        Resource resource = Resource.newBuilder()
                .addAttributes(string("service.name", "checkout-service"))
                .addAttributes(string("service.namespace", "shop"))
                .addAttributes(string("service.instance.id", "627cc493-f310-47de-96bd-71410b7dec09"))
                .addAttributes(string("host.name", "ip-10-0-12-34.eu-west-1.compute.internal"))
                .addAttributes(string("k8s.pod.uid", "1f0c9a2e-5b7d-4e8a-9c3b-2d6f8e1a7b4c"))
                .build();
        ScopeLogs.Builder scope = ScopeLogs.newBuilder()
                .setScope(InstrumentationScope.newBuilder().setName("io.opentelemetry.logback").setVersion("2.9.0"));
        for (int i = 0; i < records; i++) {
            scope.addLogRecords(LogRecord.newBuilder()
                    .setTimeUnixNano(1_700_000_000_000_000_000L + i * 1_000_000L)
                    .setObservedTimeUnixNano(1_700_000_000_000_500_000L + i * 1_000_000L)
                    .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_INFO)
                    .setSeverityText("INFO")
                    .setBody(str("GET /api/v1/orders/" + (100_000 + i) + " completed in " + (i % 97) + " ms for user "
                            + (i * 7919 % 10_000)))
                    .addAttributes(string("http.request.method", i % 5 == 0 ? "POST" : "GET"))
                    .addAttributes(string("url.path", "/api/v1/orders/" + (100_000 + i)))
                    .addAttributes(integer("http.response.status_code", i % 50 == 0 ? 500 : 200))
                    .addAttributes(dbl("http.server.request.duration", (i % 97) * 1.25 + 0.5))
                    .addAttributes(integer("user.id", i * 7919L % 10_000))
                    .addAttributes(string("thread.name", "http-nio-8080-exec-" + (i % 16)))
                    .addAttributes(string("code.function", "com.example.shop.OrderController.getOrder"))
                    .addAttributes(bool("cache.hit", i % 3 == 0))
                    .addAttributes(integer("db.rows", i % 13))
                    .addAttributes(dbl("payload.ratio", 0.25 + (i % 8) * 0.125))
                    .setTraceId(ByteString.copyFrom(traceId))
                    .setSpanId(ByteString.copyFrom(spanId))
                    .setFlags(1)
                    .build());
        }
        return ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(ResourceLogs.newBuilder().setResource(resource).addScopeLogs(scope))
                .build();
    }
}
