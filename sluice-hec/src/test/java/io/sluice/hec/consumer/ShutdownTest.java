package io.sluice.hec.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.DirectContext;
import io.sluice.core.testing.HeldLoop;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.hec.Support;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A graceful stop answers the requests whose events are still being delivered before it closes their
 * connections: their events are delivered during the drain anyway, and a client left without an answer would
 * send them again (duplicates at every restart of a receiver). And it closes every connection: one left open after
 * its event loop is gone is read by nobody, and its client's next request waits for ever.
 */
@Timeout(60)
class ShutdownTest {
    @Test
    void stopAnswersTheRequestsInDeliveryBeforeClosing() throws Exception {
        int p = PipelineHarness.freePort();
        PipelineHarness pipe = Support.receiver(p, "drain", Map.of("MaxPendingEvents", 1));
        try {
            pipe.collect("drain").hold();
            byte[] three = Support.post("/services/collector/event",
                    "{\"event\":1}{\"event\":2}{\"event\":3}".getBytes(StandardCharsets.UTF_8));
            // Own threads, not the common pool: with one pool thread (2 CPUs) the stop below would queue behind
            // this blocked request.
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();
            CompletableFuture<Support.Reply> inDelivery = CompletableFuture.supplyAsync(() -> {
                try {
                    return Support.exchange(p, three);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, threads);
            PipelineHarness.await("the three events pending", 10_000, () -> health(p) == 503);
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(pipe::close, threads);
            PipelineHarness.await("the receiver to stop accepting connections", 10_000, () -> !listening(p));
            assertThat(inDelivery).as("no answer before delivery").isNotDone();
            pipe.collect("drain").open();
            Support.Reply reply = inDelivery.get();
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.body()).isEqualTo("{\"text\":\"Success\",\"code\":0}");
            stopping.get();
            threads.shutdown();
            assertThat(pipe.captured("drain")).extracting(Captured::payload).containsExactly("1", "2", "3");
        } finally {
            pipe.collect("drain").open();
            pipe.close();
        }
    }

    /**
     * Netty ends an event loop shut down with no quiet period without closing its channels when the shutdown begins
     * while the loop runs a task (it closes them only when it sees the shutdown after its I/O): the stop must close its
     * connections itself. Here the loop is held in a task until the stop reaches it, as a busy loop would be.
     */
    @Test
    void stopClosesAKeptAliveConnectionEvenWhenItsLoopIsBusyAsTheStopBegins() throws Exception {
        HecServer.Settings settings = new HecServer.Settings();
        settings.port = 0;
        settings.ioThreads = 1;
        HecServer server = new HecServer(settings, new DirectContext("hec", "consumer.HEC", 64,
                PipelineHarness.quietLog()));
        InetSocketAddress at = server.start();
        try (Socket client = new Socket(at.getAddress(), at.getPort())) {
            client.setSoTimeout(10_000);
            client.getOutputStream().write("GET /services/collector/health HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(Support.read(client.getInputStream()).status()).as("served, kept alive").isEqualTo(200);

            SingleThreadEventExecutor loop = (SingleThreadEventExecutor) server.workers().next();
            HeldLoop.stopWhileBusy(loop, server::stop);

            HeldLoop.assertClosed(client, "the stopped server left the connection open, nobody reading it");
        } finally {
            server.stop();
        }
    }

    private static int health(int port) {
        try {
            return Support.exchange(port, "GET /services/collector/health HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII)).status();
        } catch (IOException e) {
            return -1;
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
