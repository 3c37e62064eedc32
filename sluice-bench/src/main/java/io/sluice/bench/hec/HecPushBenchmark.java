package io.sluice.bench.hec;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.hec.producer.HecResponse;
import io.sluice.hec.producer.HecTransport;
import io.sluice.hec.producer.HecProducer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The OpenTelemetry Collector Splunk HEC exporter's benchmarks (seeds 000 and 001), same names and data shapes:
 * {@code <resources>_<records>_<maxContentLength>}, plain or gzip, single or multi-metric. One op pushes
 * resources × records messages through {@code producer.SplunkHEC.deliver} (encode, cut into requests, gzip) to
 * a transport that consumes the bytes without a network, as the OTel mock worker does.
 * Compare ns/op and {@code gc.alloc.rate.norm} / allocations with the seeds' "after" figures.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HecPushBenchmark {

    /** Lazily built fixtures: only the one a benchmark method uses is created in its fork. */
    @State(Scope.Benchmark)
    public static class Fixtures {
        private final Map<String, Fixture> fixtures = new HashMap<>();

        Fixture get(String kind, int resources, int records, int max, boolean gzip, boolean multi) throws Exception {
            String key = kind + resources + "_" + records + "_" + max + gzip + multi;
            Fixture f = fixtures.get(key);
            if (f == null) {
                f = new Fixture(kind, resources, records, max, gzip, multi, 200);
                fixtures.put(key, f);
            }
            return f;
        }
    }

    /** A producer, its discarding transport, and the data of one op. */
    static final class Fixture {
        final HecProducer producer;
        final Batch batch;
        long bytes;
        int requests;

        Fixture(String kind, int resources, int records, int max, boolean gzip, boolean multi, int status) throws Exception {
            Map<String, Object> cfg = new HashMap<>();
            cfg.put("Token", "bench");
            cfg.put("MaxContentLength", max);
            cfg.put("Gzip", gzip);
            cfg.put("UseMultiMetricFormat", multi);
            cfg.put("HealthCheck", false);
            cfg.put("RetryMaxElapsedMs", 0);
            HecResponse answer = status == 200 ? HecResponse.SUCCESS
                    : new HecResponse(status, "{\"text\":\"Invalid data format\",\"code\":6}", -1);
            HecTransport sink = (path, body, off, len, gz) -> {
                bytes += len;
                requests++;
                return answer;
            };
            producer = new HecProducer(PluginConfig.of("bench", "producer.SplunkHEC", cfg), sink);
            producer.start(context());
            batch = switch (kind) {
                case "logs" -> logs(resources, records);
                case "lines" -> lines(resources * records);
                default -> metrics(resources, records);
            };
        }

        long push() throws Exception {
            producer.deliver(batch);
            return bytes;
        }

        long pushRejected() {
            try {
                producer.deliver(batch);
            } catch (Exception expected) {
                return expected.getMessage().length();
            }
            throw new IllegalStateException("expected a rejection");
        }
    }

    static ProducerContext context() {
        return new ProducerContext() {
            @Override
            public long firstGeneratedNanos() {
                return 0;
            }

            @Override
            public Log log() {
                return new Log(System.err, Log.ERROR);
            }

            @Override
            public PluginStats stats() {
                return null;
            }
        };
    }

    private static void set(Message m, String k, String v, byte kind) {
        m.metadata().set(k.getBytes(StandardCharsets.UTF_8), v.getBytes(StandardCharsets.UTF_8), kind);
    }

    /** The OTel test's log records: body "mylog", host/source/sourcetype/index, custom, a name i_j_k, time k ms. */
    static Batch logs(int resources, int records) {
        Batch b = new BatchPool(resources * records).acquire();
        for (int i = 0; i < resources; i++) {
            for (int k = 0; k < records; k++) {
                Message m = b.add();
                m.setPayload("mylog");
                m.setTimestamp(k * 1_000_000L);
                set(m, "host", "myhost", Metadata.STRING);
                set(m, "source", "myapp", Metadata.STRING);
                set(m, "sourcetype", "myapp-type", Metadata.STRING);
                set(m, "index", "myindex", Metadata.STRING);
                set(m, "custom", "custom", Metadata.STRING);
                set(m, "otel.log.name", i + "_0_" + k, Metadata.STRING);
            }
        }
        return b;
    }

    /**
     * What TCP → consumer.Socket → producer.SplunkHEC carries (the whole-process bar): NDJSON lines of ~250
     * bytes, each a JSON object with random text, no metadata; the encoder checks each is JSON and embeds it.
     */
    static Batch lines(int n) {
        Batch b = new BatchPool(n).acquire();
        java.util.Random rnd = new java.util.Random(1);
        for (int i = 0; i < n; i++) {
            StringBuilder pad = new StringBuilder();
            while (pad.length() < 250 - 60 - String.valueOf(i).length()) {
                pad.append((char) ('a' + rnd.nextInt(26)));
            }
            Message m = b.add();
            m.setPayload("{\"level\":\"info\",\"service\":\"checkout\",\"n\":" + i + ",\"msg\":\"" + pad + "\"}");
            m.setTimestamp(i * 1_000_000L);
        }
        return b;
    }

    /** The OTel test's metrics: double gauges 1234.5678, 4 data point and 2 resource attributes, time n s + n ms. */
    static Batch metrics(int resources, int records) {
        Batch b = new BatchPool(resources * records).acquire();
        for (int i = 0; i < resources; i++) {
            for (int j = 0; j < records; j++) {
                long n = (long) i * records + j;
                Message m = b.add();
                m.setPayload("metric");
                m.setTimestamp(n * 1_000_000_000L + n * 1_000_000L);
                set(m, "k/n0", "vn0", Metadata.STRING);
                set(m, "k/n1", "vn1", Metadata.STRING);
                set(m, "k/r0", "vr0", Metadata.STRING);
                set(m, "k/r1", "vr1", Metadata.STRING);
                set(m, "k0", "v0", Metadata.STRING);
                set(m, "k1", "v1", Metadata.STRING);
                set(m, "metric_name:gauge_double_with_dims", "1234.5678", Metadata.NUMBER);
            }
        }
        return b;
    }

    /** State for ConsumeLogsRejected: every request answered 400, every event goes to the fallback stream. */
    @State(Scope.Benchmark)
    public static class Rejected {
        Fixture f;

        Fixture get() throws Exception {
            if (f == null) {
                f = new Fixture("logs", 10, 100, 2 * 1024 * 1024, false, false, 400);
            }
            return f;
        }
    }

    @Benchmark
    public long ConsumeLogsRejected(Rejected r) throws Exception {
        return r.get().pushRejected();
    }

    /** 10,000 NDJSON lines of ~250 B (see {@link #lines}), plain: the whole-process TCP → SplunkHEC path's encoder. */
    @Benchmark
    public long pushNdjsonLines_10000_2M(Fixtures f) throws Exception {
        return f.get("lines", 100, 100, 2 * 1024 * 1024, false, false).push();
    }

    @Benchmark
    public long pushNdjsonLines_compressed_10000_2M(Fixtures f) throws Exception {
        return f.get("lines", 100, 100, 2 * 1024 * 1024, true, false).push();
    }

    @Benchmark
    public long pushLogData_10_10_1024(Fixtures f) throws Exception {
        return f.get("logs", 10, 10, 1024, false, false).push();
    }

    @Benchmark
    public long pushLogData_10_10_8K(Fixtures f) throws Exception {
        return f.get("logs", 10, 10, 8 * 1024, false, false).push();
    }

    @Benchmark
    public long pushLogData_10_10_2M(Fixtures f) throws Exception {
        return f.get("logs", 10, 10, 2 * 1024 * 1024, false, false).push();
    }

    @Benchmark
    public long pushLogData_10_200_2M(Fixtures f) throws Exception {
        return f.get("logs", 10, 200, 2 * 1024 * 1024, false, false).push();
    }

    @Benchmark
    public long pushLogData_100_200_2M(Fixtures f) throws Exception {
        return f.get("logs", 100, 200, 2 * 1024 * 1024, false, false).push();
    }

    @Benchmark
    public long pushLogData_100_200_5M(Fixtures f) throws Exception {
        return f.get("logs", 100, 200, 5 * 1024 * 1024, false, false).push();
    }

    @Benchmark
    public long pushLogData_compressed_10_10_1024(Fixtures f) throws Exception {
        return f.get("logs", 10, 10, 1024, true, false).push();
    }

    @Benchmark
    public long pushLogData_compressed_10_10_8K(Fixtures f) throws Exception {
        return f.get("logs", 10, 10, 8 * 1024, true, false).push();
    }

    @Benchmark
    public long pushLogData_compressed_10_10_2M(Fixtures f) throws Exception {
        return f.get("logs", 10, 10, 2 * 1024 * 1024, true, false).push();
    }

    @Benchmark
    public long pushLogData_compressed_10_200_2M(Fixtures f) throws Exception {
        return f.get("logs", 10, 200, 2 * 1024 * 1024, true, false).push();
    }

    @Benchmark
    public long pushLogData_compressed_100_200_2M(Fixtures f) throws Exception {
        return f.get("logs", 100, 200, 2 * 1024 * 1024, true, false).push();
    }

    @Benchmark
    public long pushLogData_compressed_100_200_5M(Fixtures f) throws Exception {
        return f.get("logs", 100, 200, 5 * 1024 * 1024, true, false).push();
    }

    @Benchmark
    public long pushMetricData_10_10_1024(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 1024, false, false).push();
    }

    @Benchmark
    public long pushMetricData_10_10_8K(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 8 * 1024, false, false).push();
    }

    @Benchmark
    public long pushMetricData_10_10_2M(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 2 * 1024 * 1024, false, false).push();
    }

    @Benchmark
    public long pushMetricData_10_200_2M(Fixtures f) throws Exception {
        return f.get("metrics", 10, 200, 2 * 1024 * 1024, false, false).push();
    }

    @Benchmark
    public long pushMetricData_100_200_2M(Fixtures f) throws Exception {
        return f.get("metrics", 100, 200, 2 * 1024 * 1024, false, false).push();
    }

    @Benchmark
    public long pushMetricData_100_200_5M(Fixtures f) throws Exception {
        return f.get("metrics", 100, 200, 5 * 1024 * 1024, false, false).push();
    }

    @Benchmark
    public long pushMetricData_compressed_10_10_1024(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 1024, true, false).push();
    }

    @Benchmark
    public long pushMetricData_compressed_10_10_8K(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 8 * 1024, true, false).push();
    }

    @Benchmark
    public long pushMetricData_compressed_10_10_2M(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 2 * 1024 * 1024, true, false).push();
    }

    @Benchmark
    public long pushMetricData_compressed_10_200_2M(Fixtures f) throws Exception {
        return f.get("metrics", 10, 200, 2 * 1024 * 1024, true, false).push();
    }

    @Benchmark
    public long pushMetricData_compressed_100_200_2M(Fixtures f) throws Exception {
        return f.get("metrics", 100, 200, 2 * 1024 * 1024, true, false).push();
    }

    @Benchmark
    public long pushMetricData_compressed_100_200_5M(Fixtures f) throws Exception {
        return f.get("metrics", 100, 200, 5 * 1024 * 1024, true, false).push();
    }

    @Benchmark
    public long pushMetricData_10_10_1024_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 1024, false, true).push();
    }

    @Benchmark
    public long pushMetricData_10_10_8K_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 8 * 1024, false, true).push();
    }

    @Benchmark
    public long pushMetricData_10_10_2M_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 2 * 1024 * 1024, false, true).push();
    }

    @Benchmark
    public long pushMetricData_10_200_2M_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 10, 200, 2 * 1024 * 1024, false, true).push();
    }

    @Benchmark
    public long pushMetricData_100_200_2M_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 100, 200, 2 * 1024 * 1024, false, true).push();
    }

    @Benchmark
    public long pushMetricData_100_200_5M_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 100, 200, 5 * 1024 * 1024, false, true).push();
    }

    @Benchmark
    public long pushMetricData_compressed_10_10_1024_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 1024, true, true).push();
    }

    @Benchmark
    public long pushMetricData_compressed_10_10_8K_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 8 * 1024, true, true).push();
    }

    @Benchmark
    public long pushMetricData_compressed_10_10_2M_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 10, 10, 2 * 1024 * 1024, true, true).push();
    }

    @Benchmark
    public long pushMetricData_compressed_10_200_2M_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 10, 200, 2 * 1024 * 1024, true, true).push();
    }

    @Benchmark
    public long pushMetricData_compressed_100_200_2M_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 100, 200, 2 * 1024 * 1024, true, true).push();
    }

    @Benchmark
    public long pushMetricData_compressed_100_200_5M_MultiMetric(Fixtures f) throws Exception {
        return f.get("metrics", 100, 200, 5 * 1024 * 1024, true, true).push();
    }
}
