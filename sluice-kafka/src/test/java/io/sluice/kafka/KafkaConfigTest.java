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
import io.sluice.core.tls.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Gollum's parameter names reach the right client properties; our defaults are the safe ones. */
class KafkaConfigTest {
    @TempDir
    static Path dir;
    static TestCertificates ca;
    static TestCertificates.Leaf client;

    @BeforeAll
    static void certificates() throws Exception {
        ca = TestCertificates.ca(dir, "ca");
        client = ca.leaf("client", true);
    }

    private static PluginConfig producerConfig(String yamlBody) {
        return new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of())
                .loadString("Out:\n  Type: producer.Kafka\n" + yamlBody, "t.yaml").get(0);
    }
    private static Properties producerProps(String yamlBody) {
        List<PluginConfig> cs = new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of())
                .loadString("Out:\n  Type: producer.Kafka\n" + yamlBody, "t.yaml");
        return ((io.sluice.kafka.producer.KafkaProducer) cs.get(0).spec().create(cs.get(0))).clientProperties();
    }

    private static Properties consumerProps(String yamlBody) {
        List<PluginConfig> cs = new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of())
                .loadString("Sink:\n  Type: producer.Null\n  Streams: kc\nIn:\n  Type: consumer.Kafka\n  Streams: kc\n"
                        + yamlBody, "t.yaml");
        PluginConfig in = cs.stream().filter(c -> c.id().equals("In")).findFirst().orElseThrow();
        return ((io.sluice.kafka.consumer.KafkaConsumer) in.spec().create(in)).clientProperties();
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
    void saslMechanismIsAChoiceReadInItsOwnSpelling() {
        Properties p = producerProps("  SaslEnable: true\n  SaslMechanism: scram-sha-512\n  SaslUser: u\n");
        assertThat(p).containsEntry("sasl.mechanism", "SCRAM-SHA-512");
        assertThat(p.getProperty("sasl.jaas.config")).startsWith("org.apache.kafka.common.security.scram.ScramLoginModule");
        assertThatThrownBy(() -> producerProps("  SaslEnable: true\n  SaslMechanism: SCRAM-SHA-265\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("SaslMechanism")
                .hasMessageContaining("did you mean");
    }

    @Test
    void compressionTakesGollumsSpelling() {
        assertThat(producerProps("  Compression: ZIP\n")).containsEntry("compression.type", "gzip");
        assertThat(producerProps("  Compression: none\n")).containsEntry("compression.type", "none");
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

    @Test
    void gollumTlsNamesMapToSslPropertiesWithoutDeprecationWarnings() throws Exception {
        String yaml = "  TlsEnable: true\n  TlsCaLocation: " + ca.caPem + "\n  TlsCertificateLocation: " + client.cert()
                + "\n  TlsKeyLocation: " + client.key() + "\n  TlsInsecureSkipVerify: true\n  TlsServerName: kafka\n";
        assertThat(producerConfig(yaml).deprecations()).isEmpty();
        Properties p = producerProps(yaml);
        assertThat(p).containsEntry("security.protocol", "SSL")
                .containsEntry("ssl.truststore.type", "PEM")
                .containsEntry("ssl.truststore.location", ca.caPem.toString())
                .containsEntry("ssl.keystore.type", "PEM")
                .containsEntry("ssl.keystore.certificate.chain", Files.readString(client.cert()))
                .containsEntry("ssl.keystore.key", Files.readString(client.key()))
                .containsEntry("ssl.endpoint.identification.algorithm", "")
                .containsEntry("ssl.enabled.protocols", "TLSv1.3,TLSv1.2")
                .doesNotContainKeys("ssl.key.password", "ssl.cipher.suites", "ssl.keystore.location");
    }

    @Test
    void theTlsGroupMapsPkcs12VersionsAndSuites() {
        String suite = "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384";
        Properties p = consumerProps("  Topic: t\n  TLS/CAFile: " + ca.caPem + "\n  TLS/CertFile: " + client.p12()
                + "\n  TLS/KeyPassword: " + TestCertificates.PASSWORD + "\n  TLS/MinVersion: \"1.3\"\n"
                + "  TLS/CipherSuites: [" + suite + "]\n  SaslEnable: true\n  SaslUsername: u\n");
        assertThat(p).containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("ssl.keystore.type", "PKCS12")
                .containsEntry("ssl.keystore.location", client.p12().toString())
                .containsEntry("ssl.keystore.password", TestCertificates.PASSWORD)
                .containsEntry("ssl.key.password", TestCertificates.PASSWORD)
                .containsEntry("ssl.enabled.protocols", "TLSv1.3")
                .containsEntry("ssl.cipher.suites", suite)
                .doesNotContainKey("ssl.endpoint.identification.algorithm");
        // The group's key wins over Gollum's when both are set; a CA file alone turns TLS on, as for every client.
        Properties both = producerProps("  TlsCaLocation: /nowhere.pem\n  TLS/CAFile: " + ca.caPem + "\n");
        assertThat(both).containsEntry("security.protocol", "SSL").containsEntry("ssl.truststore.location", ca.caPem.toString());
    }

    @Test
    void gollumsTlsEnableFalseKeepsTlsOffAndNoTlsIsPlaintext() {
        assertThat(producerProps("  TlsEnable: false\n  TlsCaLocation: " + ca.caPem + "\n"))
                .doesNotContainKeys("security.protocol", "ssl.truststore.location");
        assertThat(producerProps("")).doesNotContainKeys("security.protocol", "ssl.enabled.protocols");
    }

    @Test
    void badTlsSettingsNameTheirKey() throws Exception {
        assertThatThrownBy(() -> producerProps("  TlsEnable: true\n  TlsCaLocation: " + dir.resolve("missing.pem") + "\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("TLS/CAFile").hasMessageContaining("missing.pem");
        assertThatThrownBy(() -> producerProps("  TlsCertificateLocation: " + client.cert() + "\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("TLS/KeyFile");
        assertThatThrownBy(() -> producerProps("  TLS/Enable: true\n  TLS/ClientAuth: require\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("applies to servers");
        Path pkcs1 = Files.writeString(dir.resolve("client-pkcs1.key"), TestCertificates.pkcs1Pem(client.privateKey()));
        assertThatThrownBy(() -> producerProps("  TLS/CertFile: " + client.cert() + "\n  TLS/KeyFile: " + pkcs1 + "\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("PKCS#8").hasMessageContaining("openssl pkcs8");
    }
}
