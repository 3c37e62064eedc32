package io.sluice.kafka;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.ProducerRunner;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one pipeline config in this process, as {@code sluice -c} does, for scripts/bench-kafka.sh; with an
 * expected count it stops once the producers delivered that many (a Kafka consumer never ends by itself).
 * Prints the producers' delivered count and the rate over the whole run.
 *
 * <p>Usage: {@code BenchRun CONFIG [EXPECTED_MESSAGES] [TIMEOUT_SECONDS]}
 */
public final class BenchRun {
    private BenchRun() {
    }

    public static void main(String[] args) throws Exception {
        List<PluginConfig> configs = new ConfigLoader(PluginRegistry.defaultRegistry(), System.getenv()).loadFile(Path.of(args[0]));
        long expected = args.length > 1 ? Long.parseLong(args[1]) : 0;
        long timeoutSec = args.length > 2 ? Long.parseLong(args[2]) : 600;
        Pipeline p = new Pipeline(configs, PluginRegistry.defaultRegistry(), new Log(System.err, Log.INFO));
        p.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSec);
        if (expected > 0) {
            while (delivered(p) < expected && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            p.stop();
        } else if (!p.awaitTermination(timeoutSec, TimeUnit.SECONDS)) {
            p.stop();
        }
        long n = delivered(p);
        double secs = p.runNanos() / 1e9;
        System.err.println(p.summary());
        System.out.printf("RESULT delivered=%d seconds=%.3f rate=%.0f msg/s (pipeline start to stop)%n", n, secs, n / secs);
        System.exit(0);
    }

    private static long delivered(Pipeline p) {
        long n = 0;
        for (ProducerRunner r : p.producers()) {
            PluginStats s = r.stats();
            n += s.out();
        }
        return n;
    }
}
