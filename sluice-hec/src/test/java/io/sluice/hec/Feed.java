package io.sluice.hec;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Test consumer: publishes exactly the batches a test hands it, one pipeline batch per list of payloads. */
public final class Feed extends Consumer {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "consumer.Feed",
            "Test: publishes the batches given to Feed.publish.").factory(Feed::new);

    private static final Map<String, BlockingQueue<List<String>>> QUEUES = new ConcurrentHashMap<>();

    public Feed(PluginConfig config) {
        super(config);
    }

    private static BlockingQueue<List<String>> queue(String id) {
        return QUEUES.computeIfAbsent(id, k -> new LinkedBlockingQueue<>());
    }

    /** Queues one pipeline batch holding these payloads for the Feed plugin {@code id}. */
    public static void publish(String id, List<String> payloads) {
        queue(id).add(payloads);
    }

    @Override
    public void consume(ConsumerContext ctx) throws InterruptedException {
        BlockingQueue<List<String>> q = queue(config.id());
        while (ctx.isActive()) {
            List<String> payloads = q.poll(20, TimeUnit.MILLISECONDS);
            if (payloads == null) {
                continue;
            }
            Batch b = ctx.newBatch();
            for (String p : payloads) {
                b.add().setPayload(p);
            }
            ctx.publish(b);
        }
    }
}
