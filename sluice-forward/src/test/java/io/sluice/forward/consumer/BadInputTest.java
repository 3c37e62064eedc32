package io.sluice.forward.consumer;

import static io.sluice.core.testing.PipelineHarness.await;
import static io.sluice.core.testing.PipelineHarness.freePort;
import static io.sluice.core.testing.PipelineHarness.producer;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import io.sluice.forward.client.ForwardClient;
import io.sluice.forward.client.ForwardConfig;
import io.sluice.forward.codec.MsgPackWriter;
import io.sluice.forward.testutil.Vectors;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile or broken peers: each gets a clear log line naming it and its connection closed, while the process,
 * other connections and events already acknowledged are unaffected.
 */
@Timeout(60)
class BadInputTest {
    private final MemoryLog log = new MemoryLog();
    private Pipeline pipeline;
    private Collect out;
    private int port;

    @BeforeEach
    void start() throws Exception {
        port = freePort();
        pipeline = PipelineHarness.builder().yaml("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port + "\n"
                + "  MaxMessageSize: 65536\nOut:\n  Type: test.Collect\n").log(log.log).start().pipeline();
        await("pipeline ready", 10_000, pipeline::isReady);
        out = producer(pipeline, "Out");
    }

    @AfterEach
    void stop() {
        pipeline.stop();
    }

    private Socket connect() throws Exception {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(10_000);
        return s;
    }

    /** Sends bytes and expects the server to close the connection (read returns end of stream). */
    private void expectClosedAfter(byte[] bytes) throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            assertThat(s.getInputStream().read()).as("server closed the connection").isEqualTo(-1);
        } catch (java.net.SocketException reset) {
            // A reset is also a close (the server closed with our bytes unread).
        }
    }

    /** A well-behaved client is still served, with its ack. */
    private void stillServes() throws Exception {
        int before = out.events.size();
        try (ForwardClient c = new ForwardClient(ForwardConfig.builder().host("127.0.0.1").port(port).requireAck(true)
                .maxRetries(0).build())) {
            c.sendMessage("good", Map.of("ok", true));
        }
        await("the good event", 10_000, () -> out.events.size() == before + 1);
    }

    @Test
    void wrongElementTypes() throws Exception {
        expectClosedAfter(new byte[] {(byte) 0x93, 0x01, 0x02, 0x03}); // [1, 2, 3]: the tag is not a str
        await("log line", 10_000, () -> log.text().contains("malformed Forward frame"));
        assertThat(log.text()).contains("rejected (malformed) from /127.0.0.1:").contains("tag must be a str");
        assertThat(pipeline.consumerStats().get(0).rejected(Rejection.MALFORMED)).isEqualTo(1);
        stillServes();
    }

    @Test
    void randomBytes() throws Exception {
        byte[] junk = new byte[4096];
        new Random(42).nextBytes(junk);
        junk[0] = (byte) 0xc1; // never valid msgpack
        expectClosedAfter(junk);
        await("log line", 10_000, () -> log.text().contains("malformed Forward frame"));
        stillServes();
        assertThat(out.events).hasSize(1);
    }

    @Test
    void twoGigabyteLengthPrefixIsRefusedAtItsHeader() throws Exception {
        long heapBefore = usedHeap();
        // ["abc", bin32 of 2^31-1 bytes, ...]: only the header is sent; the server must not wait for or buffer it.
        expectClosedAfter(new byte[] {(byte) 0x93, (byte) 0xa3, 'a', 'b', 'c', (byte) 0xc6, 0x7f, (byte) 0xff, (byte) 0xff,
                (byte) 0xff});
        await("log line", 10_000, () -> log.text().contains("larger than MaxMessageSize"));
        assertThat(log.text()).contains("MaxMessageSize (65536 bytes)");
        assertThat(usedHeap() - heapBefore).as("heap growth").isLessThan(64L << 20);
        stillServes();
    }

    @Test
    void anOversizedFrameOfSmallPiecesIsRefusedToo() throws Exception {
        // An array header declaring a million elements needs at least a million bytes: refused before any arrive.
        expectClosedAfter(new byte[] {(byte) 0x93, (byte) 0xa1, 'x', (byte) 0xdd, 0x00, 0x0f, 0x42, 0x40});
        await("log line", 10_000, () -> log.text().contains("larger than MaxMessageSize"));
        stillServes();
    }

    @Test
    void invalidGzipMember() throws Exception {
        MsgPackWriter w = new MsgPackWriter();
        w.writeArrayHeader(3);
        w.writeString("bad.gzip");
        byte[] notGzip = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 'n', 'o', 't', ' ', 'd', 'e', 'f', 'l', 'a', 't', 'e'};
        w.writeBin(notGzip, 0, notGzip.length);
        w.writeMapHeader(2);
        w.writeString("compressed");
        w.writeString("gzip");
        w.writeString("chunk");
        w.writeString("Y2h1bmsxMjM0NTY3ODkwMQ==");
        expectClosedAfter(w.toByteArray());
        await("log line", 10_000, () -> log.text().contains("malformed Forward frame"));
        assertThat(out.events).isEmpty();
        stillServes();
    }

    @Test
    void truncatedFrameThenHangUpLosesNothingAlreadyAcked() throws Exception {
        byte[] good = Vectors.read("fluent-bit/forward/compressed-packed-forward-ack.bin");
        byte[] ack = FluentBitVectorsTest.acks(FluentBitVectorsTest.chunksIn(good));
        try (Socket s = connect()) {
            s.getOutputStream().write(good);
            assertThat(s.getInputStream().readNBytes(ack.length)).isEqualTo(ack);
            // Half of another frame, then the peer hangs up.
            s.getOutputStream().write(good, 0, good.length / 2);
            s.getOutputStream().flush();
        }
        await("the acked events", 10_000, () -> out.events.size() == 2);
        await("connection closed", 10_000, () -> pipeline.consumerStats().get(0).connections() == 0);
        assertThat(out.events).hasSize(2);
        stillServes();
    }

    @Test
    void garbageAfterAnAckedFrameKeepsTheAckedEvents() throws Exception {
        byte[] good = Vectors.read("fluent-bit/forward/compressed-packed-forward-ack.bin");
        byte[] ack = FluentBitVectorsTest.acks(FluentBitVectorsTest.chunksIn(good));
        try (Socket s = connect()) {
            s.getOutputStream().write(good);
            assertThat(s.getInputStream().readNBytes(ack.length)).isEqualTo(ack);
            s.getOutputStream().write(new byte[] {(byte) 0xc1, (byte) 0xc1, (byte) 0xc1});
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
        await("the acked events", 10_000, () -> out.events.size() == 2);
        stillServes();
    }

    @Test
    void repeatedGarbageIsLoggedAFewTimesNotThousands() throws Exception {
        for (int i = 0; i < 30; i++) {
            expectClosedAfter(new byte[] {0x01});
        }
        await("summary-able log", 10_000, () -> log.text().contains("malformed Forward frame"));
        long lines = log.text().lines().filter(l -> l.contains("malformed Forward frame")).count();
        assertThat(lines).isLessThanOrEqualTo(5);
        stillServes();
    }

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }
}
