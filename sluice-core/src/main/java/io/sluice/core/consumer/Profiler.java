package io.sluice.core.consumer;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Clock;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Numbers;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Gollum's load generator: builds {@code TemplateCount} random payloads from the {@code Message} format, then
 * publishes {@code Batches} × {@code Runs} messages, each a copy of a randomly chosen template, stamped with the
 * time its pipeline batch was started.
 */
public final class Profiler extends Consumer {
    public static final Param<Integer> RUNS = Param.integer("Runs", 10000, "Messages per batch.");
    public static final Param<Integer> BATCHES = Param.integer("Batches", 10, "Number of batches to generate.");
    public static final Param<Integer> TEMPLATE_COUNT = Param.integer("TemplateCount", 10,
            "Number of different payloads generated in advance; each message copies one at random.").atLeast(1);
    public static final Param<String> CHARACTERS = Param.string("Characters",
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01234567890",
            "Characters random strings are made of.");
    public static final Param<String> MESSAGE = Param.string("Message", "%256s",
            "printf-style format of the payload: %Ns is N random characters, %Nd a number below 10^N, %Nf a float.");
    public static final Param<Integer> DELAY_MS = Param.millis("DelayMs", 0, "Pause between messages.");
    public static final Param<Integer> RATE = Param.integer("Rate", 0,
            "Messages per second at most, sent in 20 small batches a second; 0 generates as fast as the pipeline takes them.")
            .atLeast(0);
    public static final Param<Boolean> KEEP_RUNNING = Param.bool("KeepRunning", false,
            "When false the process shuts down once every generated message was delivered.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "consumer.Profiler",
            "Generates Runs x Batches messages from random templates, as fast as possible, to profile pipelines.")
            .params(RUNS, BATCHES, TEMPLATE_COUNT, CHARACTERS, MESSAGE, DELAY_MS, RATE, KEEP_RUNNING)
            .factory(Profiler::new);

    private final byte[][] templates;
    private final int runs;
    private final int batches;
    private final long delayMs;
    private final int rate;
    private final boolean keepRunning;
    private long seed = System.nanoTime() | 1;

    public Profiler(PluginConfig config) {
        super(config);
        this.runs = config.get(RUNS);
        this.batches = config.get(BATCHES);
        this.delayMs = config.get(DELAY_MS);
        this.rate = config.get(RATE);
        this.keepRunning = config.get(KEEP_RUNNING);
        int count = config.get(TEMPLATE_COUNT);
        String chars = config.get(CHARACTERS);
        if (chars.isEmpty()) {
            throw config.error(CHARACTERS, "must not be empty");
        }
        ProfilerTemplate template = new ProfilerTemplate(config.get(MESSAGE), chars);
        this.templates = new byte[count][];
        Arrays.setAll(templates, i -> template.generate());
    }

    @Override
    public void consume(ConsumerContext ctx) throws InterruptedException {
        long start = System.nanoTime();
        long sent = 0;
        Batch batch = null;
        long now = 0;
        for (int b = 0; b < batches && ctx.isActive(); b++) {
            for (int r = 0; r < runs && ctx.isActive(); r++) {
                if (batch == null) {
                    batch = ctx.newBatch();
                    // One clock read per batch, not per message: the messages of a batch are made within a
                    // fraction of a millisecond, and reading the clock was 5% of profile_json's generator thread.
                    // Consumers that take many events per read stamp them the same way.
                    now = Clock.epochNanos();
                }
                Message m = batch.add();
                byte[] t = templates[nextIndex()];
                m.setPayload(t, 0, t.length);
                m.setTimestamp(now);
                sent++;
                if (batch.isFull() || delayMs > 0 || (rate > 0 && batch.size() >= Math.max(1, rate / 20))) {
                    ctx.publish(batch);
                    batch = null;
                    if (rate > 0) {
                        pace(start, sent);
                    }
                }
                if (delayMs > 0) {
                    TimeUnit.MILLISECONDS.sleep(delayMs);
                }
            }
        }
        if (batch != null) {
            ctx.publish(batch);
        }
        double secs = (System.nanoTime() - start) / 1e9;
        // Numbers, not String.format: this line is on the way out of a finite run (see Numbers).
        ctx.log().info(config.id() + ": generated " + Numbers.grouped(sent) + " messages in " + Numbers.fixed(secs, 3)
                + " s (" + Numbers.groupedRound(sent / secs) + " msg/s generated)");
    }

    /** Sleeps until {@code sent} messages are due at {@link #rate} per second since {@code start}. */
    private void pace(long start, long sent) throws InterruptedException {
        long due = start + sent * 1_000_000_000L / rate;
        long wait = due - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }

    /** xorshift: a template index per message without a shared Random. */
    private int nextIndex() {
        long x = seed;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        seed = x;
        return (int) ((x >>> 1) % templates.length);
    }

    @Override
    public boolean endsPipeline() {
        return !keepRunning;
    }
}
