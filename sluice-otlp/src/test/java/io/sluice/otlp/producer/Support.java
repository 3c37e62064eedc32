package io.sluice.otlp.producer;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.core.testing.DirectProducerContext;
import java.util.HashMap;
import java.util.Map;

/**
 * producer.OTLP started without a pipeline, for the tests that call deliver themselves. Pipelines, the collecting
 * producer, logs kept in memory and polling are core's {@link io.sluice.core.testing.PipelineHarness}.
 */
final class Support {
    private Support() {
    }

    /** The counters of the last producer made by {@link #producer}. */
    static volatile PluginStats lastStats;

    /** producer.OTLP with these settings, started with real counters and the given log. */
    static OtlpProducer producer(Map<String, Object> settings, Log log) throws Exception {
        OtlpProducer p = new OtlpProducer(PluginConfig.of("otlp", "producer.OTLP", new HashMap<>(settings)));
        ProducerContext ctx = DirectProducerContext.of("otlp", "producer.OTLP", log);
        lastStats = ctx.stats();
        p.start(ctx);
        return p;
    }
}
