package io.sluice.core.filter;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code filter.Sample}: lets the first SampleRatePerGroup of every SampleGroupSize messages pass and drops the
 * rest (2 of 10, say). The count is shared by all modulator routines of the plugin, so the ratio holds
 * whatever the parallelism. Streams in SampleRateIgnore (Gollum's code read SampleIgnore; both are accepted)
 * are not sampled.
 */
public final class Sample extends SimpleFilter {
    public static final Param<Integer> RATE = Param.integer("SampleRatePerGroup", 1,
            "Messages passed in each group.");
    public static final Param<Integer> GROUP = Param.integer("SampleGroupSize", 2, "Messages in a group.").atLeast(1);
    public static final Param<List<String>> IGNORE = Param.strings("SampleRateIgnore", List.of(),
            "Streams that are not sampled.");
    public static final Param<List<String>> IGNORE_ALIAS = Param.strings("SampleIgnore", List.of(),
            "Same as SampleRateIgnore (the name Gollum's code and example use).");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "filter.Sample",
            "Passes n out of every m messages (downsampling).")
            .params(params(RATE, GROUP, IGNORE, IGNORE_ALIAS))
            .factory(Sample::new);

    private final long rate;
    private final long group;
    private final int[] ignore;
    private final AtomicLong count;

    public Sample(PluginConfig config) {
        super(config);
        this.rate = config.get(RATE);
        this.group = config.get(GROUP);
        List<String> ig = new ArrayList<>(config.get(IGNORE));
        ig.addAll(config.get(IGNORE_ALIAS));
        this.ignore = Stream.ids(ig);
        this.count = config.shared("count", AtomicLong::new);
    }

    @Override
    public Result modulate(Message m) {
        if (ignore.length > 0 && Stream.contains(ignore, m.stream())) {
            return Result.CONTINUE;
        }
        long index = Long.remainderUnsigned(count.getAndIncrement(), group);
        return index < rate ? Result.CONTINUE : drop(m);
    }
}
