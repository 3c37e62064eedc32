package io.sluice.kafka;

import static io.sluice.core.testing.PipelineHarness.await;
import static io.sluice.kafka.TestPlugins.pipeline;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.kafka.TestPlugins.Events;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The broker goes away and comes back while producer.Kafka is producing: nothing acknowledged is lost. */
class KafkaBrokerRestartTest {
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startBroker() {
        kafka = EmbeddedKafka.startDefault();
    }

    @AfterAll
    static void stopBroker() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void brokerRestartWhileProducingLosesNothingAcknowledged() throws Exception {
        int n = 60_000;
        String topic = "restart";
        kafka.createTopic(topic, 3);
        PipelineHarness p = pipeline("Src:\n  Type: test.Events\n  Count: " + n + "\n  Gated: true\n  Streams: rs\n"
                + "Out:\n  Type: producer.Kafka\n  Streams: rs\n  Servers: [\"" + kafka.bootstrap() + "\"]\n"
                + "  Topic: " + topic + "\n  ModulatorRoutines: 2\n  TimeoutMs: 5000\n  DeliveryTimeoutMs: 60000\n"
                + "  FallbackStream: failed\n  ShutdownTimeoutMs: 60000\n"
                + "Failed:\n  Type: test.Collect\n  Streams: failed\n");
        p.start();
        Events src = Events.last;
        Collect failed = p.collect("Failed");

        src.permits.release(40); // 40 batches of 500
        await("first 20000 acknowledged", 60_000, () -> src.acked.size() >= 20_000);

        // Let the rest flow and take the broker away under it.
        src.permits.release(1000);
        await("producing again", 30_000, () -> src.published.get() > 25_000);
        int ackedBeforeStop = src.acked.size();
        kafka.stop();
        int ackedWhileDown = src.acked.size();
        kafka.restart();

        assertThat(p.pipeline().awaitTermination(120, TimeUnit.SECONDS)).as("pipeline drained after the restart")
                .isTrue();
        System.out.println("restart: acked before stop " + ackedBeforeStop + ", when stopped " + ackedWhileDown
                + ", at the end " + src.acked.size() + ", to fallback " + failed.size());
        assertThat(failed.events).as("nothing failed for good: the client retried through the restart").isEmpty();
        assertThat(src.acked).as("every event acknowledged in the end").hasSize(n);

        Set<Integer> inKafka = readAll(topic, n);
        Set<Integer> missing = new HashSet<>(src.acked.keySet());
        missing.removeAll(inKafka);
        assertThat(missing).as("acknowledged but not in Kafka").isEmpty();
    }

    /** Reads the whole topic with a plain client; returns the event numbers found. */
    private static Set<Integer> readAll(String topic, int expected) throws InterruptedException {
        Properties props = new Properties();
        props.put("bootstrap.servers", kafka.bootstrap());
        Set<Integer> ids = new HashSet<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1),
                    new TopicPartition(topic, 2));
            c.assign(parts);
            c.seekToBeginning(parts);
            await("the topic read back", 60_000, () -> {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    String s = new String(r.value(), StandardCharsets.UTF_8);
                    ids.add(Integer.parseInt(s.substring("event-".length())));
                }
                return ids.size() >= expected;
            });
        }
        return ids;
    }
}
