package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * Prefixes the payload with the message time, in a Go time layout as Gollum configs write it
 * (default {@code "2006-01-02 15:04:05 MST | "}). The formatted text is cached per second (or per
 * millisecond for layouts with fractions), so a busy stream formats the time once per tick, not per message.
 */
public final class Timestamp implements Modulator {
    public static final Param<String> TIMESTAMP = Param.string("Timestamp", "2006-01-02 15:04:05 MST | ",
            "Go time layout of the prefix (reference time Mon Jan 2 15:04:05 MST 2006).");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Timestamp",
            "Prefixes the payload with the message's timestamp.")
            .params(PluginSpec.APPLY_TO, TIMESTAMP)
            .factory(Timestamp::new);

    private static final byte[] EMPTY = new byte[0];

    private final DateTimeFormatter formatter;
    private final long tickNanos;
    private final Target target;
    private long cachedTick = Long.MIN_VALUE;
    private byte[] cached = EMPTY;

    public Timestamp(PluginConfig config) {
        GoLayout layout = GoLayout.parse(config.get(TIMESTAMP));
        this.formatter = DateTimeFormatter.ofPattern(layout.javaPattern()).withZone(ZoneId.systemDefault());
        this.tickNanos = layout.fractionDigits() == 0 ? 1_000_000_000L
                : layout.fractionDigits() <= 3 ? 1_000_000L : 1L;
        this.target = new Target(config.get(PluginSpec.APPLY_TO));
    }

    @Override
    public Result modulate(Message m) {
        byte[] prefix = prefixFor(m.timestamp());
        if (target.isPayload()) {
            m.prepend(prefix, 0, prefix.length);
        } else {
            target.wrap(m, prefix, EMPTY);
        }
        return Result.CONTINUE;
    }

    private byte[] prefixFor(long epochNanos) {
        long tick = Math.floorDiv(epochNanos, tickNanos);
        if (tick != cachedTick) {
            Instant t = Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
            cached = formatter.format(t).getBytes(StandardCharsets.UTF_8);
            cachedTick = tick;
        }
        return cached;
    }
}
