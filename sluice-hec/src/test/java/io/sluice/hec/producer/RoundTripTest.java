package io.sluice.hec.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.DirectProducerContext;
import io.sluice.hec.Support;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** producer.SplunkHEC → consumer.HEC over loopback: every field of logs and metrics comes back as it went. */
@org.junit.jupiter.api.Timeout(60)
class RoundTripTest {
    private static int port;
    private static PipelineHarness receiver;

    @BeforeAll
    static void start() throws Exception {
        port = PipelineHarness.freePort();
        receiver = Support.receiver(port, "rt", Map.of("Tokens", List.of("tok")));
    }

    @AfterAll
    static void stop() {
        receiver.close();
    }

    private static void set(Message m, String k, String v, byte kind) {
        m.metadata().set(k.getBytes(StandardCharsets.UTF_8), v.getBytes(StandardCharsets.UTF_8), kind);
    }

    private static HecProducer producer(String id, Map<String, Object> extra) throws Exception {
        Map<String, Object> s = new HashMap<>(extra);
        s.put("Endpoint", "http://127.0.0.1:" + port);
        s.put("Token", "tok");
        HecProducer p = new HecProducer(PluginConfig.of(id, "producer.SplunkHEC", s));
        p.start(DirectProducerContext.of(id, "producer.SplunkHEC", PipelineHarness.stderrLog()));
        return p;
    }

    private static List<Captured> sendAndCollect(HecProducer p, Batch b, int expect) throws Exception {
        List<Captured> sent = new ArrayList<>();
        for (int i = 0; i < b.size(); i++) {
            sent.add(Captured.of(b.get(i)));
        }
        int before = receiver.captured("rt").size();
        p.deliver(b);
        PipelineHarness.await("events at the receiver", 10_000, () -> receiver.captured("rt").size() >= before + expect);
        List<Captured> got = receiver.captured("rt");
        return got.subList(before, got.size());
    }

    private static void assertSame(List<Captured> got, List<Captured> sent) {
        assertThat(got).hasSize(sent.size());
        for (int i = 0; i < sent.size(); i++) {
            Captured g = got.get(i);
            Captured s = sent.get(i);
            assertThat(g.payload()).isEqualTo(s.payload());
            assertThat(g.timestamp()).isEqualTo(s.timestamp());
            assertThat(g.fields()).isEqualTo(s.fields());
            assertThat(g.kinds()).isEqualTo(s.kinds());
        }
    }

    @Test
    void logsWithEveryKindOfFieldRoundTripGzipAndPlain() throws Exception {
        for (boolean gzip : new boolean[] {true, false}) {
            HecProducer p = producer("logs" + gzip, Map.of("Gzip", gzip));
            Batch b = new BatchPool(64).acquire();
            for (int i = 0; i < 50; i++) {
                Message m = b.add();
                m.setPayload(i % 2 == 0 ? "plain line " + i + " with \"quotes\" and é and \t tab"
                        : "{\"nested\":{\"i\":" + i + ",\"list\":[1,2,3]},\"s\":\"x\"}");
                m.setTimestamp(1796002770_000000000L + i * 1_000_001L);
                set(m, "host", "web-" + i, Metadata.STRING);
                set(m, "source", "app", Metadata.STRING);
                set(m, "sourcetype", "_json", Metadata.STRING);
                set(m, "index", "main", Metadata.STRING);
                set(m, "region", "eu-west", Metadata.STRING);
                set(m, "count", Integer.toString(i), Metadata.NUMBER);
                set(m, "ok", "false", Metadata.BOOLEAN);
                set(m, "tags", "[\"a\",\"b\"]", Metadata.JSON);
                set(m, "nothing", "null", Metadata.NULL);
            }
            List<Captured> sent = new ArrayList<>();
            for (int i = 0; i < b.size(); i++) {
                sent.add(Captured.of(b.get(i)));
            }
            List<Captured> got = sendAndCollect(p, b, 50);
            assertSame(got, sent);
            p.close();
        }
    }

    @Test
    void metricsRoundTripSingleAndMultiMetric() throws Exception {
        for (boolean multi : new boolean[] {false, true}) {
            HecProducer p = producer("metrics" + multi, Map.of("UseMultiMetricFormat", multi));
            Batch b = new BatchPool(64).acquire();
            for (int i = 0; i < 20; i++) {
                Message m = b.add();
                m.setPayload("metric");
                m.setTimestamp((1000L + i) * 1_000_000_000L + i * 1_000_000L);
                set(m, "host", "h", Metadata.STRING);
                set(m, "k/n0", "vn0", Metadata.STRING);
                set(m, "k0", "v" + i, Metadata.STRING);
                set(m, "metric_name:gauge_double_with_dims", "1234.5678", Metadata.NUMBER);
                if (multi) {
                    set(m, "metric_name:other", "-2.5e3", Metadata.NUMBER);
                }
            }
            List<Captured> sent = new ArrayList<>();
            for (int i = 0; i < b.size(); i++) {
                sent.add(Captured.of(b.get(i)));
            }
            assertSame(sendAndCollect(p, b, 20), sent);
            p.close();
        }
    }

    private static void metric(Batch b, long ts, String host, String index, String dim, String... measurements) {
        Message m = b.add();
        m.setPayload("metric");
        m.setTimestamp(ts);
        set(m, "host", host, Metadata.STRING);
        if (index != null) {
            set(m, "index", index, Metadata.STRING);
        }
        set(m, "region", dim, Metadata.STRING);
        for (int i = 0; i < measurements.length; i += 2) {
            set(m, "metric_name:" + measurements[i], measurements[i + 1], Metadata.NUMBER);
        }
    }

    private static Map<String, String> fields(String host, String index, String dim, String... measurements) {
        Map<String, String> f = new java.util.LinkedHashMap<>();
        f.put("host", host);
        if (index != null) {
            f.put("index", index);
        }
        f.put("region", dim);
        for (int i = 0; i < measurements.length; i += 2) {
            f.put("metric_name:" + measurements[i], measurements[i + 1]);
        }
        return f;
    }

    @Test
    void multiMetricMergesInterleavedMeasurementsSharingTimeDimensionsAndMetadata() throws Exception {
        HecProducer p = producer("interleaved", Map.of("UseMultiMetricFormat", true));
        Batch b = new BatchPool(16).acquire();
        long t1 = 1796002770_500000000L;
        long t2 = t1 + 1_000_000L;
        metric(b, t1, "web-1", null, "eu", "cpu", "0.5");
        metric(b, t1, "web-2", null, "eu", "cpu", "0.7");   // other host
        metric(b, t2, "web-1", null, "eu", "cpu", "0.9");   // other time
        metric(b, t1, "web-1", "metrics", "eu", "cpu", "1"); // other index
        metric(b, t1, "web-1", null, "us", "cpu", "1.1");   // other dimension value
        metric(b, t1, "web-1", null, "eu", "mem", "512");   // → first event
        metric(b, t1, "web-2", null, "eu", "mem", "256");   // → second event
        metric(b, t1, "web-1", "metrics", "eu", "mem", "1024", "disk", "3"); // → fourth event
        metric(b, t1, "web-1", null, "eu", "disk", "70");   // → first event
        metric(b, t1, "web-1", null, "eu", "cpu", "0.6");   // first event has cpu already: a new, last one
        List<Captured> got = sendAndCollect(p, b, 6);
        assertThat(got).extracting(Captured::payload).containsOnly("metric");
        assertThat(got).extracting(Captured::timestamp).containsExactly(t1, t1, t2, t1, t1, t1);
        assertThat(got).extracting(Captured::fields).containsExactly(
                fields("web-1", null, "eu", "cpu", "0.5", "mem", "512", "disk", "70"),
                fields("web-2", null, "eu", "cpu", "0.7", "mem", "256"),
                fields("web-1", null, "eu", "cpu", "0.9"),
                fields("web-1", "metrics", "eu", "cpu", "1", "mem", "1024", "disk", "3"),
                fields("web-1", null, "us", "cpu", "1.1"),
                fields("web-1", null, "eu", "cpu", "0.6"));
        p.close();
    }

    @Test
    void singleMetricFormatSplitsMeasurementsIntoEventsThatEachKeepTheDimensions() throws Exception {
        HecProducer p = producer("split", Map.of());
        Batch b = new BatchPool(4).acquire();
        Message m = b.add();
        m.setPayload("metric");
        m.setTimestamp(5_000_000_000L);
        set(m, "dim", "d", Metadata.STRING);
        set(m, "metric_name:a", "1", Metadata.NUMBER);
        set(m, "metric_name:b", "2", Metadata.NUMBER);
        List<Captured> got = sendAndCollect(p, b, 2);
        assertThat(got).extracting(Captured::fields).containsExactly(
                Map.of("dim", "d", "metric_name:a", "1"), Map.of("dim", "d", "metric_name:b", "2"));
        p.close();
    }
}
