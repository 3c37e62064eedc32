package io.sluice.forward.consumer;

import static io.sluice.core.testing.PipelineHarness.await;
import static io.sluice.core.testing.PipelineHarness.freePort;
import static io.sluice.core.testing.PipelineHarness.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.pipeline.StartException;
import io.sluice.core.testing.DirectContext;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.HarnessPlugins.Count;
import io.sluice.core.testing.HarnessPlugins.Gate;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import io.sluice.forward.client.ForwardClient;
import io.sluice.forward.client.ForwardConfig;
import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.codec.ForwardEncoder;
import io.sluice.forward.codec.MsgPackWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * consumer.Forward on real sockets against hostile or greedy peers: frames and gzip payloads larger than the
 * memory budget or the caps, a spent budget, a million events in one frame, unauthenticated floods, too many
 * connections, idle ones, a port in use and a lost listener. Each is refused and counted on {@code /metrics}
 * (or waited out, for the spent budget), and the process goes on serving.
 */
@Timeout(120)
class ResourceLimitsTest {
    private final MemoryLog log = new MemoryLog();
    private final List<Pipeline> pipelines = new ArrayList<>();
    private int port;

    @AfterEach
    void stop() {
        for (Pipeline p : pipelines) {
            p.stop();
        }
    }

    private Pipeline start(String settings, String producer, MemoryBudget memory) throws Exception {
        port = freePort();
        Pipeline p = PipelineHarness.builder()
                .yaml("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port + "\n" + settings
                + "Out:\n  Type: " + producer + "\n").log(log.log).memory(memory).start().pipeline();
        pipelines.add(p);
        await("pipeline ready", 10_000, p::isReady);
        return p;
    }

    private static PluginStats stats(Pipeline p) {
        return p.consumerStats().get(0);
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(30_000);
        return s;
    }

    /** Writes {@code bytes} (as much as the server takes) and expects the server to close the connection. */
    private void expectClosedAfter(byte[] bytes) throws Exception {
        try (Socket s = connect()) {
            try {
                s.getOutputStream().write(bytes);
                s.getOutputStream().flush();
            } catch (SocketException closedWhileWriting) {
                return;
            }
            InputStream in = s.getInputStream();
            while (in.read() != -1) {
                // HELO, a PONG: skip to the end of stream
            }
        } catch (SocketException reset) {
            // a reset is a close too (the server closed with our bytes unread)
        }
    }

    /** A well-behaved client (the project's own) is still served, with its ack. */
    private void stillServes(Pipeline p) throws Exception {
        Collect out = producer(p, "Out");
        int before = out.events.size();
        try (ForwardClient c = new ForwardClient(ForwardConfig.builder().host("127.0.0.1").port(port).requireAck(true)
                .maxRetries(0).build())) {
            c.sendMessage("good", Map.of("ok", true));
        }
        await("the good event", 10_000, () -> out.events.size() == before + 1);
    }

    private static void awaitNothingReserved(Pipeline p) throws InterruptedException {
        await("every reserved byte back (used " + p.memory().used() + ")", 10_000, () -> p.memory().used() == 0);
    }

    /** {@code [tag, bin32 of declared bytes, ...} followed by {@code sent} bytes of it. */
    private static byte[] packedHeader(int declared, int sent) {
        byte[] b = new byte[9 + sent];
        byte[] head = {(byte) 0x93, (byte) 0xa1, 't', (byte) 0xc6, (byte) (declared >>> 24), (byte) (declared >>> 16),
                (byte) (declared >>> 8), (byte) declared};
        System.arraycopy(head, 0, b, 0, head.length);
        return b;
    }

    @Test
    void aFrameBiggerThanTheBudgetIsRefusedAndTheProcessServesTheNextClient() throws Exception {
        Pipeline p = start("", "test.Collect", new MemoryBudget(1 << 20));
        expectClosedAfter(packedHeader(5 << 20, 64 << 10));
        await("counted", 10_000, () -> stats(p).rejected(Rejection.TOO_LARGE) == 1);
        assertThat(log.text()).contains("rejected (too_large) from /127.0.0.1:").contains("memory budget");
        stillServes(p);
        awaitNothingReserved(p);
    }

    /** A CompressedPackedForward frame whose payload inflates to {@code n} zero bytes (built without holding them). */
    private static byte[] gzipBomb(long n) throws IOException {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(gz)) {
            byte[] zeros = new byte[64 << 10];
            for (long done = 0; done < n; done += zeros.length) {
                z.write(zeros, 0, (int) Math.min(zeros.length, n - done));
            }
        }
        byte[] payload = gz.toByteArray();
        MsgPackWriter w = new MsgPackWriter();
        w.writeArrayHeader(3);
        w.writeString("bomb");
        w.writeBin(payload, 0, payload.length);
        w.writeMapHeader(2);
        w.writeString("compressed");
        w.writeString("gzip");
        w.writeString("chunk");
        w.writeString("bomb-chunk");
        return w.toByteArray();
    }

    @Test
    void aGzipBombOverTheCapIsRefused() throws Exception {
        Pipeline p = start("  MaxDecompressedSize: 1048576\n", "test.Collect", MemoryBudget.unlimited());
        expectClosedAfter(gzipBomb(64L << 20)); // 64 KB on the wire
        await("counted", 10_000, () -> stats(p).rejected(Rejection.TOO_LARGE) == 1);
        assertThat(log.text()).contains("larger than MaxDecompressedSize (1048576 bytes)");
        stillServes(p);
        assertThat(((Collect) producer(p, "Out")).events).hasSize(1);
    }

    @Test
    void aGzipBombUnderTheCapButOverTheBudgetIsRefused() throws Exception {
        // The default cap (128 MiB) allows 6 MiB; a 4 MiB budget never could.
        Pipeline p = start("", "test.Collect", new MemoryBudget(4 << 20));
        expectClosedAfter(gzipBomb(6L << 20));
        await("counted", 10_000, () -> stats(p).rejected(Rejection.TOO_LARGE) == 1);
        assertThat(stats(p).rejected(Rejection.BUSY)).as("refused, not waited for").isZero();
        assertThat(log.text()).contains("memory budget");
        stillServes(p);
        assertThat(((Collect) producer(p, "Out")).events).hasSize(1);
        awaitNothingReserved(p);
    }

    private static byte[] packed(String chunk, int firstId, int events, int pad) {
        EventBatch b = new EventBatch();
        for (int i = firstId; i < firstId + events; i++) {
            b.add(1_700_000_000L + i, 0, Map.of("id", i, "pad", "p".repeat(pad)));
        }
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().packed(out, "greedy", b, chunk);
        return out.toByteArray();
    }

    @Test
    void whenTheBudgetIsSpentReadingStopsAndNothingIsAckedUntilMemoryIsReleased() throws Exception {
        Pipeline p = start("", "test.Gate", new MemoryBudget(512 << 10));
        Gate gate = producer(p, "Out");
        List<String> chunks = new ArrayList<>();
        ByteArrayOutputStream frames = new ByteArrayOutputStream();
        for (int f = 0; f < 20; f++) {
            chunks.add("chunk-" + f);
            frames.writeBytes(packed("chunk-" + f, f * 100, 100, 100)); // about 100 KB each once decoded
        }
        byte[] ack = FluentBitVectorsTest.acks(chunks);
        try (Socket s = connect()) {
            s.getOutputStream().write(frames.toByteArray());
            s.getOutputStream().flush();
            await("the budget spent", 10_000, () -> stats(p).rejected(Rejection.BUSY) >= 1);
            assertThat(p.memory().used()).isLessThanOrEqualTo(512 << 10);
            assertThat(s.getInputStream().available()).as("no ack while nothing was delivered").isZero();
            assertThat(gate.delivered).isZero();
            gate.permits.release(100_000); // the producer catches up: memory comes back, reading resumes
            assertThat(s.getInputStream().readNBytes(ack.length)).isEqualTo(ack);
            await("every event", 10_000, () -> gate.delivered == 2000);
        }
        awaitNothingReserved(p);
        assertThat(gate.delivered).as("each once").isEqualTo(2000);
    }

    @Test
    void aMillionRecordsInOnePackedForwardAreDeliveredInPartsWithinTheBudget() throws Exception {
        Pipeline p = start("", "test.Count", new MemoryBudget(16 << 20));
        Count count = producer(p, "Out");
        byte[] frame = MemoryBudgetTest.millionEmptyRecords();
        byte[] ack = FluentBitVectorsTest.acks(List.of("million"));
        try (Socket s = connect()) {
            s.getOutputStream().write(frame);
            s.getOutputStream().flush();
            assertThat(s.getInputStream().readNBytes(ack.length)).isEqualTo(ack);
            assertThat(count.delivered.get()).as("acked after all were delivered").isEqualTo(1_000_000);
        }
        assertThat(stats(p).rejected(Rejection.BUSY)).as("decoded in parts, waiting for memory").isPositive();
        awaitNothingReserved(p);
    }

    @Test
    void unauthenticatedConnectionsMayBufferOnlyAFewKilobytes() throws Exception {
        Pipeline p = start("  SharedKey: s3cret\n", "test.Collect", new MemoryBudget(64 << 20));
        for (int i = 0; i < 8; i++) {
            // 30 MiB declared (under MaxMessageSize), 64 KiB sent, no PING first.
            expectClosedAfter(packedHeader(30 << 20, 64 << 10));
        }
        await("8 counted", 10_000, () -> stats(p).rejected(Rejection.AUTH) == 8);
        assertThat(stats(p).rejected(Rejection.TOO_LARGE)).isZero();
        assertThat(log.text()).contains("before the handshake");
        awaitNothingReserved(p);
        // A client with the key is served.
        Collect out = producer(p, "Out");
        try (ForwardClient c = new ForwardClient(ForwardConfig.builder().host("127.0.0.1").port(port).requireAck(true)
                .maxRetries(0).handshake("s3cret", "client").build())) {
            c.sendMessage("secure", Map.of("n", 1));
        }
        await("the event", 10_000, () -> out.events.size() == 1);
    }

    @Test
    void connectionsBeyondTheLimitAreClosedAndCounted() throws Exception {
        Pipeline p = start("  MaxConnections: 2\n", "test.Collect", MemoryBudget.unlimited());
        try (Socket a = connect(); Socket b = connect()) {
            assertThat(a.isConnected() && b.isConnected()).isTrue();
            await("2 connections", 10_000, () -> stats(p).connections() == 2);
            try (Socket c = connect()) {
                assertThat(c.getInputStream().read()).as("the third is closed").isEqualTo(-1);
            }
            await("counted", 10_000, () -> stats(p).rejected(Rejection.BUSY) == 1);
            assertThat(stats(p).connections()).isEqualTo(2);
        }
        await("0 connections", 10_000, () -> stats(p).connections() == 0);
        stillServes(p);
        await("0 connections", 10_000, () -> stats(p).connections() == 0);
    }

    @Test
    void idleConnectionsAreClosedButNotOnesWaitingForTheirAck() throws Exception {
        Pipeline p = start("  IdleTimeoutMs: 500\n", "test.Gate", MemoryBudget.unlimited());
        Gate gate = producer(p, "Out");
        byte[] frame = packed("waiting", 0, 3, 10);
        byte[] ack = FluentBitVectorsTest.acks(List.of("waiting"));
        try (Socket idle = connect(); Socket waiting = connect()) {
            waiting.getOutputStream().write(frame);
            waiting.getOutputStream().flush();
            assertThat(idle.getInputStream().read()).as("the idle one is closed").isEqualTo(-1);
            await("counted", 10_000, () -> stats(p).rejected(Rejection.TIMEOUT) == 1);
            await("1 connection", 10_000, () -> stats(p).connections() == 1);
            // The one waiting for its ack was as silent as long, and is still served.
            assertThat(stats(p).rejected(Rejection.TIMEOUT)).isEqualTo(1);
            gate.permits.release(10);
            assertThat(waiting.getInputStream().readNBytes(ack.length)).isEqualTo(ack);
        }
        assertThat(log.text()).contains("rejected (timeout) from /127.0.0.1:").contains("IdleTimeoutMs (500 ms)");
        await("0 connections", 10_000, () -> stats(p).connections() == 0);
    }

    @Test
    void aPortInUseStopsTheStartNamingTheAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int used = taken.getLocalPort();
            assertThatThrownBy(() -> PipelineHarness.builder()
                    .yaml("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + used
                    + "\n  UdpHeartbeat: false\nOut:\n  Type: test.Collect\n").log(log.log).start().pipeline())
                    .isInstanceOf(StartException.class)
                    .hasMessageContaining("In: ")
                    .hasMessageContaining("127.0.0.1:" + used);
        }
    }

    @Test
    void losingTheListenerWhileRunningFailsTheConsumer() throws Exception {
        int p = freePort();
        PluginConfig cfg = PipelineHarness.builder().yaml("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + p
                + "\nOut:\n  Type: test.Collect\n").configs().stream().filter(c -> c.id().equals("In")).findFirst().orElseThrow();
        ForwardConsumer forward = new ForwardConsumer(cfg);
        DirectContext ctx = new DirectContext("In", "consumer.Forward", 4, PipelineHarness.quietLog()); // publishes into a list, always active
        forward.open(ctx);
        assertThat(forward.isReady()).isTrue();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread consumer = new Thread(() -> {
            try {
                forward.consume(ctx);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        consumer.start();
        forward.server().listener().channel().close().sync();
        consumer.join(10_000);
        assertThat(consumer.isAlive()).isFalse();
        assertThat(failure.get()).isInstanceOf(IOException.class)
                .hasMessageContaining("listening socket on 127.0.0.1:" + p + " closed");
        assertThat(forward.isReady()).isFalse();
    }
}
