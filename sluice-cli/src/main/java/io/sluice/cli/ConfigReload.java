package io.sluice.cli;

import io.sluice.core.Daemon;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.ReloadResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Reloads the running pipeline from its config files: on SIGHUP, on {@code POST /api/reload}, and with
 * {@code --watch-config} when a file changes. The files are read and validated first; a bad config is logged
 * (ERROR), counted on {@code /metrics} and leaves the running pipeline as it was.
 */
final class ConfigReload {
    /** How often {@code --watch-config} looks at the files: their size and modification time, nothing more. */
    static final long WATCH_MILLIS = 1000;
    private final Pipeline pipeline;
    private final Supplier<List<PluginConfig>> load;
    private final List<Path> files;
    private final Log log;

    ConfigReload(Pipeline pipeline, Supplier<List<PluginConfig>> load, List<Path> files, Log log) {
        this.pipeline = pipeline;
        this.load = load;
        this.files = List.copyOf(files);
        this.log = log;
    }

    /** Reloads now and logs the outcome; {@code why} says what asked for it. */
    ReloadResult reload(String why) {
        log.info("reloading the config (" + why + ")");
        ReloadResult r = pipeline.reload(load);
        if (r.ok()) {
            log.info(r.summary());
        } else {
            log.error(r.summary());
        }
        return r;
    }

    /**
     * Watches the files on a daemon thread: a change is reloaded once the files have looked the same for one more
     * look, so that an editor's or a deployment's several writes make one reload. Polling, not a WatchService: it
     * sees a file replaced through a symbolic link (a Kubernetes ConfigMap) and costs two stat calls a second.
     */
    void watch(List<String> loaded) {
        Daemon.start("config-watch", () -> watchLoop(loaded));
        log.info("watching " + files + " for changes (--watch-config)");
    }

    /** {@code applied}: the stamps taken before the running config was read, so no change since is missed. */
    private void watchLoop(List<String> applied) {
        List<String> seen = applied;
        while (pipeline.isActive()) {
            try {
                Thread.sleep(WATCH_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            List<String> now = stamps(files);
            if (now.equals(seen) && !now.equals(applied)) {
                applied = now;
                reload("config file changed");
            }
            seen = now;
        }
    }

    /** Each file's (or directory entry's) path, size and modification time, following links. */
    static List<String> stamps(List<Path> files) {
        List<String> out = new ArrayList<>();
        for (Path f : files) {
            if (Files.isDirectory(f)) {
                try (Stream<Path> s = Files.list(f)) {
                    s.sorted().forEach(p -> out.add(stamp(p)));
                } catch (IOException e) {
                    out.add(f + " unreadable");
                }
            } else {
                out.add(stamp(f));
            }
        }
        return out;
    }

    private static String stamp(Path p) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            return p + " " + a.size() + " " + a.lastModifiedTime().toMillis();
        } catch (IOException e) {
            return p + " missing";
        }
    }
}
