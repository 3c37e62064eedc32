package io.sluice.forward.consumer;

import static io.sluice.core.testing.PipelineHarness.await;
import static io.sluice.core.testing.PipelineHarness.freePort;
import static io.sluice.core.testing.PipelineHarness.producer;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.HarnessPlugins.Gate;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.forward.testutil.Vectors;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fluentd.logger.FluentLogger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.komamitsu.fluency.EventTime;
import org.komamitsu.fluency.Fluency;
import org.komamitsu.fluency.fluentd.FluencyBuilderForFluentd;

/** consumer.Forward in a running pipeline, over real loopback sockets, with real peers. */
@Timeout(60)
class ConsumerForwardTest {
    private final PipelineHarness.MemoryLog log = new PipelineHarness.MemoryLog();
    private Pipeline pipeline;
    private int port;

    private Collect start(String extraConsumer) throws Exception {
        port = freePort();
        pipeline = PipelineHarness.builder()
                .yaml("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port + "\n" + extraConsumer
                + "Out:\n  Type: test.Collect\n").log(log.log).start().pipeline();
        await("pipeline ready", 10_000, pipeline::isReady);
        return producer(pipeline, "Out");
    }

    @AfterEach
    void stop() {
        if (pipeline != null) {
            pipeline.stop();
        }
    }

    @Test
    void fluentBitCapturesOverTcpWithTheAck() throws Exception {
        Collect out = start("");
        int expected = 0;
        for (String file : List.of("forward-mode-eventtime-meta.bin", "compressed-packed-forward-ack.bin",
                "forward-mode-int-time-compat.bin")) {
            byte[] bytes = Vectors.read("fluent-bit/forward/" + file);
            byte[] acks = FluentBitVectorsTest.acks(FluentBitVectorsTest.chunksIn(bytes));
            try (Socket s = connect()) {
                s.getOutputStream().write(bytes);
                s.getOutputStream().flush();
                assertThat(s.getInputStream().readNBytes(acks.length)).as(file).isEqualTo(acks);
                expected += 2;
                int want = expected;
                await(file + " events", 10_000, () -> out.events.size() == want);
            }
        }
        assertThat(out.events).allSatisfy(e -> {
            assertThat(e.tag()).isEqualTo("dummy.fwd");
            assertThat(e.fields()).containsEntry("message", "hello forward").containsEntry("n", "7");
        });
    }

    private static Map<String, Object> record(int i) {
        Map<String, Object> m = new HashMap<>();
        m.put("id", i);
        m.put("message", "hello \"peer\" " + i);
        m.put("ratio", i / 4.0);
        m.put("ok", i % 2 == 0);
        m.put("nested", Map.of("list", List.of(1, "two")));
        return m;
    }

    private static void assertRecord(Captured e) {
        long id = Long.parseLong(e.fields().get("id"));
        assertThat(e.fields()).containsEntry("message", "hello \"peer\" " + id)
                .containsEntry("ok", String.valueOf(id % 2 == 0))
                .containsEntry("nested", "{\"list\":[1,\"two\"]}");
        assertThat(Double.parseDouble(e.fields().get("ratio"))).isEqualTo(id / 4.0);
        assertThat(e.payload()).startsWith("{").contains("\"message\":\"hello \\\"peer\\\" " + id + "\"");
    }

    @Test
    void fluencyWithAckResponseMode() throws Exception {
        Collect out = start("");
        FluencyBuilderForFluentd b = new FluencyBuilderForFluentd();
        b.setAckResponseMode(true);
        b.setFlushAttemptIntervalMillis(50);
        b.setBufferChunkInitialSize(4096);
        b.setBufferChunkRetentionSize(8192);
        try (Fluency fluency = b.build("127.0.0.1", port)) {
            for (int i = 0; i < 2000; i++) {
                fluency.emit("fluency.ack." + (i % 2), EventTime.fromEpoch(1_700_000_000L + i, i), record(i));
            }
            fluency.flush();
            await("2000 fluency events", 20_000, () -> out.events.size() >= 2000);
            // Acked means fluency's buffer empties: every chunk got its ack back.
            await("fluency buffer drained", 20_000, () -> fluency.getBufferedDataSize() == 0);
        }
        assertThat(out.events).hasSize(2000).allSatisfy(ConsumerForwardTest::assertRecord);
        assertThat(out.events.stream().map(e -> e.fields().get("id")).distinct().count()).isEqualTo(2000);
        Captured e = out.events.stream().filter(x -> x.fields().get("id").equals("7")).findFirst().orElseThrow();
        assertThat(e.tag()).isEqualTo("fluency.ack.1");
        assertThat(e.stream()).isEqualTo("fluency.ack.1");
        assertThat(e.timestamp()).isEqualTo(1_700_000_007L * 1_000_000_000L + 7);
    }

    @Test
    void fluentLoggerJava() throws Exception {
        Collect out = start("");
        FluentLogger logger = FluentLogger.getLogger("", "127.0.0.1", port);
        try {
            for (int i = 0; i < 500; i++) {
                assertThat(logger.log("legacy.tag", record(i), 1_500_000_000L + i)).isTrue();
            }
            logger.flush();
            await("500 fluent-logger events", 20_000, () -> out.events.size() >= 500);
        } finally {
            logger.close();
        }
        assertThat(out.events).hasSize(500).allSatisfy(ConsumerForwardTest::assertRecord).allSatisfy(e -> {
            assertThat(e.tag()).isEqualTo("legacy.tag");
            assertThat(e.timestamp() / 1_000_000_000L - 1_500_000_000L).isEqualTo(Long.parseLong(e.fields().get("id")));
        });
    }

    @Test
    void tagPatternsChooseTheStream() throws Exception {
        port = freePort();
        pipeline = PipelineHarness.builder().yaml("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port + "\n"
                + "  Streams: rest\n  TagStreams:\n    \"app.**\": apps\n    \"{web,api}.*\": front\n"
                + "Apps:\n  Type: test.Collect\n  Streams: apps\nFront:\n  Type: test.Collect\n  Streams: front\n"
                + "Rest:\n  Type: test.Collect\n  Streams: rest\n").log(PipelineHarness.quietLog()).start().pipeline();
        await("pipeline ready", 10_000, pipeline::isReady);
        try (io.sluice.forward.client.ForwardClient c = client()) {
            for (String tag : List.of("app", "app.x.y", "web.access", "api.v1", "other.tag")) {
                c.sendMessage(tag, Map.of("t", tag));
            }
        }
        Collect apps = producer(pipeline, "Apps");
        Collect front = producer(pipeline, "Front");
        Collect rest = producer(pipeline, "Rest");
        await("5 events", 10_000, () -> apps.events.size() + front.events.size() + rest.events.size() == 5);
        assertThat(apps.events).extracting(Captured::tag).containsExactly("app", "app.x.y");
        assertThat(front.events).extracting(Captured::tag).containsExactly("web.access", "api.v1");
        // Unmatched tags go to the consumer's Streams, since they were set.
        assertThat(rest.events).extracting(Captured::tag).containsExactly("other.tag");
    }

    @Test
    void theChunkIsAckedOnlyAfterTheProducerTookTheBatch() throws Exception {
        port = freePort();
        pipeline = PipelineHarness.builder().yaml("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port + "\n"
                + "Slow:\n  Type: test.Gate\n").log(PipelineHarness.quietLog()).start().pipeline();
        await("pipeline ready", 10_000, pipeline::isReady);
        Gate gate = producer(pipeline, "Slow");
        byte[] frame = Vectors.read("fluent-bit/forward/compressed-packed-forward-ack.bin");
        byte[] ack = FluentBitVectorsTest.acks(FluentBitVectorsTest.chunksIn(frame));
        try (Socket s = connect()) {
            s.getOutputStream().write(frame);
            await("the producer holding the batch", 10_000, gate.permits::hasQueuedThreads);
            // The batch is inside deliver(): its completion cannot have fired, so no ack can be on the wire.
            assertThat(s.getInputStream().available()).isZero();
            assertThat(gate.delivered).isZero();
            gate.permits.release();
            assertThat(s.getInputStream().readNBytes(ack.length)).isEqualTo(ack);
            assertThat(gate.delivered).isEqualTo(2);
        }
    }

    /** Fluent Bit's v1.5 form with a metadata map: {@code [tag, [[[EventTime, {metadata}], record]], {chunk}]}. */
    static byte[] frameWithEventMetadata(String chunk) {
        io.sluice.forward.codec.MsgPackWriter w = new io.sluice.forward.codec.MsgPackWriter();
        w.writeArrayHeader(3);
        w.writeString("fb.meta");
        w.writeArrayHeader(1);
        w.writeArrayHeader(2);
        w.writeArrayHeader(2);
        w.writeEventTime(1_700_000_000L, 5);
        w.writeMapHeader(2);
        w.writeString("otlp");
        w.writeMapHeader(1);
        w.writeString("severity_text");
        w.writeString("WARN");
        w.writeString("source");
        w.writeString("tail.0");
        w.writeMapHeader(1);
        w.writeString("log");
        w.writeString("disk almost full");
        w.writeMapHeader(1);
        w.writeString("chunk");
        w.writeString(chunk);
        return w.toByteArray();
    }

    @Test
    void eventMetadataIsKeptUnderTheConfiguredPrefix() throws Exception {
        Collect out = start("  EventMetadataPrefix: \"fb.\"\n");
        try (io.sluice.forward.client.ForwardClient c = client()) {
            c.sendRaw(frameWithEventMetadata("meta-chunk"), "meta-chunk");
        }
        await("1 event", 10_000, () -> out.events.size() == 1);
        Captured e = out.events.peek();
        assertThat(e.tag()).isEqualTo("fb.meta");
        assertThat(e.timestamp()).isEqualTo(1_700_000_000L * 1_000_000_000L + 5);
        assertThat(e.payload()).isEqualTo("{\"log\":\"disk almost full\"}");
        assertThat(e.fields()).containsEntry("log", "disk almost full")
                .containsEntry("fb.source", "tail.0")
                .containsEntry("fb.otlp", "{\"severity_text\":\"WARN\"}")
                .hasSize(3);
    }

    @Test
    void aChunkResentAfterALostAckIsAckedAndDeliveredOnce() throws Exception {
        Collect out = start("");
        byte[] frame = frameWithEventMetadata("resent-chunk");
        byte[] ack = FluentBitVectorsTest.acks(List.of("resent-chunk"));
        for (int attempt = 0; attempt < 3; attempt++) {
            // Each attempt on a new connection, as a client does after its ack went missing.
            try (Socket s = connect()) {
                s.getOutputStream().write(frame);
                assertThat(s.getInputStream().readNBytes(ack.length)).as("ack of attempt " + attempt).isEqualTo(ack);
            }
        }
        // A marker event sent after the copies has arrived, so a second delivery of a copy would have arrived too.
        try (io.sluice.forward.client.ForwardClient c = client()) {
            c.sendMessage("marker", Map.of("m", 1));
        }
        await("the marker", 10_000, () -> out.events.stream().anyMatch(e -> e.tag().equals("marker")));
        assertThat(out.events).filteredOn(e -> e.tag().equals("fb.meta")).hasSize(1);
        assertThat(log.text().split("chunk resent-chunk from /127.0.0.1:[0-9]+ was already accepted", -1))
                .as("each copy logged; log: " + log.text()).hasSize(3);
    }

    @Test
    void udpHeartbeatsAreAnsweredOnTheForwardPort() throws Exception {
        start("");
        try (java.net.DatagramSocket udp = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            udp.setSoTimeout(200);
            for (byte[] ping : List.of(new byte[] {0}, "anything at all".getBytes())) {
                // UDP may drop a datagram: ask again, as a heartbeat sender does each interval, up to a deadline.
                java.net.DatagramPacket reply = new java.net.DatagramPacket(new byte[16], 16);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (true) {
                    udp.send(new java.net.DatagramPacket(ping, ping.length, new InetSocketAddress("127.0.0.1", port)));
                    try {
                        udp.receive(reply);
                        break;
                    } catch (java.net.SocketTimeoutException e) {
                        assertThat(System.nanoTime()).as("an answer within 10 s").isLessThan(deadline);
                    }
                }
                assertThat(reply.getLength()).isEqualTo(1);
                assertThat(reply.getData()[0]).isZero();
                assertThat(reply.getPort()).as("answered from the Forward port").isEqualTo(port);
            }
        }
    }

    @Test
    void udpHeartbeatsCanBeTurnedOff() throws Exception {
        start("  UdpHeartbeat: false\n");
        try (java.net.DatagramSocket udp = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            udp.setSoTimeout(500); // how long an answer that must not come is waited for
            udp.send(new java.net.DatagramPacket(new byte[] {0}, 1, new InetSocketAddress("127.0.0.1", port)));
            java.net.DatagramPacket reply = new java.net.DatagramPacket(new byte[16], 16);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> udp.receive(reply))
                    .isInstanceOf(java.net.SocketTimeoutException.class);
        }
    }

    @Test
    void connectionsAreCounted() throws Exception {
        start("");
        try (Socket a = connect(); Socket b = connect()) {
            await("2 connections", 10_000, () -> pipeline.consumerStats().get(0).connections() == 2);
        }
        await("0 connections", 10_000, () -> pipeline.consumerStats().get(0).connections() == 0);
    }

    private Socket connect() throws Exception {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(20_000);
        return s;
    }

    private io.sluice.forward.client.ForwardClient client() {
        return new io.sluice.forward.client.ForwardClient(io.sluice.forward.client.ForwardConfig.builder()
                .host("127.0.0.1").port(port).requireAck(true).build());
    }
}
