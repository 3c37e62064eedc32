package io.sluice.forward.consumer;

import static io.sluice.core.testing.PipelineHarness.await;
import static io.sluice.core.testing.PipelineHarness.freePort;
import static io.sluice.core.testing.PipelineHarness.producer;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import io.sluice.core.tls.TestCertificates;
import io.sluice.forward.client.ForwardClient;
import io.sluice.forward.client.ForwardConfig;
import io.sluice.forward.testutil.Vectors;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * consumer.Forward and producer.Forward with the TLS/* group: mutual TLS from PEM files, Fluent Bit's captured
 * Forward bytes over TLS, and a relay whose producer presents a client certificate.
 */
@Timeout(60)
class TlsGroupTest {
    @TempDir
    static Path dir;
    static TestCertificates ca;
    static TestCertificates.Leaf server;
    static TestCertificates.Leaf client;

    private final MemoryLog log = new MemoryLog();
    private final List<Pipeline> pipelines = new ArrayList<>();

    @BeforeAll
    static void certificates() throws Exception {
        ca = TestCertificates.ca(dir, "fwd-ca");
        server = ca.leaf("fwd-server", false);
        client = ca.leaf("fwd-client", false);
    }

    @AfterEach
    void stop() {
        for (int i = pipelines.size() - 1; i >= 0; i--) {
            pipelines.get(i).stop();
        }
    }

    private Pipeline start(String yaml) throws Exception {
        Pipeline p = PipelineHarness.builder().yaml(yaml).log(log.log).start().pipeline();
        pipelines.add(p);
        await("pipeline ready", 10_000, p::isReady);
        return p;
    }

    private Collect mtlsServer(int port) throws Exception {
        return producer(start("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port + "\n  TLS:\n"
                + "    CertFile: " + server.cert() + "\n    KeyFile: " + server.key() + "\n    CAFile: " + ca.caPem
                + "\n    ClientAuth: require\nOut:\n  Type: test.Collect\n"), "Out");
    }

    @Test
    void fluentBitBytesOverMutualTlsAreDecodedAndAcked() throws Exception {
        int port = freePort();
        Collect out = mtlsServer(port);
        byte[] capture = Vectors.read("fluent-bit/forward/compressed-packed-forward-ack.bin");
        try (SSLSocket s = (SSLSocket) ca.clientContext(client).getSocketFactory().createSocket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(capture);
            s.getOutputStream().flush();
            // the capture asks for an ack: a msgpack map {"ack": chunk} comes back over TLS
            assertThat(s.getInputStream().read()).isEqualTo(0x81);
        }
        await("Fluent Bit's two events", 10_000, () -> out.events.size() == 2);
        assertThat(out.events).allSatisfy(e -> assertThat(e.tag()).isEqualTo("dummy.fwd"));
    }

    @Test
    void aClientWithoutACertificateIsRefusedAndCounted() throws Exception {
        int port = freePort();
        Collect out = mtlsServer(port);
        try (SSLSocket s = (SSLSocket) ca.clientContext(null).getSocketFactory().createSocket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(Vectors.read("fluent-bit/forward/compressed-packed-forward-ack.bin"));
            s.getOutputStream().flush();
            // TLS 1.3: the server's refusal arrives after the client's handshake ends, at the first read
            assertThat(readOrFail(s)).isEqualTo(-1);
        } catch (java.io.IOException refused) {
            // refused during the handshake: as good
        }
        await("the failure logged", 10_000, () -> log.text().contains("TLS failed"));
        assertThat(out.events).isEmpty();
    }

    private static int readOrFail(Socket s) {
        try {
            return s.getInputStream().read();
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    @Test
    void producerForwardPresentsItsCertificate() throws Exception {
        int sinkPort = freePort();
        Collect out = mtlsServer(sinkPort);
        int relayPort = freePort();
        start("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + relayPort + "\n"
                + "Fwd:\n  Type: producer.Forward\n  Servers: [\"127.0.0.1:" + sinkPort + "\"]\n  TLS:\n"
                + "    CAFile: " + ca.caPem + "\n    CertFile: " + client.cert() + "\n    KeyFile: " + client.key()
                + "\n  RequireAck: true\n");
        try (ForwardClient c = new ForwardClient(ForwardConfig.builder().host("127.0.0.1").port(relayPort)
                .requireAck(true).maxRetries(0).build())) {
            for (int i = 0; i < 50; i++) {
                c.sendMessage("via.mtls", Map.of("n", i));
            }
        }
        await("50 events through mutual TLS", 10_000, () -> out.events.size() == 50);
        assertThat(log.text()).doesNotContain("TLS failed");
    }
}
