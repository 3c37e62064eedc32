package io.sluice.hec.producer;

import java.io.IOException;

/**
 * Where {@code producer.SplunkHEC} sends request bodies. The real one is HTTP ({@link HecHttp}); benchmarks and
 * tests plug in a sink that consumes the bytes without a network, as the OTel exporter's benchmarks use a mock
 * worker. The body is valid only during the call.
 */
public interface HecTransport {
    /** Posts {@code body[off, off+len)} to {@code pathAndQuery}; I/O errors are retried by the caller. */
    HecResponse post(String pathAndQuery, byte[] body, int off, int len, boolean gzip)
            throws IOException, InterruptedException;

    /** A GET (the health check). */
    default HecResponse get(String path) throws IOException, InterruptedException {
        return new HecResponse(200, "{\"text\":\"HEC is healthy\",\"code\":17}", -1);
    }
}
