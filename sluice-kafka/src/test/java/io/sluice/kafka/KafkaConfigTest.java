package io.sluice.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Gollum's parameter names reach the right client properties; our defaults are the safe ones. */
class KafkaConfigTest {
    private static Properties producerProps(String yamlBody) {
        List<PluginConfig> cs = new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of())
                .loadString("Out:\n  Type: producer.Kafka\n" + yamlBody, "t.yaml");
        return ((io.sluice.kafka.producer.Kafka) cs.get(0).spec().create(cs.get(0))).clientProperties();
    }

    private static Properties consumerProps(String yamlBody) {
        List<PluginConfig> cs = new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of())
                .loadString("Sink:\n  Type: producer.Null\n  Streams: kc\nIn:\n  Type: consumer.Kafka\n  Streams: kc\n"
                        + yamlBody, "t.yaml");
        PluginConfig in = cs.stream().filter(c -> c.id().equals("In")).findFirst().orElseThrow();
        return ((io.sluice.kafka.consumer.Kafka) in.spec().create(in)).clientProperties();
    }

    @Test
    void producerDefaultsAreDurable() {
        Properties p = producerProps("  Servers: [\"a:9092\", \"b:9092\"]\n");
        assertThat(p).containsEntry("bootstrap.servers", "a:9092,b:9092")
                .containsEntry("acks", "all")
                .containsEntry("enable.idempotence", "true")
                .containsEntry("compression.type", "zstd")
                .containsEntry("client.id", "sluice-Out");
    }

    @Test
    void gollumProducerConfigRunsUnchanged() {
        // Keys as a Gollum 0.6 producer.Kafka config writes them.
        Properties p = producerProps("  ClientId: gollum\n  Version: \"0.10\"\n  Partitioner: Roundrobin\n"
                + "  RequiredAcks: 1\n  TimeoutMs: 1500\n  GracePeriodMs: 10\n  SendRetries: 0\n  Compression: zip\n"
                + "  MaxOpenRequests: 5\n  MessageBufferCount: 256\n  Batch/MinCount: 1\n  Batch/MaxCount: 0\n"
                + "  Batch/MinSizeByte: 8192\n  Batch/SizeMaxKB: 1024\n  Batch/TimeoutMs: 30\n  ServerTimeoutSec: 30\n"
                + "  SendTimeoutMs: 250\n  ElectRetries: 3\n  ElectTimeoutMs: 250\n  MetadataRefreshMs: 10000\n"
                + "  TlsEnable: false\n  SaslEnable: false\n  KeyFrom: key\n  AllowNilValue: true\n"
                + "  Servers:\n    - \"kafka0:9092\"\n  Topics:\n    console: logs\n    \"*\": other\n");
        assertThat(p).containsEntry("client.id", "gollum")
                .containsEntry("acks", "1")
                .containsEntry("enable.idempotence", "false")
                .containsEntry("compression.type", "gzip")
                .containsEntry("batch.size", "8192")
                .containsEntry("linger.ms", "30")
                .containsEntry("request.timeout.ms", "1500")
                .containsEntry("max.request.size", String.valueOf(1024 * 1024))
                .containsEntry("metadata.max.age.ms", "10000")
                .containsEntry("partitioner.class", "org.apache.kafka.clients.producer.RoundRobinPartitioner");
    }

    @Test
    void settingsPassThroughAndWin() {
        Properties p = producerProps("  Settings:\n    linger.ms: \"50\"\n    security.protocol: SSL\n"
                + "    ssl.truststore.location: /etc/trust.jks\n");
        assertThat(p).containsEntry("linger.ms", "50").containsEntry("security.protocol", "SSL")
                .containsEntry("ssl.truststore.location", "/etc/trust.jks");
    }

    @Test
    void saslMapsToJaas() {
        Properties p = producerProps("  SaslEnable: true\n  SaslUsername: u\n  SaslPassword: \"p\\\"w\"\n");
        assertThat(p).containsEntry("security.protocol", "SASL_PLAINTEXT").containsEntry("sasl.mechanism", "PLAIN");
        assertThat(p.getProperty("sasl.jaas.config")).contains("username=\"u\"").contains("password=\"p\\\"w\"");
    }

    @Test
    void badValuesNameTheKey() {
        assertThatThrownBy(() -> producerProps("  Compression: brotli\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("Compression").hasMessageContaining("zstd");
        assertThatThrownBy(() -> producerProps("  Topic: \"logs-{stream\"\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("unclosed");
        assertThatThrownBy(() -> consumerProps("  TopicPattern: \"logs-.*\"\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("GroupId");
    }

    @Test
    void gollumConsumerConfigRunsUnchanged() {
        Properties p = consumerProps("  Topic: logs\n  ClientId: \"gollum log reader\"\n  GroupId: readers\n"
                + "  DefaultOffset: Oldest\n  OffsetFile: \"\"\n  Version: \"1.0\"\n  SetMetadata: true\n"
                + "  MaxOpenRequests: 5\n  ServerTimeoutSec: 30\n  MaxFetchSizeByte: 0\n  MinFetchSizeByte: 1\n"
                + "  DefaultFetchSizeByte: 32768\n  FetchTimeoutMs: 250\n  MessageBufferCount: 8192\n"
                + "  PresistTimoutMs: 5000\n  ElectRetries: 3\n  ElectTimeoutMs: 250\n  MetadataRefreshMs: 10000\n"
                + "  Ordered: false\n  FolderPermissions: \"0755\"\n  Servers:\n    - \"kafka0:9092\"\n    - \"kafka1:9092\"\n");
        assertThat(p).containsEntry("group.id", "readers")
                .containsEntry("client.id", "gollum log reader")
                .containsEntry("auto.offset.reset", "earliest")
                .containsEntry("enable.auto.commit", "false")
                .containsEntry("fetch.max.wait.ms", "250")
                .containsEntry("bootstrap.servers", "kafka0:9092,kafka1:9092");
    }
}
