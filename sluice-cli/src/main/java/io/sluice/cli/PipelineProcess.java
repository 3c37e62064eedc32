package io.sluice.cli;

import io.sluice.core.Daemon;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.StartException;
import java.nio.file.Path;
import java.util.List;

/**
 * The process around one running pipeline, for {@code sluice}, {@code sluice -c} and {@code sluice run}: the log,
 * the admin endpoint, the stats line, the stop on a signal, and the exit code ({@link Main}'s).
 */
final class PipelineProcess {
    /** How long a failing process may take to drain before it is halted. */
    private static final long FAIL_DRAIN_MILLIS = 10_000;

    private PipelineProcess() {
    }

    /** Runs the pipeline made of these files and directories (merged, see {@link ConfigSource}). */
    static int runFiles(List<Path> paths, int logLevel, boolean stats, RunOptions options) throws Exception {
        return run(ConfigSource.of(paths), logLevel, stats, options);
    }

    static int runQuickstart(int logLevel, boolean stats, RunOptions options) throws Exception {
        ConfigSource quickstart = ConfigSource.quickstart();
        Main.stderr.println("sluice: no config given, running the embedded " + quickstart
                + " (Ctrl-C stops; sluice --help for more)");
        return run(quickstart, logLevel, stats, options);
    }

    /**
     * Runs the pipeline {@code source} describes until it ends or a signal stops it; returns the exit code. A reload
     * reads the source again; the embedded quickstart cannot change, so it has none.
     */
    static int run(ConfigSource source, int logLevel, boolean stats, RunOptions options) throws Exception {
        // Before the files are read: a change made while the pipeline starts is then seen by --watch-config.
        List<String> loadedStamps = ConfigReload.stamps(source.paths());
        List<PluginConfig> configs = source.load();
        if (source.memoryLimit() != null && options.memoryLimit == null) {
            options.memoryLimit = Long.toString(source.memoryLimit()); // the command line wins over the file
        }
        Log log = new Log(Main.stderr, logLevel, options.logFormat.equalsIgnoreCase("json"));
        ThirdPartyLog.routeTo(log);
        Pipeline pipeline = new Pipeline(configs, PluginRegistry.defaultRegistry(), log, options.memory());
        log.info("memory budget " + (pipeline.memory().limit() >> 20) + " MiB (--memory-limit)");
        failFast(pipeline);
        ConfigReload reloads = source.paths().isEmpty() ? null : new ConfigReload(pipeline, source::load, source.paths(), log);
        AdminStart admin = options.noAdmin ? null : AdminStart.start(pipeline, options, log,
                reloads == null ? null : () -> reloads.reload("POST /api/reload"));
        Signals.onStop(() -> {
            log.info("stop requested: stopping consumers, draining queues, flushing producers");
            haltAfter(pipeline.stopDeadlineMillis(), "the graceful stop did not finish", 1);
            pipeline.stop();
        });
        StatsLine line = stats ? new StatsLine(pipeline, log) : null;
        try {
            pipeline.start();
        } catch (StartException e) {
            if (admin != null) {
                admin.close();
            }
            Main.stderr.println("sluice: cannot start: " + e.getMessage());
            return Main.EXIT_CONFIG;
        }
        if (line != null) {
            line.start();
        }
        if (reloads != null) {
            if (!Signals.onReload(() -> reloads.reload("SIGHUP"))) {
                log.warn("SIGHUP cannot reload the config: this process was started with it ignored (nohup?); "
                        + "use POST /api/reload or --watch-config");
            }
            if (options.watchConfig) {
                reloads.watch(loadedStamps);
            }
        }
        pipeline.awaitTermination();
        if (line != null) {
            line.stop();
        }
        if (admin != null) {
            admin.close();
        }
        log.info(pipeline.summary());
        if (pipeline.failure() != null) {
            Main.stderr.println("sluice: stopped because " + pipeline.failure());
            return Main.EXIT_FAILED;
        }
        return 0;
    }

    /**
     * Never half-alive: an error that escapes any thread, or a plugin that reports itself failed, stops the
     * pipeline (draining what it can for {@value #FAIL_DRAIN_MILLIS} ms) and the process exits {@value Main#EXIT_FAILED}.
     * The launcher adds {@code -XX:+ExitOnOutOfMemoryError}, since after an OutOfMemoryError no recovery is safe.
     */
    private static void failFast(Pipeline pipeline) {
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> pipeline.fail("thread " + t.getName() + " died", e));
        pipeline.onFailure(reason -> {
            haltAfter(FAIL_DRAIN_MILLIS, reason + "; not drained", Main.EXIT_FAILED);
            Daemon.start("fail-stop", pipeline::stop);
        });
    }

    /**
     * SIGTERM is always honoured: if the process is still running {@code millis} from now (a stop stuck on a
     * peer that never answers), it halts with {@code code}.
     */
    private static void haltAfter(long millis, String why, int code) {
        Daemon.start("halt-watchdog", () -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                return;
            }
            Main.stderr.println("sluice: " + why + " within " + millis + " ms, exiting");
            Runtime.getRuntime().halt(code);
        });
    }
}
