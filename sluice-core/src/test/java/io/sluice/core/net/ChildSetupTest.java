package io.sluice.core.net;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.core.testing.HeldLoop;
import io.sluice.core.testing.PipelineHarness;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ChildSetup#closeAll}: what a stopping server calls before it shuts its event loops down, since Netty may end
 * a loop without closing its channels. It closes every connection handed to the workers, including one whose
 * registration was still queued on a busy loop when the listener let go.
 */
@Timeout(60)
class ChildSetupTest {
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());

    @AfterEach
    void shutdown() {
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void closeAllClosesAConnectionWhoseRegistrationWasStillQueued() throws Exception {
        ChildSetup children = new ChildSetup(workers, ch -> { });
        ServerListener listener = ServerListener.bind("127.0.0.1", 0, 16, children, "");
        SingleThreadEventExecutor loop = (SingleThreadEventExecutor) workers.next();
        HeldLoop held = HeldLoop.hold(loop);
        try (Socket client = new Socket("127.0.0.1", listener.localAddress().getPort())) {
            // accepted and handed over: its registration waits behind the task holding the loop
            PipelineHarness.await("the registration queued", 10_000, () -> loop.pendingTasks() > 0);
            listener.close();
            CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> children.closeAll(10_000));
            PipelineHarness.await("closeAll to wait on the loop, or return", 10_000,
                    () -> loop.pendingTasks() > 1 || closed.isDone());
            held.close();
            closed.get();

            client.setSoTimeout(10_000);
            HeldLoop.assertClosed(client, "the connection registered after closeAll began was left open");
        } finally {
            held.close();
        }
    }
}
