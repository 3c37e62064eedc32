package io.sluice.core.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The rules that make one pipeline of a config given in pieces ({@code -c conf.d/}, {@code -c a.yaml -c b.yaml}):
 * a directory stands for its {@code *.yaml} and {@code *.yml} files sorted by name (not recursive; hidden files and
 * {@code *.test.yaml} skipped), a plugin id is defined once across all pieces, and a top-level setting given by
 * several pieces must agree. Every error names both places, so that a user sees which two files disagree.
 */
final class ConfigPieces {
    /** A top-level setting as one piece gave it: its value once parsed, the text written and where. */
    record Setting(String name, Object value, String text, String file, int line) {
    }

    private ConfigPieces() {
    }

    /**
     * The files {@code paths} stand for, in order: a directory's config files sorted by name, anything else as
     * given (a file that cannot be read is reported when it is read). The same file reached twice is an error:
     * its plugins would be defined twice.
     */
    static List<Path> expand(List<Path> paths) {
        if (paths.isEmpty()) {
            throw new ConfigException("no config file given");
        }
        List<Path> files = paths.stream()
                .flatMap(p -> Files.isDirectory(p) ? directory(p).stream() : Stream.of(p)).toList();
        requireDistinct(files);
        return files;
    }

    /** A piece's text, read anew (a reload sees the file as it is now). */
    static String read(Path path) {
        try {
            return Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(path + ": cannot read config: " + e.getMessage());
        }
    }

    /** A directory's {@code *.yaml} and {@code *.yml} files, sorted by name; none is an error. */
    private static List<Path> directory(Path dir) {
        List<Path> files;
        try (Stream<Path> entries = Files.list(dir)) {
            files = entries.filter(ConfigPieces::isConfigFile)
                    .sorted(Comparator.comparing(f -> f.getFileName().toString()))
                    .toList();
        } catch (IOException e) {
            throw new ConfigException(dir + ": cannot list config directory: " + e.getMessage());
        }
        if (files.isEmpty()) {
            throw new ConfigException(dir + ": no config files in the directory (it reads *.yaml and *.yml)");
        }
        return files;
    }

    /**
     * Hidden files are skipped: editors leave {@code .name.yaml.swp}-like copies next to the file, and a
     * Kubernetes ConfigMap volume keeps its real files under {@code ..data}; its visible names are links to them.
     * So are {@code sluice test}'s files ({@code NAME.test.yaml}), which live next to the configs they test.
     */
    private static boolean isConfigFile(Path f) {
        String name = f.getFileName().toString();
        String lower = name.toLowerCase(Locale.ROOT);
        return !name.startsWith(".") && (lower.endsWith(".yaml") || lower.endsWith(".yml"))
                && !lower.endsWith(".test.yaml") && !lower.endsWith(".test.yml") && Files.isRegularFile(f);
    }

    private static void requireDistinct(List<Path> files) {
        Map<Path, Path> seen = new HashMap<>();
        for (Path f : files) {
            Path earlier = seen.putIfAbsent(f.toAbsolutePath().normalize(), f);
            if (earlier != null) {
                throw new ConfigException(f + ": config file given twice"
                        + (earlier.toString().equals(f.toString()) ? "" : " (also as " + earlier + ")"));
            }
        }
    }

    /** One error for every plugin id defined again, naming where it was defined first. */
    static List<ConfigException> duplicateIds(List<PluginConfig> plugins) {
        Map<String, PluginConfig> first = new LinkedHashMap<>();
        List<ConfigException> errors = new ArrayList<>();
        for (PluginConfig p : plugins) {
            PluginConfig earlier = first.putIfAbsent(p.id(), p);
            if (earlier != null) {
                errors.add(ConfigException.at(p.file(), p.line(), p.id(), null, "defined twice: first at "
                        + place(earlier.file(), earlier.line()) + " (plugin ids are unique across all config files)"));
            }
        }
        return errors;
    }

    /**
     * The setting in force once {@code next} is read after {@code current} (null when no piece gave it yet):
     * the same value twice is fine (each piece may state it), two different values are an error naming both.
     */
    static Setting agree(Setting current, Setting next) {
        if (current == null || current.value().equals(next.value())) {
            return current == null ? next : current;
        }
        throw ConfigException.at(next.file(), next.line(), null, null, next.name() + ": " + next.text()
                + " differs from " + current.text() + " set at " + place(current.file(), current.line())
                + " (a top-level setting given in several files must be the same)");
    }

    private static String place(String file, int line) {
        return line > 0 ? file + ":" + line : file;
    }
}
