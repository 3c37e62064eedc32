package io.sluice.forward.testutil;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Reads the Fluent Bit captures kept in this module's test resources ({@code vectors/}, see its README).
 * Loaded from the classpath so that modules using this test-jar read the same bytes. Never skips.
 */
public final class Vectors {
    private Vectors() {
    }

    /**
     * @param relative path under {@code vectors/}
     * @return the file's bytes; throws (failing the test) when it is missing
     */
    public static byte[] read(String relative) {
        String name = "/vectors/" + relative;
        try (InputStream in = Vectors.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("test resource " + name + " not found");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
