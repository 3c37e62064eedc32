package io.sluice.hec.codec;

import static io.sluice.hec.codec.OtlpMessages.log;
import static io.sluice.hec.codec.OtlpMessages.metric;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PermanentDeliveryException;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.hec.producer.HecResponse;
import io.sluice.hec.producer.HecProducer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** OTLP messages through {@code producer.SplunkHEC.deliver}: gzip requests, skipped records, the fallback. */
class OtlpProducerTest {
    private final List<String> bodies = new ArrayList<>();
    private final PluginStats stats = new PluginStats("hec", "producer.SplunkHEC");
    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();

    private HecProducer producer(Map<String, Object> extra) throws Exception {
        Map<String, Object> cfg = new HashMap<>(extra);
        cfg.put("Token", "t");
        cfg.put("HealthCheck", false);
        cfg.put("Source", "src");
        HecProducer p = new HecProducer(PluginConfig.of("hec", "producer.SplunkHEC", cfg), (path, body, off, len, gz) -> {
            byte[] b = java.util.Arrays.copyOfRange(body, off, off + len);
            if (gz) {
                b = new GZIPInputStream(new ByteArrayInputStream(b)).readAllBytes();
            }
            bodies.add(new String(b, StandardCharsets.UTF_8));
            return HecResponse.SUCCESS;
        });
        PrintStream out = new PrintStream(logged, true, StandardCharsets.UTF_8);
        p.start(ProducerContext.of(new Log(out, Log.INFO), stats, () -> 0));
        return p;
    }

    @Test
    void logsGoGzippedAndRecordsWithoutABodyAreDiscardedNotFailed() throws Exception {
        HecProducer p = producer(Map.of());
        Batch b = new BatchPool(8).acquire();
        log(b).resource("host.name", "h").attr("k", "v").body("one").time(1_000_000L);
        log(b).noBody();
        log(b).body("two");
        p.deliver(b); // nothing to throw: the empty record is not a failure
        assertThat(bodies).containsExactly("{\"time\":0.001,\"host\":\"h\",\"source\":\"src\",\"event\":\"one\",\"fields\":{\"k\":\"v\"}}\n"
                + "{\"host\":\"unknown\",\"source\":\"src\",\"event\":\"two\"}\n");
        assertThat(stats.discarded()).isEqualTo(1);
        assertThat(logged.toString(StandardCharsets.UTF_8)).contains("1 OTLP records not sent");
    }

    @Test
    void aMetricEventOverMaxEventSizeGoesToTheFallbackWithItsReason() throws Exception {
        HecProducer p = producer(Map.of("Gzip", false, "MaxEventSize", 200));
        Batch b = new BatchPool(8).acquire();
        metric(b, "small").type("gauge").value(1L);
        metric(b, "big").type("gauge").value(2L).attr("pad", "x".repeat(300));
        assertThatThrownBy(() -> p.deliver(b)).isInstanceOf(PermanentDeliveryException.class);
        assertThat(b.size()).isEqualTo(1); // only the failed message is left, for the fallback stream
        assertThat(b.get(0).payloadString()).isEqualTo("big");
        assertThat(b.get(0).metadata().getString("hec_error_text")).contains("MaxEventSize");
        assertThat(bodies).containsExactly(
                "{\"host\":\"unknown\",\"source\":\"src\",\"event\":\"metric\",\"fields\":{\"metric_name:small\":1,\"metric_type\":\"Gauge\"}}\n");
    }

    @Test
    void multiMetricHistogramSumAndCountShareAnEventAndEachBucketHasOne() throws Exception {
        HecProducer p = producer(Map.of("Gzip", false, "UseMultiMetricFormat", true));
        Batch b = new BatchPool(8).acquire();
        metric(b, "h").type("histogram").histogram("{\"count\":1,\"sum\":1.0,\"bucketCounts\":[1,0],\"explicitBounds\":[5.0]}");
        metric(b, "g").type("gauge").value(1L);
        p.deliver(b);
        assertThat(bodies).hasSize(1);
        assertThat(bodies.get(0).split("\n")).hasSize(4); // _sum+_count, le=5, le=+Inf, the gauge
    }
}
