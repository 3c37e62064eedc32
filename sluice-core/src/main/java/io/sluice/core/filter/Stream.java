package io.sluice.core.filter;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import java.util.List;

/**
 * {@code filter.Stream}: drops messages on a Block stream; then, if Only is not empty, drops messages on any
 * stream not in Only. Streams are compared by id, so a check is a small array scan.
 */
public final class Stream extends SimpleFilter {
    public static final Param<List<String>> BLOCK = Param.strings("Block", List.of(), "Streams that are blocked.");
    public static final Param<List<String>> ONLY = Param.strings("Only", List.of(),
            "If not empty, only these streams pass.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "filter.Stream",
            "Filters messages by stream, with a block list checked first and an allow list.")
            .params(params(BLOCK, ONLY))
            .factory(Stream::new);

    private final int[] block;
    private final int[] only;

    public Stream(PluginConfig config) {
        super(config);
        this.block = ids(config.get(BLOCK));
        this.only = ids(config.get(ONLY));
    }

    static int[] ids(List<String> names) {
        return names.stream().mapToInt(Streams::id).toArray();
    }

    static boolean contains(int[] ids, int id) {
        for (int x : ids) {
            if (x == id) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Result modulate(Message m) {
        int s = m.stream();
        if (contains(block, s) || (only.length > 0 && !contains(only, s))) {
            return drop(m);
        }
        return Result.CONTINUE;
    }
}
