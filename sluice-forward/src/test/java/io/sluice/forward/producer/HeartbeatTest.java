package io.sluice.forward.producer;

import static io.sluice.core.testing.PipelineHarness.await;
import static io.sluice.core.testing.PipelineHarness.freePort;
import static io.sluice.core.testing.PipelineHarness.producer;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import io.sluice.forward.client.ForwardClient;
import io.sluice.forward.client.ForwardConfig;
import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.testutil.ScriptedServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * producer.Forward's heartbeats (UDP and TCP, as out_forward's): a server that stops answering is marked down and
 * left before the ack timeout could have moved anything, and the producer returns to it once it answers again.
 */
@Timeout(60)
class HeartbeatTest {
    /** Longer than any wait here: a move that happens can only be the heartbeats' doing. */
    private static final int ACK_TIMEOUT_MS = 30_000;

    private final List<Pipeline> pipelines = new ArrayList<>();
    private final MemoryLog relayLog = new MemoryLog();

    @AfterEach
    void stop() {
        for (int i = pipelines.size() - 1; i >= 0; i--) {
            pipelines.get(i).stop();
        }
    }

    private Pipeline sinkPipeline(int port) throws Exception {
        Pipeline p = PipelineHarness.builder().yaml("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port
                + "\nOut:\n  Type: test.Collect\n").log(PipelineHarness.quietLog()).start().pipeline();
        pipelines.add(p);
        await("pipeline ready", 10_000, p::isReady);
        return p;
    }

    private Collect sink(int port) throws Exception {
        return producer(sinkPipeline(port), "Out");
    }

    private Pipeline relay(int port, String servers, String heartbeat) throws Exception {
        Pipeline p = PipelineHarness.builder()
                .yaml("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port + "\n  Payload: none\n"
                + "Fwd:\n  Type: producer.Forward\n  RetryBackoffMs: 20\n  MaxRetryBackoffMs: 200\n"
                + "  ConnectTimeoutMs: 1000\n  AckTimeoutMs: " + ACK_TIMEOUT_MS + "\n  Servers: [" + servers + "]\n"
                + heartbeat).log(relayLog.log).start().pipeline();
        pipelines.add(p);
        return p;
    }

    /** Sends events {@code from} … {@code from+n-1} to the relay; returns once the relay acked them all. */
    private static void send(int port, int from, int n) throws Exception {
        try (ForwardClient c = new ForwardClient(ForwardConfig.builder().host("127.0.0.1").port(port).requireAck(true)
                .ackTimeout(Duration.ofSeconds(45)).build())) {
            EventBatch b = c.newBatch();
            for (int i = from; i < from + n; i++) {
                b.add(1_700_000_000L + i, 0, Map.of("id", i));
                if (b.count() == 100) {
                    c.sendPacked("hb", b);
                    b.clear();
                }
            }
            if (!b.isEmpty()) {
                c.sendPacked("hb", b);
            }
        }
    }

    private static List<Integer> ids(Collect c) {
        return c.events.stream().map(Captured::fields).map(f -> Integer.parseInt(f.get("id"))).sorted().toList();
    }

    private static List<Integer> range(int from, int n) {
        return IntStream.range(from, from + n).boxed().toList();
    }

    @Test
    void udpHeartbeatsLeaveASilentServerBeforeTheAckTimeoutAndComeBackToIt() throws Exception {
        try (ScriptedServer primary = new ScriptedServer(0).answerHeartbeats()) {
            int backupPort = freePort();
            Collect backup = sink(backupPort);
            int relayPort = freePort();
            Pipeline r = relay(relayPort, "\"127.0.0.1:" + primary.port() + "\", \"127.0.0.1:" + backupPort + "\"",
                    "  HeartbeatType: udp\n  HeartbeatIntervalMs: 50\n  HeartbeatTimeoutMs: 1500\n  RecoverWaitMs: 300\n");
            await("pipeline ready", 10_000, r::isReady);
            ForwardProducer fwd = producer(r, "Fwd");
            await("heartbeats answered by the primary", 10_000, () -> primary.heartbeats.get() >= 3);

            send(relayPort, 0, 300);
            assertThat(primary.events()).isEqualTo(300);
            assertThat(backup.events).isEmpty();
            assertThat(fwd.pool().connectedServer()).isZero();

            // The primary goes silent without closing anything: acks and heartbeat answers stop.
            primary.frozen = true;
            long t0 = System.nanoTime();
            send(relayPort, 300, 300);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(tookMs).as("moved by the heartbeats, not by the %d ms ack timeout", ACK_TIMEOUT_MS)
                    .isLessThan(ACK_TIMEOUT_MS / 2);
            assertThat(ids(backup)).isEqualTo(range(300, 300));
            assertThat(fwd.pool().serverUp(0)).isFalse();
            assertThat(fwd.isReady()).as("the backup is up").isTrue();
            assertThat(relayLog.text()).contains("server 127.0.0.1:" + primary.port() + " marked down");

            // It answers again: after RecoverWaitMs of answers it is marked up and the producer moves back.
            primary.frozen = false;
            await("the primary marked up and the backup connection retired", 10_000,
                    () -> fwd.pool().serverUp(0) && fwd.pool().connectedServer() != 1);
            send(relayPort, 600, 300);
            assertThat(primary.events()).isEqualTo(600);
            assertThat(ids(backup)).as("nothing more at the backup").isEqualTo(range(300, 300));
            assertThat(relayLog.text()).contains("marked up").contains("moving back to 127.0.0.1:" + primary.port());
        }
    }

    @Test
    void tcpHeartbeatsPassOverAServerThatIsDownAndReturnWhenItIsBack() throws Exception {
        int primaryPort = freePort(); // nothing listens yet
        int backupPort = freePort();
        Collect backup = sink(backupPort);
        int relayPort = freePort();
        Pipeline r = relay(relayPort, "\"127.0.0.1:" + primaryPort + "\", \"127.0.0.1:" + backupPort + "\"",
                "  HeartbeatType: tcp\n  HeartbeatIntervalMs: 50\n  HeartbeatTimeoutMs: 1000\n  RecoverWaitMs: 200\n");
        ForwardProducer fwd = producer(r, "Fwd");
        await("the primary marked down", 10_000, () -> !fwd.pool().serverUp(0));
        await("pipeline ready", 10_000, r::isReady);
        send(relayPort, 0, 200);
        assertThat(ids(backup)).isEqualTo(range(0, 200));

        Collect primary = sink(primaryPort);
        await("the primary marked up and the backup connection retired", 10_000,
                () -> fwd.pool().serverUp(0) && fwd.pool().connectedServer() != 1);
        send(relayPort, 200, 200);
        assertThat(ids(primary)).isEqualTo(range(200, 200));
        assertThat(ids(backup)).isEqualTo(range(0, 200));
    }

    @Test
    void notReadyOnceEveryServerStopsAnswering() throws Exception {
        int sinkPort = freePort();
        Pipeline sink = sinkPipeline(sinkPort);
        int relayPort = freePort();
        Pipeline r = relay(relayPort, "\"127.0.0.1:" + sinkPort + "\"",
                "  HeartbeatType: udp\n  HeartbeatIntervalMs: 50\n  HeartbeatTimeoutMs: 1000\n  RecoverWaitMs: 0\n");
        await("pipeline ready", 10_000, r::isReady);
        ForwardProducer fwd = producer(r, "Fwd");
        send(relayPort, 0, 10);
        // Nothing is being sent: without heartbeats the producer would go on looking ready.
        sink.stop();
        await("not ready", 10_000, () -> !fwd.isReady());
        assertThat(fwd.pool().serverUp(0)).isFalse();
        Collect back = sink(sinkPort);
        await("ready again", 10_000, fwd::isReady);
        send(relayPort, 10, 10);
        assertThat(ids(back)).isEqualTo(range(10, 10));
    }
}
