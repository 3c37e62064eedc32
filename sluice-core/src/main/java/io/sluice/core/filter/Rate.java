package io.sluice.core.filter;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;

/**
 * {@code filter.Rate}: lets at most MessagesPerSec messages per stream pass in each one-second window and drops
 * the rest; streams in Ignore are not limited. As in Gollum, a window starts with the first message after the
 * previous one ended. The counters are shared by all modulator routines of the plugin
 * ({@link PluginConfig#shared}), so the limit holds for the plugin as a whole.
 */
public final class Rate extends SimpleFilter {
    public static final Param<Integer> MESSAGES_PER_SEC = Param.integer("MessagesPerSec", 100,
            "Messages per second and stream allowed to pass.");
    public static final Param<List<String>> IGNORE = Param.strings("Ignore", List.of(),
            "Streams that are not rate limited.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "filter.Rate",
            "Blocks messages after a number of messages per second has been reached.")
            .params(params(MESSAGES_PER_SEC, IGNORE))
            .factory(Rate::new);

    private static final long SECOND = 1_000_000_000L;

    /** Per-stream window start and count, indexed by stream id, shared by the plugin's instances. */
    static final class Windows {
        private final AtomicReferenceArray<AtomicLong[]> byStream = new AtomicReferenceArray<>(4096);
        private final java.util.concurrent.ConcurrentHashMap<Integer, AtomicLong[]> more =
                new java.util.concurrent.ConcurrentHashMap<>();

        AtomicLong[] of(int stream, long now) {
            if (stream >= byStream.length()) {
                return more.computeIfAbsent(stream, s -> new AtomicLong[] {new AtomicLong(now), new AtomicLong()});
            }
            AtomicLong[] w = byStream.get(stream);
            if (w == null) {
                byStream.compareAndSet(stream, null, new AtomicLong[] {new AtomicLong(now), new AtomicLong()});
                w = byStream.get(stream);
            }
            return w;
        }
    }

    private final long limit;
    private final int[] ignore;
    private final Windows windows;
    private final LongSupplier clock;

    public Rate(PluginConfig config) {
        this(config, System::nanoTime);
    }

    /** With a clock in nanoseconds, so tests need not sleep. */
    Rate(PluginConfig config, LongSupplier clock) {
        super(config);
        this.limit = config.get(MESSAGES_PER_SEC);
        this.ignore = Stream.ids(config.get(IGNORE));
        this.windows = config.shared("windows", Windows::new);
        this.clock = clock;
    }

    @Override
    public Result modulate(Message m) {
        int s = m.stream();
        if (ignore.length > 0 && Stream.contains(ignore, s)) {
            return Result.CONTINUE;
        }
        long now = clock.getAsLong();
        AtomicLong[] w = windows.of(s, now);
        long start = w[0].get();
        if (now - start > SECOND && w[0].compareAndSet(start, now)) {
            w[1].set(0);
        }
        return w[1].incrementAndGet() <= limit ? Result.CONTINUE : drop(m);
    }
}
