package io.sluice.core.router;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Router;
import java.util.List;

/** Forwards every message of its stream to each of TargetStreams, where those streams' routers take over. */
public final class Distribute extends Router {
    public static final Param<List<String>> TARGET_STREAMS = Param.strings("TargetStreams", List.of(),
            "Streams every message is forwarded to (a copy each).");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.ROUTER, "router.Distribute",
            "Forwards every message of the stream to each of TargetStreams.")
            .params(TARGET_STREAMS)
            .factory(Distribute::new);

    private final int[] targets;

    public Distribute(PluginConfig config) {
        super(config);
        List<String> names = config.get(TARGET_STREAMS);
        if (names.isEmpty()) {
            throw config.error(TARGET_STREAMS, "router.Distribute needs at least one target stream");
        }
        this.targets = names.stream().mapToInt(Streams::id).toArray();
    }

    @Override
    public void distribute(Batch batch) throws InterruptedException {
        for (int t = 1; t < targets.length; t++) {
            Batch c = copy(batch);
            retarget(c, targets[t]);
            reroute(c);
        }
        retarget(batch, targets[0]);
        reroute(batch);
    }

    @Override
    public boolean forwardsToStreams() {
        return true;
    }

    private static void retarget(Batch b, int stream) {
        for (int i = 0; i < b.size(); i++) {
            b.get(i).setStream(stream);
        }
    }
}
