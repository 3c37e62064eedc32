package io.sluice.bench.hec;

import io.sluice.bench.BenchDefaults;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.Units;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.hec.producer.HecProducer;
import io.sluice.hec.producer.HecResponse;
import io.sluice.hec.producer.HecTransport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The OpenTelemetry Collector Splunk HEC exporter's benchmarks (seeds 000 and 001), same names and data shapes:
 * {@code <resources>_<records>_<maxContentLength>}, plain or gzip, single or multi-metric. One op pushes
 * resources × records messages through {@code producer.SplunkHEC.deliver} (encode, cut into requests, gzip) to
 * a transport that consumes the bytes without a network, as the OTel mock worker does.
 * Compare ns/op and {@code gc.alloc.rate.norm} / allocations with the seeds' "after" figures.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HecPushBenchmark extends BenchDefaults {

    /**
     * A producer, its discarding transport and the data of one op, built for the benchmark that runs: its name
     * says the case ({@code push<Kind>[_compressed]_<resources>_<records>_<maxContentLength>[_MultiMetric]}), so
     * each method below is only its name. {@code ConsumeLogsRejected}: 10 × 100 logs, every request answered 400.
     */
    @State(Scope.Benchmark)
    public static class Fixture {
        HecProducer producer;
        Batch batch;
        long bytes;
        int requests;

        @Setup(Level.Trial)
        public void setup(BenchmarkParams params) throws Exception {
            String benchmark = params.getBenchmark();
            named(benchmark.substring(benchmark.lastIndexOf('.') + 1));
        }

        /** Builds the case a benchmark method's name says. */
        void named(String name) throws Exception {
            if (name.equals("ConsumeLogsRejected")) {
                setup("logs", 10, 100, 2 * 1024 * 1024, false, false, 400);
                return;
            }
            List<String> parts = new ArrayList<>(List.of(name.split("_")));
            boolean gzip = parts.remove("compressed");
            boolean multi = parts.remove("MultiMetric");
            String kind = parts.get(0).equals("pushLogData") ? "logs"
                    : parts.get(0).equals("pushMetricData") ? "metrics" : "lines";
            int resources = kind.equals("lines") ? 1 : Integer.parseInt(parts.get(1));
            int records = Integer.parseInt(parts.get(parts.size() - 2));
            int max = (int) Units.parseSize(parts.get(parts.size() - 1));
            setup(kind, resources, records, max, gzip, multi, 200);
        }

        private void setup(String kind, int resources, int records, int max, boolean gzip, boolean multi, int status)
                throws Exception {
            HecResponse answer = status == 200 ? HecResponse.SUCCESS
                    : new HecResponse(status, "{\"text\":\"Invalid data format\",\"code\":6}", -1);
            producer = producer(max, gzip, multi, (path, body, off, len, gz) -> {
                bytes += len;
                requests++;
                return answer;
            });
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

    /** producer.SplunkHEC, started, posting to {@code sink}: no health check, no retries. */
    static HecProducer producer(int max, boolean gzip, boolean multi, HecTransport sink) throws Exception {
        Map<String, Object> cfg = new HashMap<>();
        cfg.put("Token", "bench");
        cfg.put("MaxContentLength", max);
        cfg.put("Gzip", gzip);
        cfg.put("UseMultiMetricFormat", multi);
        cfg.put("HealthCheck", false);
        cfg.put("RetryMaxElapsedMs", 0);
        HecProducer producer = new HecProducer(PluginConfig.of("bench", "producer.SplunkHEC", cfg), sink);
        producer.start(producerContext());
        return producer;
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
     * What TCP → consumer.Socket → producer.SplunkHEC carries (the whole-process bar): n NDJSON lines of ~250
     * bytes, each a JSON object with random text, no metadata, time n ms; the encoder checks each is JSON and
     * embeds it.
     */
    public static Batch lines(int n) {
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

    @Benchmark
    public long ConsumeLogsRejected(Fixture f) {
        return f.pushRejected();
    }

    // The cases, one a line: each is its name (see Fixture). pushNdjsonLines: 10,000 NDJSON lines of ~250 B (see
    // lines), the whole-process TCP → SplunkHEC path's encoder.
    @Benchmark
    public long pushNdjsonLines_10000_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushNdjsonLines_compressed_10000_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_10_10_1024(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_10_10_8K(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_10_10_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_10_200_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_100_200_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_100_200_5M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_compressed_10_10_1024(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_compressed_10_10_8K(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_compressed_10_10_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_compressed_10_200_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_compressed_100_200_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushLogData_compressed_100_200_5M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_10_10_1024(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_10_10_8K(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_10_10_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_10_200_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_100_200_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_100_200_5M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_10_10_1024(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_10_10_8K(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_10_10_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_10_200_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_100_200_2M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_100_200_5M(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_10_10_1024_MultiMetric(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_10_10_8K_MultiMetric(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_10_10_2M_MultiMetric(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_10_200_2M_MultiMetric(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_100_200_2M_MultiMetric(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_100_200_5M_MultiMetric(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_10_10_1024_MultiMetric(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_10_10_8K_MultiMetric(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_10_10_2M_MultiMetric(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_10_200_2M_MultiMetric(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_100_200_2M_MultiMetric(Fixture f) throws Exception { return f.push(); }
    @Benchmark
    public long pushMetricData_compressed_100_200_5M_MultiMetric(Fixture f) throws Exception { return f.push(); }
}
