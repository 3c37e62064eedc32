package io.sluice.otlp.consumer;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.core.testing.DirectContext;
import io.sluice.core.testing.HeldLoop;
import io.sluice.core.testing.PipelineHarness;
import java.net.InetSocketAddress;
import java.net.Socket;
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
            HeldLoop.stopWhileBusy(loop, server::stop);

            client.setSoTimeout(10_000);
            HeldLoop.assertClosed(client, "the stopped server left the connection open, nobody reading it");
        } finally {
            server.stop();
        }
    }
}
