package io.sluice.forward.producer;

import static io.sluice.core.testing.PipelineHarness.await;
import static io.sluice.core.testing.PipelineHarness.freePort;
import static io.sluice.core.testing.PipelineHarness.producer;
import static io.sluice.core.testing.PipelineHarness.runner;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.forward.client.ForwardClient;
import io.sluice.forward.client.ForwardConfig;
import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.testutil.ScriptedServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * producer.Forward against consumer.Forward and against a scripted server: relays with acks and gzip, withheld
 * acks, failover, a server that is down at first. Every event is counted.
 */
@Timeout(60)
class ProducerForwardTest {
    private final List<Pipeline> pipelines = new ArrayList<>();

    @AfterEach
    void stop() {
        for (int i = pipelines.size() - 1; i >= 0; i--) {
            pipelines.get(i).stop();
        }
    }

    private Pipeline start(String yaml) throws Exception {
        Pipeline p = PipelineHarness.builder().yaml(yaml).log(PipelineHarness.quietLog()).start().pipeline();
        pipelines.add(p);
        return p;
    }

    /** A sink pipeline: consumer.Forward on {@code port} into test.Collect. */
    private Collect sink(int port, String extra) throws Exception {
        Pipeline p = start("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port + "\n" + extra
                + "Out:\n  Type: test.Collect\n");
        await("pipeline ready", 10_000, p::isReady);
        return producer(p, "Out");
    }

    /** A relay pipeline: consumer.Forward on {@code port} into producer.Forward with the given settings. */
    private Pipeline relay(int port, String producerSettings) throws Exception {
        return start("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port + "\n  Payload: none\n"
                + "Fwd:\n  Type: producer.Forward\n  RetryBackoffMs: 20\n  MaxRetryBackoffMs: 200\n" + producerSettings);
    }

    private static Map<String, Object> record(int i) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", i);
        m.put("message", "event \"" + i + "\"\n");
        m.put("ratio", i + 0.5);
        m.put("ok", i % 3 == 0);
        m.put("none", null);
        m.put("nested", Map.of("list", List.of(1, "two", Map.of("k", "v"))));
        return m;
    }

    /** Sends {@code n} events into a relay's consumer in PackedForward batches of 250, each acked by the relay. */
    private static void send(int port, String tag, int from, int n) throws Exception {
        try (ForwardClient c = new ForwardClient(ForwardConfig.builder().host("127.0.0.1").port(port).requireAck(true)
                .ackTimeout(Duration.ofSeconds(30)).build())) {
            EventBatch b = c.newBatch();
            for (int i = from; i < from + n; i++) {
                b.add(1_700_000_000L + i, i, record(i));
                if (b.count() == 250) {
                    c.sendPacked(tag, b);
                    b.clear();
                }
            }
            if (!b.isEmpty()) {
                c.sendPacked(tag, b);
            }
        }
    }

    private static void assertAll(Iterable<Captured> events, int n, String tag) {
        Set<String> ids = new HashSet<>();
        for (Captured e : events) {
            ids.add(e.fields().get("id"));
            int i = Integer.parseInt(e.fields().get("id"));
            assertThat(e.tag()).isEqualTo(tag);
            assertThat(e.timestamp()).isEqualTo((1_700_000_000L + i) * 1_000_000_000L + i);
            assertThat(e.fields()).containsEntry("message", "event \"" + i + "\"\n")
                    .containsEntry("ok", String.valueOf(i % 3 == 0)).containsEntry("none", "null");
            assertThat(Double.parseDouble(e.fields().get("ratio"))).isEqualTo(i + 0.5);
            assertThat(e.fields().get("nested")).isIn("{\"list\":[1,\"two\",{\"k\":\"v\"}]}");
        }
        assertThat(ids).hasSize(n);
    }

    @Test
    void relayWithGzipAndAcksDeliversEveryEventWithItsFields() throws Exception {
        int sinkPort = freePort();
        Collect out = sink(sinkPort, "");
        int relayPort = freePort();
        Pipeline r = relay(relayPort, "  Servers: [\"127.0.0.1:" + sinkPort + "\"]\n  Mode: CompressedPackedForward\n");
        await("pipeline ready", 10_000, r::isReady);
        send(relayPort, "relay.gzip", 0, 10_000);
        // Every relay ack was sent after producer.Forward's deliver returned, i.e. after the sink acked.
        await("10000 events at the sink", 20_000, () -> out.events.size() >= 10_000);
        assertThat(out.events).hasSize(10_000);
        assertAll(out.events, 10_000, "relay.gzip");
        assertThat(runner(r, "Fwd").stats().out()).isEqualTo(10_000);
    }

    @Test
    void msgpackPayloadsAreRelayedAsTheyAre() throws Exception {
        int sinkPort = freePort();
        Collect out = sink(sinkPort, "");
        int relayPort = freePort();
        Pipeline r = start("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + relayPort + "\n  Payload: msgpack\n"
                + "  Metadata: false\nFwd:\n  Type: producer.Forward\n  Servers: [\"127.0.0.1:" + sinkPort + "\"]\n"
                + "  Record: msgpack\n  Mode: Forward\n");
        await("pipeline ready", 10_000, r::isReady);
        send(relayPort, "relay.raw", 0, 1000);
        await("1000 events", 20_000, () -> out.events.size() >= 1000);
        assertAll(out.events, 1000, "relay.raw");
    }

    @Test
    void withheldAcksAreResentAndNothingIsLost() throws Exception {
        try (ScriptedServer server = new ScriptedServer(3)) {
            int relayPort = freePort();
            Pipeline r = relay(relayPort, "  Servers: [\"127.0.0.1:" + server.port() + "\"]\n  AckTimeoutMs: 300\n");
            await("pipeline ready", 10_000, r::isReady);
            send(relayPort, "withheld", 0, 3000);
            await("3000 events acked by the scripted server", 20_000, () -> server.events() == 3000);
            assertThat(server.connections.get()).isGreaterThan(1);
            assertThat(runner(r, "Fwd").stats().retried()).isPositive();
            assertThat(server.records).hasSize(3000);
        }
    }

    @Test
    void failsOverToTheNextServerWhenThePrimaryIsDown() throws Exception {
        int deadPort = freePort();
        int sinkPort = freePort();
        Collect out = sink(sinkPort, "");
        int relayPort = freePort();
        Pipeline r = relay(relayPort, "  Servers: [\"127.0.0.1:" + deadPort + "\", \"127.0.0.1:" + sinkPort + "\"]\n"
                + "  ConnectTimeoutMs: 1000\n");
        await("pipeline ready", 10_000, r::isReady);
        send(relayPort, "failover", 0, 2000);
        await("2000 events", 20_000, () -> out.events.size() >= 2000);
        assertAll(out.events, 2000, "failover");
    }

    @Test
    void failsOverWhenThePrimaryGoesAwayMidStream() throws Exception {
        int primaryPort = freePort();
        Pipeline primary = start("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + primaryPort
                + "\nOut:\n  Type: test.Collect\n");
        await("pipeline ready", 10_000, primary::isReady);
        Collect first = producer(primary, "Out");
        int backupPort = freePort();
        Collect second = sink(backupPort, "");
        int relayPort = freePort();
        Pipeline r = relay(relayPort, "  Servers: [\"127.0.0.1:" + primaryPort + "\", \"127.0.0.1:" + backupPort + "\"]\n"
                + "  ConnectTimeoutMs: 1000\n  AckTimeoutMs: 2000\n");
        await("pipeline ready", 10_000, r::isReady);
        send(relayPort, "mid", 0, 1000);
        await("first 1000 at the primary", 20_000, () -> first.events.size() >= 1000);
        primary.stop();
        send(relayPort, "mid", 1000, 1000);
        await("the rest at the backup", 20_000, () -> first.events.size() + second.events.size() >= 2000);
        List<Captured> all = new ArrayList<>(first.events);
        all.addAll(second.events);
        assertAll(all, 2000, "mid");
        assertThat(second.events).isNotEmpty();
    }

    @Test
    void notReadyWhileNoServerIsReachableThenDeliversEverything() throws Exception {
        int sinkPort = freePort();
        int relayPort = freePort();
        Pipeline r = relay(relayPort, "  Servers: [\"127.0.0.1:" + sinkPort + "\"]\n  ConnectTimeoutMs: 500\n");
        ForwardProducer fwd = producer(r, "Fwd");
        assertThat(fwd.isReady()).isFalse();
        Thread sender = new Thread(() -> {
            try {
                send(relayPort, "late", 0, 500);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        sender.start();
        await("a retry", 20_000, () -> runner(r, "Fwd").stats().retried() > 0);
        Collect out = sink(sinkPort, "");
        sender.join(30_000);
        await("500 events", 20_000, () -> out.events.size() >= 500);
        assertAll(out.events, 500, "late");
        assertThat(fwd.isReady()).isTrue();
    }
}
