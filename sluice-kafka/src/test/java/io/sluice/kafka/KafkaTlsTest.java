package io.sluice.kafka;

import static io.sluice.core.testing.PipelineHarness.await;
import static io.sluice.kafka.TestPlugins.pipeline;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.testing.Captured;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.tls.TestCertificates;
import io.sluice.kafka.TestPlugins.Events;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.SslAuthenticationException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * producer.Kafka and consumer.Kafka through the in-process broker's SSL listener, which requires client
 * certificates: the ssl.* properties the TLS/* group maps to are what a real broker accepts. The producer uses
 * the group's names, the consumer Gollum's.
 */
class KafkaTlsTest {
    @TempDir
    static Path dir;
    static TestCertificates ca;
    static TestCertificates.Leaf client;
    static EmbeddedKafka kafka;

    @BeforeAll
    static void startBroker() throws Exception {
        ca = TestCertificates.ca(dir, "ca");
        TestCertificates.Leaf broker = ca.leaf("broker", false);
        client = ca.leaf("client", false);
        kafka = EmbeddedKafka.startWithSsl(Map.of(
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.location", broker.p12().toString(),
                "ssl.keystore.password", TestCertificates.PASSWORD,
                "ssl.key.password", TestCertificates.PASSWORD,
                "ssl.truststore.type", "PEM",
                "ssl.truststore.location", ca.caPem.toString(),
                "ssl.client.auth", "required"));
    }

    @AfterAll
    static void stopBroker() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void recordsGoThroughAnSslListenerThatRequiresClientCertificates() throws Exception {
        int n = 2000;
        kafka.createTopic("tls-out", 2);
        PipelineHarness prod = pipeline("Src:\n  Type: test.Events\n  Count: " + n + "\n  Streams: tls\n"
                + "Out:\n  Type: producer.Kafka\n  Streams: tls\n  Topic: tls-out\n  Servers: [\"" + kafka.sslBootstrap()
                + "\"]\n  TLS/CAFile: " + ca.caPem + "\n  TLS/CertFile: " + client.cert() + "\n  TLS/KeyFile: "
                + client.key() + "\n");
        prod.start();
        assertThat(prod.pipeline().awaitTermination(120, TimeUnit.SECONDS)).as("producing pipeline ended").isTrue();
        assertThat(Events.last.acked).as("every event acknowledged by Kafka over TLS").hasSize(n);

        PipelineHarness cons = pipeline("In:\n  Type: consumer.Kafka\n  Servers: [\"" + kafka.sslBootstrap() + "\"]\n"
                + "  Topic: tls-out\n  GroupId: tls-group\n  DefaultOffset: oldest\n  Streams: back\n"
                + "  TlsEnable: true\n  TlsCaLocation: " + ca.caPem + "\n  TlsCertificateLocation: " + client.cert()
                + "\n  TlsKeyLocation: " + client.key() + "\n"
                + "Sink:\n  Type: test.Collect\n  Streams: back\n");
        cons.start();
        try {
            Collect sink = cons.collect("Sink");
            await("every event read back over TLS", 90_000, () -> sink.size() >= n);
            Set<String> payloads = new HashSet<>();
            for (Captured r : sink.events) {
                payloads.add(r.payload());
            }
            assertThat(payloads).hasSize(n).contains("event-0", "event-" + (n - 1));
        } finally {
            cons.close();
        }
    }

    /** The control: the listener does refuse a client without a certificate, so the test above proves ours went out. */
    @Test
    void aClientWithoutACertificateIsRefused() {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.sslBootstrap());
        p.put("security.protocol", "SSL");
        p.put("ssl.truststore.type", "PEM");
        p.put("ssl.truststore.location", ca.caPem.toString());
        try (Admin admin = Admin.create(p)) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(60, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SslAuthenticationException.class);
        }
    }
}
