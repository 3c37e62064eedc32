package io.sluice.otlp.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.core.testing.DirectContext;
import io.sluice.core.testing.HeldLoop;
import io.sluice.core.testing.PipelineHarness;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stopped consumer.OTLP closes every connection, even when an event loop is busy as the stop begins: Netty ends a
 * loop shut down with no quiet period without closing its channels when the shutdown begins while the loop runs a
 * task, and a connection left open is read by nobody, its client waiting for an answer for ever.
 */
@Timeout(60)
class OtlpStopTest {
    @Test
    void stopClosesAConnectionEvenWhenItsLoopIsBusyAsTheStopBegins() throws Exception {
        OtlpServer.Settings settings = new OtlpServer.Settings();
        settings.grpcPort = -1;
        settings.httpPort = 0;
        settings.ioThreads = 1;
        DirectContext ctx = new DirectContext("otlp", "consumer.OTLP", 64, PipelineHarness.quietLog());
        OtlpServer server = new OtlpServer(settings, ctx);
        InetSocketAddress at = server.start()[1];
        try (Socket client = new Socket(at.getAddress(), at.getPort())) {
            PipelineHarness.await("the connection served", 10_000, () -> ctx.stats().connections() == 1);
            SingleThreadEventExecutor loop = (SingleThreadEventExecutor) server.workers().next();
            HeldLoop held = HeldLoop.hold(loop);
            CompletableFuture<Void> stopped = CompletableFuture.runAsync(server::stop);
            // The stop reaches the loop: it shuts the loop down, or queues work for it first.
            PipelineHarness.await("the stop to reach the event loop", 10_000,
                    () -> loop.isShuttingDown() || loop.pendingTasks() > 0);
            held.close();
            stopped.get();

            client.setSoTimeout(10_000);
            int read;
            try {
                read = client.getInputStream().read();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the stopped server left the connection open, nobody reading it", e);
            } catch (IOException reset) {
                read = -1; // closed with a reset: as good, the client fails at once
            }
            assertThat(read).as("end of stream: the connection is closed").isEqualTo(-1);
        } finally {
            server.stop();
        }
    }
}
