package io.sluice.forward.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.codec.ForwardEncoder;
import io.sluice.forward.codec.MsgPackWriter;
import io.sluice.forward.codec.TimeFormat;
import io.sluice.forward.testutil.CollectingSink;
import io.sluice.forward.testutil.TestForwardServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ForwardClientTest {
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
        return ForwardConfig.builder().host("127.0.0.1").port(server.port())
                .retryBackoff(Duration.ofMillis(10), Duration.ofMillis(50));
    }

    @Test
    void sendsEveryMode() throws Exception {
        try (ForwardClient client = new ForwardClient(config().build())) {
            client.connect();
            assertThat(client.isConnected()).isTrue();
            client.sendMessage("m", Instant.ofEpochSecond(100, 5), Map.of("mode", "message"));
            EventBatch batch = client.newBatch();
            batch.add(200, 6, Map.of("mode", "batch", "i", 1));
            batch.add(201, 7, Map.of("mode", "batch", "i", 2));
            client.sendForward("f", batch);
            client.sendPacked("p", batch);
            client.sendCompressed("c", batch);
            client.sendMessageRaw("r", 300, 0, new byte[] {(byte) 0x81, (byte) 0xa1, 'k', 1});
            MsgPackWriter raw = new MsgPackWriter();
            new ForwardEncoder().message(raw, "raw", 400, 0, Map.of("whole", "frame"), null);
            client.sendRaw(raw.toByteArray());
            server.awaitEvents(9, WAIT);
        }
        assertThat(server.events()).extracting(CollectingSink.Event::tag)
                .containsExactly("m", "f", "f", "p", "p", "c", "c", "r", "raw");
        CollectingSink.Event first = server.events().get(0);
        assertThat(first.seconds()).isEqualTo(100);
        assertThat(first.nanos()).isEqualTo(5);
        assertThat(server.events().get(5).record()).isEqualTo(Map.of("mode", "batch", "i", 1L));
        assertThat(server.events().get(7).record()).isEqualTo(Map.of("k", 1L));
        assertThat(server.options().get(3).compressed()).isEqualTo("gzip");
        assertThat(server.chunks()).isEmpty();
    }

    @Test
    void integerTimeFormat() throws Exception {
        try (ForwardClient client = new ForwardClient(config().timeFormat(TimeFormat.INTEGER).build())) {
            client.sendMessage("t", Instant.ofEpochSecond(100, 5), Map.of("a", 1));
            server.awaitEvents(1, WAIT);
        }
        assertThat(server.events().get(0).nanos()).isZero();
    }

    @Test
    void ackModeWaitsForEachAck() throws Exception {
        try (ForwardClient client = new ForwardClient(config().requireAck(true).build())) {
            client.sendMessage("a", Map.of("n", 1));
            EventBatch batch = client.newBatch();
            batch.add(Instant.now(), Map.of("n", 2));
            client.sendForward("a", batch);
            client.sendPacked("a", batch);
            client.sendCompressed("a", batch);
            // Each send returned, so each frame had been acknowledged: all are there already.
            assertThat(server.events()).hasSize(4);
        }
        assertThat(server.chunks()).hasSize(4).doesNotHaveDuplicates();
        assertThat(server.connections()).isEqualTo(1);
    }

    @Test
    void withheldAckTimesOutThenTheSameChunkIsResentAndAcknowledged() throws Exception {
        server.dropNextAcks(1);
        ForwardConfig cfg = config().requireAck(true).ackTimeout(Duration.ofMillis(300)).maxRetries(2).build();
        try (ForwardClient client = new ForwardClient(cfg)) {
            client.sendMessage("a", Map.of("n", 1));
        }
        // Exactly 2 unless a loaded machine delays the second ack past 300 ms too: never fewer,
        // and every copy carries the same chunk id.
        assertThat(server.chunks()).hasSizeGreaterThanOrEqualTo(2);
        assertThat(java.util.Set.copyOf(server.chunks())).hasSize(1);
        assertThat(server.connections()).isEqualTo(server.chunks().size());
    }

    @Test
    void ackTimeoutWithoutRetriesThrows() {
        server.dropNextAcks(Integer.MAX_VALUE);
        ForwardConfig cfg = config().requireAck(true).ackTimeout(Duration.ofMillis(200)).maxRetries(0).build();
        try (ForwardClient client = new ForwardClient(cfg)) {
            assertThatThrownBy(() -> client.sendMessage("a", Map.of("n", 1)))
                    .isInstanceOf(AckTimeoutException.class)
                    .hasMessageContaining("within 200 ms");
        }
    }

    @Test
    void reconnectsWhenTheServerClosesTheConnection() throws Exception {
        server.closeAfterFrames(1); // the first frame is read, never acknowledged, connection closed
        try (ForwardClient client = new ForwardClient(config().requireAck(true).build())) {
            client.sendMessage("a", Map.of("n", 1));
            client.sendMessage("a", Map.of("n", 2));
        }
        assertThat(server.connections()).isEqualTo(2);
        assertThat(server.events()).extracting(e -> e.record().get("n")).containsExactly(1L, 1L, 2L);
        assertThat(server.chunks()).hasSize(3);
    }

    @Test
    void reconnectsAfterTheServerDroppedAnIdleConnection() throws Exception {
        try (ForwardClient client = new ForwardClient(config().requireAck(true).build())) {
            client.sendMessage("a", Map.of("n", 1));
            server.dropConnections();
            client.sendMessage("a", Map.of("n", 2));
        }
        assertThat(server.connections()).isEqualTo(2);
        assertThat(server.events()).extracting(e -> e.record().get("n")).contains(1L, 2L);
    }

    @Test
    void failsAfterRetriesWhenNoServerListens() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ForwardConfig cfg = ForwardConfig.builder().port(port).maxRetries(2)
                .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(5)).build();
        try (ForwardClient client = new ForwardClient(cfg)) {
            assertThatThrownBy(() -> client.sendMessage("a", Map.of("n", 1))).isInstanceOf(IOException.class);
        }
    }

    @Test
    void handshakeWithSharedKey() throws Exception {
        server.requireSharedKey("s3cret");
        try (ForwardClient client = new ForwardClient(config().requireAck(true).handshake("s3cret", "me").build())) {
            client.sendMessage("a", Map.of("n", 1));
        }
        assertThat(server.events()).hasSize(1);
    }

    @Test
    void handshakeWithWrongKeyIsRefusedWithoutRetries() {
        server.requireSharedKey("s3cret");
        try (ForwardClient client = new ForwardClient(config().handshake("wrong", "me").build())) {
            assertThatThrownBy(client::connect)
                    .isInstanceOf(ForwardAuthenticationException.class)
                    .hasMessageContaining("shared_key mismatch");
        }
        assertThat(server.connections()).isEqualTo(1);
    }

    @Test
    void closedClientRefusesToSend() {
        ForwardClient client = new ForwardClient(config().build());
        client.close();
        assertThatThrownBy(() -> client.sendMessage("a", Map.of())).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> client.sendCompressed("a", client.newBatch())).isInstanceOf(IOException.class);
    }

    @Test
    void closeUnblocksASendWaitingForItsAck() throws Exception {
        server.dropNextAcks(Integer.MAX_VALUE);
        ForwardClient client = new ForwardClient(config().requireAck(true)
                .ackTimeout(Duration.ofSeconds(60)).maxRetries(5).build());
        CompletableFuture<Throwable> send = CompletableFuture.supplyAsync(() -> {
            try {
                client.sendMessage("a", Map.of("n", 1));
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        server.await(() -> server.frames() >= 1, WAIT, "the frame");
        client.close();
        assertThat(send.get(10, TimeUnit.SECONDS)).isInstanceOf(IOException.class);
        assertThat(server.connections()).isEqualTo(1);
    }
}
