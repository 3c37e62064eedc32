package io.sluice.forward.consumer;

import static io.sluice.core.testing.PipelineHarness.producer;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.net.ListenerHandover;
import io.sluice.core.net.ListenerHold;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.ConnectLoop;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reload replaces consumer.Forward with one on the same address: under a hold its listening socket passes from
 * the old consumer to the new one, so a sender connecting throughout is never refused, and a chunk sent on a
 * connection made in between is acked and delivered by the new consumer; the UDP heartbeat socket is kept too.
 */
@Timeout(60)
class ForwardHandoverTest {
    @Test
    void theNewConsumerTakesTheSocketAndNoConnectionIsRefused() throws Exception {
        int port = PipelineHarness.freePort();
        Pipeline a = start(port);
        Pipeline b;
        Socket between;
        byte[] frame = ConsumerForwardTest.frameWithEventMetadata("between");
        byte[] ack = FluentBitVectorsTest.acks(List.of("between"));
        try (ConnectLoop loop = new ConnectLoop(port);
                DatagramSocket heartbeat = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            loop.awaitMore(20);
            try (ListenerHold hold = ListenerHandover.hold()) {
                a.stop();
                between = new Socket("127.0.0.1", port); // no consumer now: the kernel's backlog takes it
                between.getOutputStream().write(frame);
                // and the heartbeat socket's receive buffer keeps a ping for the next consumer to answer
                heartbeat.send(new DatagramPacket(new byte[] {0}, 1, InetAddress.getLoopbackAddress(), port));
                loop.awaitMore(10);
                b = start(port);
            }
            loop.awaitMore(20);
            assertThat(loop.refused()).isZero();
            heartbeat.setSoTimeout(10_000);
            DatagramPacket pong = new DatagramPacket(new byte[8], 8);
            heartbeat.receive(pong);
            assertThat(pong.getLength()).as("the ping sent in between answered").isEqualTo(1);
        }
        try {
            between.setSoTimeout(20_000);
            assertThat(between.getInputStream().readNBytes(ack.length)).isEqualTo(ack);
            Collect out = producer(b, "Out");
            PipelineHarness.await("the chunk delivered by the new consumer", 10_000, () -> !out.events.isEmpty());
            assertThat(out.events).extracting(Captured::tag).containsExactly("fb.meta");
            Collect old = producer(a, "Out");
            assertThat(old.events).isEmpty();
        } finally {
            between.close();
            b.stop();
        }
        // outside a hold, stopping frees the port
        ConnectLoop.awaitRefused(port);
        try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
    }

    private static Pipeline start(int port) throws Exception {
        Pipeline p = PipelineHarness.builder().yaml("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port
                + "\nOut:\n  Type: test.Collect\n").log(PipelineHarness.stderrLog()).start().pipeline();
        PipelineHarness.await("pipeline ready", 10_000, p::isReady);
        return p;
    }
}
