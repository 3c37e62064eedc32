package io.sluice.hec.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.MemoryBudget;
import io.sluice.core.net.ListenerHandover;
import io.sluice.core.net.ListenerHold;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.ConnectLoop;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.hec.Support;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reload replaces consumer.HEC with one on the same address: under a hold its listening socket passes from the
 * old receiver to the new one, so a client connecting throughout is never refused, and a request sent on a
 * connection made in between is answered by the new receiver.
 */
@Timeout(60)
class HecHandoverTest {
    private static final byte[] AFTER = Support.post("/services/collector/event",
            "{\"event\":\"after the swap\"}".getBytes(StandardCharsets.UTF_8), "Connection: close");

    @Test
    void theNewReceiverTakesTheSocketAndNoConnectionIsRefused() throws Exception {
        int port = PipelineHarness.freePort();
        PipelineHarness a = Support.receiver(port, "out", Map.of());
        PipelineHarness b;
        Socket between;
        try (ConnectLoop loop = new ConnectLoop(port)) {
            loop.awaitMore(20);
            try (ListenerHold hold = ListenerHandover.hold()) {
                a.close();
                between = new Socket("127.0.0.1", port); // no receiver now: the kernel's backlog takes it
                between.getOutputStream().write(AFTER);
                loop.awaitMore(10);
                b = Support.pipeline(port, "out", Map.of(), MemoryBudget.ofHeapShare()).start();
            }
            loop.awaitMore(20);
            assertThat(loop.refused()).isZero();
        }
        try {
            between.setSoTimeout(20_000);
            Support.Reply reply = Support.read(between.getInputStream());
            assertThat(reply.status()).isEqualTo(200);
            assertThat(Support.exchange(port, AFTER).status()).isEqualTo(200);
            assertThat(b.awaitCaptured("out", 2, 10_000)).extracting(Captured::payload)
                    .containsExactly("after the swap", "after the swap");
            assertThat(a.captured("out")).isEmpty();
        } finally {
            between.close();
            b.close();
        }
        // outside a hold, stopping frees the port
        ConnectLoop.awaitRefused(port);
        try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
    }
}
