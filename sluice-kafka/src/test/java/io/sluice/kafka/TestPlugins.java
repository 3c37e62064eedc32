package io.sluice.kafka;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Completion;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.testing.PipelineHarness;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Kafka's test plugin, given to core's {@link PipelineHarness} (whose test.Collect is the sink): a numbered event
 * source with a key and a header per event, a first number, a batch size and a gate, that records which events the
 * pipeline acknowledged, which is what the Kafka tests check and core's test.Numbers has no use for.
 */
public final class TestPlugins {
    private TestPlugins() {
    }

    /**
     * Publishes events Start .. Start+Count-1, payload "event-N", with metadata {@code k} ("key-" N%97) and {@code h}
     * ("hdr-" N), in batches of BatchSize. With Gated, each batch waits for a permit from {@link #permits}.
     * Every batch carries a completion that adds its event numbers to {@link #acked} when the pipeline
     * acknowledges it: what a real source would then tell its sender.
     */
    public static final class Events extends Consumer {
        static final Param<Integer> START = Param.integer("Start", 0, "First event number.");
        static final Param<Integer> COUNT = Param.integer("Count", 1000, "How many events.");
        static final Param<Integer> BATCH_SIZE = Param.integer("BatchSize", 500, "Events per batch.");
        static final Param<Boolean> GATED = Param.bool("Gated", false, "One permit per batch.");
        public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "test.Events", "events")
                .params(START, COUNT, BATCH_SIZE, GATED).factory(Events::new);
        private static final byte[] K = "k".getBytes();
        private static final byte[] H = "h".getBytes();

        public final Semaphore permits = new Semaphore(0);
        public final ConcurrentHashMap<Integer, Boolean> acked = new ConcurrentHashMap<>();
        public final AtomicLong published = new AtomicLong();
        public static volatile Events last;

        Events(PluginConfig c) {
            super(c);
            last = this;
        }

        @Override
        public void consume(ConsumerContext ctx) throws InterruptedException {
            int first = config.get(START);
            int count = first + config.get(COUNT);
            int size = config.get(BATCH_SIZE);
            boolean gated = config.get(GATED);
            for (int start = first; start < count && ctx.isActive(); start += size) {
                if (gated) {
                    while (!permits.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                        if (!ctx.isActive()) {
                            return;
                        }
                    }
                }
                int end = Math.min(count, start + size);
                Batch b = ctx.newBatch();
                for (int i = start; i < end; i++) {
                    Message m = b.add();
                    m.setPayload("event-" + i);
                    m.setTimestamp(1_700_000_000_000_000_000L + i * 1_000_000L);
                    byte[] k = ("key-" + (i % 97)).getBytes();
                    byte[] h = ("hdr-" + i).getBytes();
                    m.metadata().set(K, k, Metadata.STRING);
                    m.metadata().set(H, h, Metadata.STRING);
                }
                final int from = start;
                b.setCompletion(new Completion() {
                    @Override
                    protected void onComplete() {
                        for (int i = from; i < end; i++) {
                            acked.put(i, Boolean.TRUE);
                        }
                    }
                });
                published.addAndGet(end - start);
                ctx.publish(b);
            }
        }

        @Override
        public boolean endsPipeline() {
            return true;
        }
    }

    /** The pipeline of {@code yaml}, built and not started, with {@link Events} besides core's test plugins. */
    public static PipelineHarness pipeline(String yaml) {
        return PipelineHarness.builder().yaml(yaml).plugins(Events.SPEC).log(PipelineHarness.stderrLog()).build();
    }
}
