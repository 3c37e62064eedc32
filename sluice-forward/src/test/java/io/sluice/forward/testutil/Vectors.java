package io.sluice.forward.testutil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Finds {@code shared/vectors}: beside the repository in CI, above it locally. Never skips. */
public final class Vectors {
    private Vectors() {
    }

    /** @return the vectors directory; throws (failing the test) when it cannot be found */
    public static Path dir() {
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path d = start; d != null; d = d.getParent()) {
            Path candidate = d.resolve("shared").resolve("vectors");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("shared/vectors not found walking up from " + start
                + "; the Fluent Bit vectors must be present (CI lays shared/ beside the clone)");
    }

    /**
     * @param relative path under the vectors directory
     * @return the file's bytes
     */
    public static byte[] read(String relative) {
        try {
            return Files.readAllBytes(dir().resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
