package io.sluice.forward.client;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Fuzz target for the client's side of the Forward shared-key handshake: what a server (or anything that answers
 * on its port) sends as HELO and PONG, read through {@link ResponseReader} with the client's default response
 * limit. The contract: the handshake completes or fails with an {@link IOException} (a protocol error, a refused
 * or unproven server, the connection ending); any other exception is a finding.
 */
class HandshakeFuzzTest {
    private static final ForwardConfig CONFIG = ForwardConfig.builder().host("localhost")
            .handshake("secret", "client").credentials("alice", "pw").build();

    @FuzzTest(maxDuration = "5m")
    void heloAndPong(byte[] fromServer) {
        ResponseReader in = new ResponseReader(new ByteArrayInputStream(fromServer), CONFIG.maxResponseBytes());
        try {
            Handshake.run(CONFIG, in, OutputStream.nullOutputStream());
        } catch (IOException e) {
            // The protocol's errors: the client closes the connection and reports them.
        }
    }
}
