package io.sluice.cli;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Where a process's config comes from: the files and directories named on the command line, merged into one
 * pipeline by {@link ConfigLoader#loadPaths}, or the quickstart embedded in the jar. Each {@link #load()} reads
 * the files again, so a reload sees them as they are now, including files added to a directory.
 */
final class ConfigSource {
    static final String QUICKSTART = "examples/quickstart.yaml";

    private final List<Path> paths;
    /** The embedded config's text; null for files. */
    private final String embedded;
    private final ConfigLoader loader = new ConfigLoader(PluginRegistry.defaultRegistry(), System.getenv());

    private ConfigSource(List<Path> paths, String embedded) {
        this.paths = paths;
        this.embedded = embedded;
    }

    /** The config made of these files and directories, in this order. */
    static ConfigSource of(List<Path> paths) {
        return new ConfigSource(List.copyOf(paths), null);
    }

    /** The quickstart pipeline embedded in the jar. */
    static ConfigSource quickstart() throws IOException {
        try (InputStream in = ConfigSource.class.getClassLoader().getResourceAsStream(QUICKSTART)) {
            if (in == null) {
                throw new IOException("embedded " + QUICKSTART + " missing from the jar");
            }
            return new ConfigSource(List.of(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /**
     * Reads and validates the config as it is now; a {@link io.sluice.core.config.ConfigException} names the file.
     * Synchronized with {@link #memoryLimit()}: a reload thread and the main thread share the one loader.
     */
    synchronized List<PluginConfig> load() {
        return embedded == null ? loader.loadPaths(paths) : loader.loadString(embedded, QUICKSTART);
    }

    /** The top-level {@code MemoryLimit} of the last {@link #load()}, in bytes, or null when no piece set one. */
    synchronized Long memoryLimit() {
        return loader.memoryLimit();
    }

    /** The files and directories given, as given (to watch them); empty for the embedded quickstart. */
    List<Path> paths() {
        return paths;
    }

    /** The paths as a user wrote them, for messages: {@code conf.d}, {@code a.yaml b.yaml}. */
    @Override
    public String toString() {
        return embedded != null ? QUICKSTART : paths.stream().map(Path::toString).collect(Collectors.joining(" "));
    }
}
