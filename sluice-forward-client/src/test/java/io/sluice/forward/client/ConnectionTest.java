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

    @ParameterizedTest(name = "requireAck={0}, set={1} -> TCP_NODELAY {2}")
    @CsvSource({
        "false, ,      false", // no ack: the kernel may coalesce small frames, as fluent-logger-java's socket does
        "true,  ,      true", // an ack per frame: the frame's tail must not wait for a delayed TCP ACK
        "false, true,  true",
        "true,  false, false",
    })
    void noDelayFollowsAckModeUnlessSet(boolean requireAck, Boolean set, boolean expected) throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ForwardConfig.Builder b = ForwardConfig.builder().host("127.0.0.1").port(server.getLocalPort())
                    .requireAck(requireAck);
            if (set != null) {
                b.tcpNoDelay(set);
            }
            ForwardConfig cfg = b.build();
            assertThat(cfg.tcpNoDelay()).isEqualTo(expected);
            try (Connection c = Connection.open(cfg); Socket peer = server.accept()) {
                assertThat(c.socket().getTcpNoDelay()).isEqualTo(expected);
            }
        }
    }
}
