package io.sluice.core.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** {@link GzipBody#deflate}: a gzip member any reader takes, the buffer reused, larger bodies grown into. */
class GzipBodyDeflateTest {
    private static byte[] gunzip(byte[] b, int len) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(b, 0, len))) {
            return in.readAllBytes();
        }
    }

    @Test
    void deflatedBodiesInflateBack() throws IOException {
        GzipBody gz = new GzipBody();
        try {
            byte[] small = "{\"event\":\"hello\"}".getBytes(StandardCharsets.UTF_8);
            int n = gz.deflate(small, 0, small.length, 1);
            assertThat(n).isEqualTo(gz.length());
            assertThat(gunzip(gz.output(), n)).isEqualTo(small);

            byte[] large = new byte[300_000];
            new java.util.Random(7).nextBytes(large); // incompressible: the output outgrows the first buffer
            n = gz.deflate(large, 0, large.length, 9);
            assertThat(gunzip(gz.output(), n)).isEqualTo(large);

            byte[] part = Arrays.copyOfRange(large, 1000, 2000);
            n = gz.deflate(large, 1000, 1000, 1);
            byte[] copy = Arrays.copyOf(gz.output(), n);
            assertThat(gz.inflate(copy, 0, n, 1 << 20, null)).isEqualTo(GzipBody.Result.OK);
            assertThat(Arrays.copyOf(gz.output(), gz.length())).isEqualTo(part);
        } finally {
            gz.close();
        }
    }
}
