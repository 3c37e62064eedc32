package io.sluice.kafka;

import static io.sluice.core.testing.PipelineHarness.await;
import static io.sluice.kafka.TestPlugins.pipeline;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.Captured;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.kafka.TestPlugins.Events;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import io.sluice.core.config.PluginRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Assumptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** producer.Kafka and consumer.Kafka against one real in-process KRaft broker. */
class KafkaPipelineTest {
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

    private static String producerYaml(String stream, int start, int count, String extra) {
        return producerYaml(stream, start, count, false, extra);
    }

    private static String producerYaml(String stream, int start, int count, boolean gated, String extra) {
        return "Src:\n  Type: test.Events\n  Start: " + start + "\n  Count: " + count + "\n  Gated: " + gated
                + "\n  Streams: " + stream + "\n"
                + "Out:\n  Type: producer.Kafka\n  Streams: " + stream + "\n  Servers: [\"" + kafka.bootstrap() + "\"]\n"
                + "  ModulatorRoutines: 2\n" + extra;
    }

    private static String consumerYaml(String topic, String group, String stream, String extra) {
        return "In:\n  Type: consumer.Kafka\n  Servers: [\"" + kafka.bootstrap() + "\"]\n  Topic: " + topic + "\n"
                + "  GroupId: " + group + "\n  DefaultOffset: oldest\n  SetMetadata: true\n  Streams: " + stream + "\n" + extra
                + "Sink:\n  Type: test.Collect\n  Streams: " + stream + "\n";
    }

    private static PipelineHarness runToEnd(String yaml) throws Exception {
        PipelineHarness p = pipeline(yaml).start();
        assertThat(p.pipeline().awaitTermination(120, TimeUnit.SECONDS)).as("producing pipeline ended").isTrue();
        return p;
    }

    private static int eventNumber(String payload) {
        assertThat(payload).startsWith("event-");
        return Integer.parseInt(payload.substring("event-".length()));
    }

    @Test
    void roundTripKeepsPayloadKeyHeadersAndTime() throws Exception {
        int n = 100_000;
        kafka.createTopic("rt-out", 3);
        PipelineHarness prod = runToEnd(producerYaml("rt", 0, n,
                "  Topic: \"{stream}-out\"\n  KeyFrom: k\n  HeadersFrom: [h]\n  Compression: zstd\n"));
        Events src = Events.last;
        assertThat(src.acked).as("every event acknowledged upstream after Kafka acked it").hasSize(n);
        assertThat(prod.pipeline().stats().stream().filter(s -> s.type().equals("producer.Kafka")).findFirst()
                .orElseThrow().failed()).isZero();

        PipelineHarness cons = pipeline(consumerYaml("rt-out", "rt-group", "fromkafka", "  PresistTimoutMs: 100\n"));
        cons.start();
        Collect sink = cons.collect("Sink");
        await("all " + n + " events read back", 90_000, () -> sink.size() >= n);
        cons.close();

        Map<Integer, Captured> byNumber = new HashMap<>();
        for (Captured r : sink.events) {
            byNumber.put(eventNumber(r.payload()), r);
        }
        assertThat(byNumber).as("distinct events").hasSize(n);
        assertThat(sink.events).as("no duplicates without failures").hasSize(n);
        for (Map.Entry<Integer, Captured> e : byNumber.entrySet()) {
            int i = e.getKey();
            Captured r = e.getValue();
            assertThat(r.fields()).as("event %d", i)
                    .containsEntry("key", "key-" + (i % 97))
                    .containsEntry("h", "hdr-" + i)
                    .containsEntry("topic", "rt-out")
                    .containsKeys("partition", "offset");
            assertThat(r.timestamp()).as("event %d time, to the millisecond", i)
                    .isEqualTo(1_700_000_000_000_000_000L + i * 1_000_000L);
        }
        // Equal keys land on one partition: the key chose it, as Kafka's hashing promises.
        Map<String, Set<String>> partitionsByKey = new HashMap<>();
        for (Captured r : sink.events) {
            partitionsByKey.computeIfAbsent(r.fields().get("key"), k -> new HashSet<>())
                    .add(r.fields().get("partition"));
        }
        assertThat(partitionsByKey.values()).allMatch(s -> s.size() == 1);
        // Each partition's offsets, as the metadata gives them in decimal, are 0 to its count - 1, once each.
        Map<String, List<String>> offsetsByPartition = new HashMap<>();
        for (Captured r : sink.events) {
            offsetsByPartition.computeIfAbsent(r.fields().get("partition"), p -> new ArrayList<>())
                    .add(r.fields().get("offset"));
        }
        for (List<String> offsets : offsetsByPartition.values()) {
            assertThat(offsets).containsExactlyInAnyOrderElementsOf(
                    java.util.stream.IntStream.range(0, offsets.size()).mapToObj(Integer::toString).toList());
        }
        // The group committed exactly what it delivered: the end of every partition.
        assertThat(committedTotal("rt-group", "rt-out")).isEqualTo(n);
    }

    @Test
    void twoPipelinesInOneGroupShareAndTakeOver() throws Exception {
        String topic = "grp";
        kafka.createTopic(topic, 6);
        // A small uncommitted window: at most 1000 buffered + one poll of 500 per member.
        String extra = "  MessageBufferCount: 1000\n  PresistTimoutMs: 200\n  Settings:\n    max.poll.records: \"500\"\n";
        PipelineHarness c1 = pipeline(consumerYaml(topic, "grp-group", "g", extra));
        PipelineHarness c2 = pipeline(consumerYaml(topic, "grp-group", "g", extra));
        try {
            c1.start();
            c2.start();
            Collect s1 = c1.collect("Sink");
            Collect s2 = c2.collect("Sink");
            // Produce only once both members own partitions, or the first could read everything alone.
            await("two members sharing the partitions", 60_000, () -> membersWithPartitions("grp-group") == 2);

            runToEnd(producerYaml("g-out", 0, 30_000, "  Topic: " + topic + "\n  Partitioner: Roundrobin\n"));
            await("both members consuming", 60_000, () -> !s1.events.isEmpty() && !s2.events.isEmpty());

            // The second half is produced in steps; the first member is stopped while it is reading it.
            PipelineHarness p2 = pipeline(producerYaml("g-out", 30_000, 30_000, true,
                    "  Topic: " + topic + "\n  Partitioner: Roundrobin\n"));
            p2.start();
            Events second = Events.last;
            second.permits.release(20); // 10000 events
            await("both members reading the second half", 60_000,
                    () -> s1.size() > 16_000 && s2.size() > 16_000);
            second.permits.release(1000);
            c1.close();
            long s1Count = s1.size();
            assertThat(p2.pipeline().awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            assertThat(second.acked).hasSize(30_000);

            try {
                await("every event read by the group", 90_000,
                        () -> s1.size() + s2.size() >= 60_000 && distinct(s1, s2).size() >= 60_000);
            } catch (AssertionError e) {
                try (Admin admin = kafka.admin()) {
                    throw new AssertionError(e.getMessage() + ": distinct " + distinct(s1, s2).size() + ", member 1 "
                            + s1.size() + ", member 2 " + s2.size() + ", group "
                            + admin.describeConsumerGroups(List.of("grp-group")).all().get(), e);
                }
            }
            Set<Integer> ids = distinct(s1, s2);
            assertThat(ids).hasSize(60_000);
            assertThat(ids).allMatch(i -> i >= 0 && i < 60_000);
            int duplicates = s1.events.size() + s2.events.size() - ids.size();
            System.out.println("group takeover: member 1 got " + s1Count + ", member 2 got " + s2.size()
                    + ", duplicates " + duplicates);
            // Duplicates come only from what member 1 polled but had not committed when it stopped.
            assertThat(duplicates).as("duplicates").isLessThanOrEqualTo(1000 + 500 + 512);
            Set<String> takenOver = new HashSet<>();
            for (Captured r : s2.events) {
                takenOver.add(r.fields().get("partition"));
            }
            assertThat(takenOver).as("member 2 read every partition once member 1 left").hasSize(6);
            assertThat(s1Count).isPositive();
            c2.close();
            assertThat(committedTotal("grp-group", topic)).isEqualTo(60_000);
        } finally {
            c1.close();
            c2.close();
        }
    }

    @Test
    void jsonPayloadsBecomeMetadataAndOthersGoToTheFallbackStream() throws Exception {
        Assumptions.assumeTrue(PluginRegistry.defaultRegistry().find("format.JSON") != null, "format.JSON present");
        kafka.createTopic("json-in", 1);
        Properties props = new Properties();
        props.put("bootstrap.servers", kafka.bootstrap());
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (String v : List.of("{\"level\":\"info\",\"n\":1}", "not json", "{\"level\":\"warn\",\"n\":2}")) {
                p.send(new ProducerRecord<>("json-in", v.getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        PipelineHarness cons = pipeline("In:\n  Type: consumer.Kafka\n  Servers: [\"" + kafka.bootstrap() + "\"]\n"
                + "  Topic: json-in\n"
                + "  GroupId: json-group\n  DefaultOffset: oldest\n  PayloadFormat: json\n  Streams: js\n"
                + "  FallbackStream: badjson\n"
                + "Sink:\n  Type: test.Collect\n  Streams: js\nBad:\n  Type: test.Collect\n  Streams: badjson\n");
        cons.start();
        try {
            Collect sink = cons.collect("Sink");
            Collect bad = cons.collect("Bad");
            await("all three read", 60_000, () -> sink.size() + bad.size() >= 3);
            assertThat(sink.events).extracting(r -> r.fields().get("level")).containsExactly("info", "warn");
            assertThat(sink.events).extracting(r -> r.payload()).containsExactly("{\"level\":\"info\",\"n\":1}",
                    "{\"level\":\"warn\",\"n\":2}");
            assertThat(bad.events).extracting(r -> r.payload()).containsExactly("not json");
        } finally {
            cons.close();
        }
    }

    @Test
    void recordsKafkaRefusesGoToTheFallbackStreamWithTheReason() throws Exception {
        // A topic template over a field no message has renders an empty name, which Kafka cannot take.
        PipelineHarness bad = runToEnd("Src:\n  Type: test.Events\n  Count: 1000\n  Streams: fb2\n"
                + "Out:\n  Type: producer.Kafka\n  Streams: fb2\n  Servers: [\"" + kafka.bootstrap() + "\"]\n"
                + "  Topic: \"{no_such_field}\"\n  FallbackStream: refused2\n"
                + "Refused:\n  Type: test.Collect\n  Streams: refused2\n");
        Collect refused2 = bad.collect("Refused");
        assertThat(refused2.events).hasSize(1000);
        assertThat(refused2.events).allSatisfy(r -> assertThat(r.fields().get("kafka_error"))
                .contains("InvalidTopicException").contains("rendered empty"));
        assertThat(Events.last.acked).as("refused records are acknowledged only as routed to the fallback").hasSize(1000);
    }

    @Test
    void withoutGroupIdEveryPartitionIsReadAndNothingCommitted() throws Exception {
        kafka.createTopic("nogroup", 3);
        Properties props = new Properties();
        props.put("bootstrap.servers", kafka.bootstrap());
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 30; i++) {
                p.send(new ProducerRecord<>("nogroup", i % 3, null, ("event-" + i).getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        PipelineHarness cons = pipeline("In:\n  Type: consumer.Kafka\n  Servers: [\"" + kafka.bootstrap() + "\"]\n"
                + "  Topic: nogroup\n"
                + "  DefaultOffset: oldest\n  Streams: ng\nSink:\n  Type: test.Collect\n  Streams: ng\n");
        cons.start();
        try {
            Collect sink = cons.collect("Sink");
            await("all 30 read", 60_000, () -> sink.size() >= 30);
            assertThat(sink.events).extracting(r -> eventNumber(r.payload())).containsExactlyInAnyOrderElementsOf(
                    java.util.stream.IntStream.range(0, 30).boxed().collect(java.util.stream.Collectors.toList()));
        } finally {
            cons.close();
        }
    }

    private static int membersWithPartitions(String group) {
        try (Admin admin = kafka.admin()) {
            return (int) admin.describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS).get(group)
                    .members().stream().filter(m -> !m.assignment().topicPartitions().isEmpty()).count();
        } catch (Exception e) {
            return 0;
        }
    }

    /** The event numbers the group's members read, each once. */
    private static Set<Integer> distinct(Collect... members) {
        Set<Integer> ids = new HashSet<>();
        for (Collect member : members) {
            for (Captured r : member.events) {
                ids.add(eventNumber(r.payload()));
            }
        }
        return ids;
    }

    /** Sum of the group's committed offsets over the topic's partitions; checked against the end offsets. */
    private static long committedTotal(String group, String topic) throws Exception {
        try (Admin admin = kafka.admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic).partitions().size();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            long end = 0;
            for (var e : admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values()) {
                end += e.offset();
            }
            long sum = 0;
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
                if (e.getKey().topic().equals(topic)) {
                    sum += e.getValue().offset();
                }
            }
            assertThat(sum).as("committed offsets reach the end of the topic").isEqualTo(end);
            return sum;
        }
    }
}
