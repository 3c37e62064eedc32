package io.sluice.otlp.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.MemoryBudget;
import io.sluice.core.net.ListenerHandover;
import io.sluice.core.net.ListenerHold;
import io.sluice.core.testing.ConnectLoop;
import io.sluice.core.testing.PipelineHarness;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reload replaces consumer.OTLP with one on the same addresses: under a hold both listening sockets (gRPC and
 * HTTP) pass from the old receiver to the new one, so clients connecting throughout are never refused, and an
 * export sent on a connection made in between is answered by the new receiver.
 */
@Timeout(60)
class OtlpHandoverTest {
    @Test
    void theNewReceiverTakesBothSocketsAndNoConnectionIsRefused() throws Exception {
        Harness a = new Harness("out", Map.of());
        Harness b;
        Socket between;
        try (ConnectLoop grpc = new ConnectLoop(a.grpcPort); ConnectLoop http = new ConnectLoop(a.httpPort)) {
            grpc.awaitMore(20);
            http.awaitMore(20);
            try (ListenerHold hold = ListenerHandover.hold()) {
                a.close();
                between = new Socket("127.0.0.1", a.httpPort); // no receiver now: the kernel's backlog takes it
                post(between.getOutputStream(), Requests.logsBytes(3));
                grpc.awaitMore(10);
                http.awaitMore(10);
                b = new Harness("out", Map.of(), MemoryBudget.ofHeapShare(), a.grpcPort, a.httpPort);
            }
            grpc.awaitMore(20);
            http.awaitMore(20);
            assertThat(grpc.refused()).isZero();
            assertThat(http.refused()).isZero();
        }
        try {
            between.setSoTimeout(20_000);
            String answer = new String(between.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 200");
            PipelineHarness.await("the export delivered by the new receiver", 10_000, () -> b.received().size() == 3);
            assertThat(a.received()).isEmpty();
        } finally {
            between.close();
            b.close();
        }
        // outside a hold, stopping frees the ports
        for (int port : new int[] {a.grpcPort, a.httpPort}) {
            ConnectLoop.awaitRefused(port);
            try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                assertThat(again.getLocalPort()).isEqualTo(port);
            }
        }
    }

    private static void post(OutputStream out, byte[] body) throws IOException {
        out.write(("POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + OtlpHttpConnection.PROTOBUF
                + "\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }
}
