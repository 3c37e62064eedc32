package io.sluice.io.file;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds the files {@link FileConsumer} reads: each pattern is a path or a glob ({@code *}, {@code ?}, {@code [..]},
 * {@code {..}}, {@code **} across folders), matched again every {@code DirScanIntervalSec} so that new files are
 * picked up; paths the {@code BlackList} expression finds are left out.
 */
final class GlobScanner {
    private final List<String> patterns;
    private final Pattern blackList;

    /**
     * @param patterns  paths or globs, in the order their files are opened
     * @param blackList paths it finds are skipped; null: none
     */
    GlobScanner(List<String> patterns, Pattern blackList) {
        this.patterns = List.copyOf(patterns);
        this.blackList = blackList;
    }

    /** Whether a pattern has a wildcard (else it names one file). */
    static boolean isGlob(String p) {
        return p.indexOf('*') >= 0 || p.indexOf('?') >= 0 || p.indexOf('[') >= 0 || p.indexOf('{') >= 0;
    }

    /** The regular files every pattern matches now, pattern by pattern, without the black-listed ones. */
    List<Path> scan() throws IOException {
        List<Path> out = new ArrayList<>();
        for (String pattern : patterns) {
            for (Path p : match(pattern)) {
                if (blackList == null || !blackList.matcher(p.toString()).find()) {
                    out.add(p);
                }
            }
        }
        return out;
    }

    private static List<Path> match(String pattern) throws IOException {
        List<Path> out = new ArrayList<>();
        if (!isGlob(pattern)) {
            Path p = Path.of(pattern);
            if (Files.isRegularFile(p)) {
                out.add(p);
            }
            return out;
        }
        // Walk from the longest folder prefix without wildcards, as deep as the pattern reaches.
        int firstWild = 0;
        while (firstWild < pattern.length() && "*?[{".indexOf(pattern.charAt(firstWild)) < 0) {
            firstWild++;
        }
        int slash = pattern.lastIndexOf('/', firstWild);
        Path base = slash < 0 ? Path.of(".") : Path.of(slash == 0 ? "/" : pattern.substring(0, slash));
        if (!Files.isDirectory(base)) {
            return out;
        }
        String rest = slash < 0 ? pattern : pattern.substring(slash + 1);
        int depth = rest.contains("**") ? 32 : rest.split("/").length;
        PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + pattern);
        if (depth == 1) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(base)) {
                for (Path p : ds) {
                    Path candidate = slash < 0 ? p.getFileName() : p;
                    if (m.matches(candidate) && Files.isRegularFile(p)) {
                        out.add(p);
                    }
                }
            }
            return out;
        }
        try (Stream<Path> s = Files.walk(base, depth)) {
            s.filter(p -> m.matches(slash < 0 ? base.relativize(p) : p) && Files.isRegularFile(p)).forEach(out::add);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return out;
    }
}
