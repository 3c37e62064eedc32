package io.sluice.forward.consumer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.core.pipeline.Log;
import io.sluice.core.testing.DirectContext;
import io.sluice.core.testing.PipelineHarness;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A consumer.Forward connection on an {@link EmbeddedChannel}: bytes go in exactly as split by the test, batches are
 * "published" on the calling thread into core's {@link DirectContext} ({@link #ctx}: events, held batches, memory,
 * counters), and acks come out as outbound buffers. Deterministic. What is Forward's own here: the server settings,
 * the channel, feeding reads and reading acks back.
 */
final class EmbeddedForward {
    final DirectContext ctx;
    final ForwardServer server;
    final EmbeddedChannel channel;

    EmbeddedForward(long maxMessageSize, RecordMapper.PayloadMode mode, String payloadKey, String sharedKey,
                    Map<String, String> users, Log log) {
        this(maxMessageSize, mode, payloadKey, sharedKey, users, log, "_meta.", 1024);
    }

    EmbeddedForward(long maxMessageSize, RecordMapper.PayloadMode mode, String payloadKey, String sharedKey,
                    Map<String, String> users, Log log, String eventMetadataPrefix, int dedupChunks) {
        ctx = new DirectContext("fwd", "consumer.Forward", 4, log);
        ForwardServer.Settings s = new ForwardServer.Settings("fwd", "127.0.0.1", 0, maxMessageSize, 1 << 20, mode,
                payloadKey, true, new TagRoutes(Map.of(), false), sharedKey, "server-host", users, null, 1, 1, 4,
                eventMetadataPrefix, false, dedupChunks, 60_000, 1024, 0, 10, 300_000);
        server = new ForwardServer(s, ctx, new Direct());
        channel = connect();
    }

    EmbeddedForward() {
        this(1 << 20, RecordMapper.PayloadMode.JSON, "", null, Map.of(), PipelineHarness.quietLog());
    }

    /** Another connection to the same server (shares its accepted chunk ids and its published events). */
    EmbeddedChannel connect() {
        ForwardConnection c = new ForwardConnection(server);
        return new EmbeddedChannel(c.frames(), c);
    }

    /** The value of the plugin's own counter {@code name}, as /metrics exports it. */
    long counter(String name) {
        return ctx.stats().counters().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow()
                .value().get();
    }

    /** Feeds bytes as one read. */
    void feed(byte[] b, int off, int len) {
        feed(channel, b, off, len);
    }

    void feed(EmbeddedChannel ch, byte[] b, int off, int len) {
        ch.writeInbound(Unpooled.wrappedBuffer(b, off, len));
        ch.runPendingTasks();
    }

    /** Everything the server wrote back, concatenated. */
    byte[] outbound() {
        return outbound(channel);
    }

    /** Everything the server wrote back on {@code channel}, concatenated. */
    byte[] outbound(EmbeddedChannel channel) {
        channel.runPendingTasks();
        List<byte[]> parts = new ArrayList<>();
        int total = 0;
        ByteBuf b;
        while ((b = channel.readOutbound()) != null) {
            byte[] x = new byte[b.readableBytes()];
            b.readBytes(x);
            b.release();
            parts.add(x);
            total += x.length;
        }
        byte[] all = new byte[total];
        int at = 0;
        for (byte[] x : parts) {
            System.arraycopy(x, 0, all, at, x.length);
            at += x.length;
        }
        return all;
    }

    /** Releases the batches the context holds and lets the channel run what that resumed (acks, paused reads). */
    void releaseHeld() {
        ctx.releaseHeld();
        channel.runPendingTasks();
    }

    /** Runs tasks on the calling thread. */
    private static final class Direct extends AbstractExecutorService {
        @Override
        public void execute(Runnable command) {
            command.run();
        }

        @Override
        public void shutdown() {
        }

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }
}
