package io.sluice.forward.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(30)
class ConnectionTest {

    @ParameterizedTest(name = "sender default {0}, set={1} -> TCP_NODELAY {2}")
    @CsvSource({
        "false, ,      false", // the blocking client without acks: the kernel may coalesce one-event frames
        "true,  ,      true", // acks, or the emitter's whole chunks: a last segment must not wait for a delayed ACK
        "false, true,  true",
        "true,  false, false",
    })
    void noDelayIsTheSendersDefaultUnlessSet(boolean senderDefault, Boolean set, boolean expected) throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ForwardConfig.Builder b = ForwardConfig.builder().host("127.0.0.1").port(server.getLocalPort());
            if (set != null) {
                b.tcpNoDelay(set);
            }
            ForwardConfig cfg = b.build();
            assertThat(cfg.tcpNoDelay()).isEqualTo(set);
            try (Connection c = Connection.open(cfg, senderDefault); Socket peer = server.accept()) {
                assertThat(c.socket().getTcpNoDelay()).isEqualTo(expected);
            }
        }
    }
}
