package io.sluice.forward.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.forward.codec.ForwardMode;
import io.sluice.forward.testutil.CollectingSink;
import io.sluice.forward.testutil.TestForwardServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(30)
class ForwardEmitterTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private TestForwardServer server;

    @BeforeEach
    void start() throws IOException {
        server = new TestForwardServer();
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    private ForwardConfig.Builder config() {
        return ForwardConfig.builder().port(server.port())
                .retryBackoff(Duration.ofMillis(10), Duration.ofMillis(50));
    }

    private static Set<Long> ids(TestForwardServer s) {
        return s.events().stream().map(e -> (Long) e.record().get("id")).collect(Collectors.toSet());
    }

    @ParameterizedTest
    @EnumSource(value = ForwardMode.class, names = {"FORWARD", "PACKED_FORWARD", "COMPRESSED_PACKED_FORWARD"})
    void deliversEverythingOnClose(ForwardMode mode) throws Exception {
        ForwardEmitter emitter = ForwardEmitter.builder(config().build())
                .mode(mode).chunkBytes(2048).flushInterval(Duration.ofMillis(50)).build();
        for (int i = 0; i < 1000; i++) {
            assertThat(emitter.emit("tag." + (i % 3), 1_700_000_000_000_000_000L + i,
                    Map.of("id", i, "msg", "event number " + i))).isTrue();
        }
        assertThat(emitter.close(WAIT)).isTrue();
        assertThat(emitter.bufferedBytes()).isZero();
        server.awaitEvents(1000, WAIT);
        assertThat(server.events()).hasSize(1000);
        assertThat(ids(server)).hasSize(1000);
        CollectingSink.Event e = server.events().stream().filter(x -> x.record().get("id").equals(5L))
                .findFirst().orElseThrow();
        assertThat(e.tag()).isEqualTo("tag.2");
        assertThat(e.seconds()).isEqualTo(1_700_000_000L);
        assertThat(e.nanos()).isEqualTo(5);
        assertThat(server.frames()).isGreaterThan(3); // chunked by size, per tag
    }

    @Test
    void flushIntervalSendsWithoutClose() throws Exception {
        try (ForwardEmitter emitter = ForwardEmitter.builder(config().build())
                .flushInterval(Duration.ofMillis(50)).build()) {
            assertThat(emitter.emit("t", Map.of("id", 1))).isTrue();
            server.awaitEvents(1, WAIT);
            assertThat(emitter.emitRaw("t", 0, new byte[] {(byte) 0x81, (byte) 0xa2, 'i', 'd', 2})).isTrue();
            server.awaitEvents(2, WAIT);
        }
        assertThat(ids(server)).containsExactlyInAnyOrder(1L, 2L);
    }

    @Test
    void acksArePipelinedWithinTheWindow() throws Exception {
        // The server acks nothing until 4 chunks have arrived: a stop-and-wait sender would stall.
        server.holdAcksUntil(4);
        ForwardEmitter emitter = ForwardEmitter.builder(config().requireAck(true).ackTimeout(WAIT).build())
                .chunkBytes(256).ackWindow(4).flushInterval(Duration.ofMillis(20)).build();
        for (int i = 0; i < 200; i++) {
            assertThat(emitter.emit("t", Map.of("id", i, "pad", "x".repeat(20)))).isTrue();
        }
        assertThat(emitter.close(WAIT)).isTrue();
        assertThat(emitter.resentChunks()).isZero();
        assertThat(ids(server)).hasSize(200);
        assertThat(server.events()).hasSize(200);
        assertThat(server.chunks()).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(4);
    }

    @Test
    void withheldAckCausesReconnectAndResendOfUnackedChunks() throws Exception {
        server.dropNextAcks(1);
        ForwardEmitter emitter = ForwardEmitter.builder(
                        config().requireAck(true).ackTimeout(Duration.ofMillis(300)).build())
                .chunkBytes(512).ackWindow(3).flushInterval(Duration.ofMillis(20)).build();
        for (int i = 0; i < 100; i++) {
            assertThat(emitter.emit("t", Map.of("id", i))).isTrue();
        }
        assertThat(emitter.close(WAIT)).isTrue();
        assertThat(emitter.resentChunks()).isPositive();
        assertThat(server.connections()).isGreaterThanOrEqualTo(2);
        assertThat(ids(server)).hasSize(100);
        // The unacknowledged chunk came again with the same id, so a server can drop the copy.
        assertThat(server.chunks()).hasSizeGreaterThan(Set.copyOf(server.chunks()).size());
    }

    @Test
    void serverClosingTheConnectionLosesNothing() throws Exception {
        server.closeAfterFrames(2);
        ForwardEmitter emitter = ForwardEmitter.builder(config().requireAck(true).build())
                .chunkBytes(256).ackWindow(4).flushInterval(Duration.ofMillis(20)).build();
        for (int i = 0; i < 100; i++) {
            assertThat(emitter.emit("t", Map.of("id", i, "pad", "y".repeat(10)))).isTrue();
        }
        assertThat(emitter.close(WAIT)).isTrue();
        assertThat(server.connections()).isGreaterThanOrEqualTo(2);
        assertThat(ids(server)).hasSize(100);
    }

    @Test
    void fullBufferRejectsInsteadOfGrowing() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // nobody listens there any more
        }
        ForwardConfig cfg = ForwardConfig.builder().port(port)
                .retryBackoff(Duration.ofMillis(5), Duration.ofMillis(20)).build();
        ForwardEmitter emitter = ForwardEmitter.builder(cfg).bufferCapacity(10_000).chunkBytes(1000)
                .flushInterval(Duration.ofMillis(10)).build();
        int accepted = 0;
        for (int i = 0; i < 2000; i++) {
            if (emitter.emit("t", Map.of("id", i, "pad", "z".repeat(30)))) {
                accepted++;
            }
        }
        assertThat(accepted).isBetween(100, 400);
        assertThat(emitter.rejectedEvents()).isEqualTo(2000 - accepted);
        assertThat(emitter.bufferedBytes()).isBetween(1L, 10_000L);
        assertThat(emitter.close(Duration.ofMillis(100))).isFalse();
        assertThat(emitter.emit("t", Map.of("late", true))).isFalse();
    }

    @Test
    void emitAfterCloseIsRefused() {
        ForwardEmitter emitter = ForwardEmitter.builder(config().build()).build();
        assertThat(emitter.close(WAIT)).isTrue();
        assertThat(emitter.emit("t", Map.of("a", 1))).isFalse();
    }

    @Test
    void emittingFromManyThreads() throws Exception {
        ForwardEmitter emitter = ForwardEmitter.builder(config().requireAck(true).build())
                .chunkBytes(4096).flushInterval(Duration.ofMillis(20)).build();
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            int base = t * 1000;
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 1000; i++) {
                    emitter.emit("t" + (i % 2), Map.of("id", base + i));
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(emitter.close(WAIT)).isTrue();
        assertThat(ids(server)).hasSize(4000);
    }
}
