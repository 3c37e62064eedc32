package io.sluice.forward.consumer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.forward.testutil.Pipelines;
import io.sluice.forward.testutil.Pipelines.Event;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A consumer.Forward connection on an {@link EmbeddedChannel}: bytes go in exactly as split by the test, batches
 * are "published" on the calling thread into a list, and acks come out as outbound buffers. Deterministic.
 */
final class Harness implements ConsumerContext {
    final BatchPool pool = new BatchPool(4);
    final List<Event> events = new ArrayList<>();
    final List<Batch> held = new ArrayList<>();
    final PluginStats stats = Pipelines.stats();
    /** The budget a test may make small; unlimited unless it does. */
    io.sluice.core.message.MemoryBudget memory = io.sluice.core.message.MemoryBudget.unlimited();
    final Log log;
    final ForwardServer server;
    final EmbeddedChannel channel;
    private final long maxMessageSize;
    boolean hold;
    /** Counts published events instead of keeping them (floods too big to keep). */
    boolean countOnly;
    long counted;

    Harness(long maxMessageSize, RecordMapper.PayloadMode mode, String payloadKey, String sharedKey, Map<String, String> users,
            Log log) {
        this(maxMessageSize, mode, payloadKey, sharedKey, users, log, "_meta.", 1024);
    }

    Harness(long maxMessageSize, RecordMapper.PayloadMode mode, String payloadKey, String sharedKey, Map<String, String> users,
            Log log, String eventMetadataPrefix, int dedupChunks) {
        this.log = log;
        this.maxMessageSize = maxMessageSize;
        ForwardServer.Settings s = new ForwardServer.Settings("fwd", "127.0.0.1", 0, maxMessageSize, 1 << 20, mode,
                payloadKey, true, new TagRoutes(Map.of(), false), sharedKey, "server-host", users, null, 1, 1, 4,
                eventMetadataPrefix, false, dedupChunks, 60_000, 1024, 0, 10, 300_000);
        server = new ForwardServer(s, this, new Direct());
        channel = connect();
    }

    Harness() {
        this(1 << 20, RecordMapper.PayloadMode.JSON, "", null, Map.of(), Pipelines.quietLog());
    }

    /** Another connection to the same server (shares its accepted chunk ids and its published events). */
    EmbeddedChannel connect() {
        ForwardConnection c = new ForwardConnection(server);
        return new EmbeddedChannel(c.frames(), c);
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

    void releaseHeld() {
        for (Batch b : held) {
            b.release();
        }
        held.clear();
        channel.runPendingTasks();
    }

    @Override
    public Batch newBatch() {
        return pool.acquire();
    }

    @Override
    public void publish(Batch batch) {
        counted += batch.size();
        for (int i = 0; i < batch.size() && !countOnly; i++) {
            Message m = batch.get(i);
            Map<String, String> fields = new LinkedHashMap<>();
            Map<String, Byte> kinds = new LinkedHashMap<>();
            Metadata md = m.metadata();
            for (int f = 0; f < md.size(); f++) {
                fields.put(md.key(f), md.value(f));
                kinds.put(md.key(f), md.kind(f));
            }
            events.add(new Event(m.tag(), Streams.name(m.stream()), m.timestamp(), m.payloadString(), fields, kinds));
        }
        if (hold) {
            held.add(batch);
        } else {
            batch.release();
        }
    }

    @Override
    public boolean isActive() {
        return true;
    }

    @Override
    public Log log() {
        return log;
    }

    @Override
    public PluginStats stats() {
        return stats;
    }

    @Override
    public io.sluice.core.message.MemoryBudget memory() {
        return memory;
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
