package io.sluice.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options the {@code ./sluice} launcher passes (heap, GC, exit on OutOfMemoryError), read from the
 * launcher script itself, so that a hostile-input test runs the process exactly as a user does.
 */
final class Launcher {
    private Launcher() {
    }

    /** The {@code -X...} options of the launcher's {@code jvm_opts=(...)} line; fails if the script has none. */
    static List<String> jvmOptions() {
        Path script = Path.of(System.getProperty("user.dir")).resolveSibling("sluice");
        List<String> options = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(script)) {
                if (line.startsWith("jvm_opts=(")) {
                    for (String token : line.substring("jvm_opts=(".length(), line.lastIndexOf(')')).split("\\s+")) {
                        if (token.startsWith("-X")) {
                            options.add(token);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the launcher " + script, e);
        }
        if (options.stream().noneMatch(o -> o.startsWith("-Xmx"))) {
            throw new IllegalStateException("no -Xmx on the jvm_opts line of " + script + ": " + options);
        }
        return options;
    }

    /** The launcher's maximum heap in MiB. */
    static int heapMb() {
        for (String o : jvmOptions()) {
            if (o.startsWith("-Xmx") && o.endsWith("m")) {
                return Integer.parseInt(o.substring(4, o.length() - 1));
            }
        }
        throw new IllegalStateException("the launcher's -Xmx is not in MiB: " + jvmOptions());
    }
}
