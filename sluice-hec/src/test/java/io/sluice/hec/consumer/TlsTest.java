package io.sluice.hec.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.DirectProducerContext;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.tls.TestCertificates;
import io.sluice.hec.Support;
import io.sluice.hec.producer.HecProducer;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * consumer.HEC over HTTPS with the TLS/* group: curl as the client (server TLS, mutual TLS, a plain client on the
 * TLS port), producer.SplunkHEC over https with the group and its old spelling, and a certificate rotated while
 * requests keep coming, with every event counted.
 */
@Timeout(120)
class TlsTest {
    private static final String SUCCESS = "{\"text\":\"Success\",\"code\":0}";
    @TempDir
    static Path dir;
    static TestCertificates ca;
    static TestCertificates.Leaf serverA;
    static TestCertificates.Leaf serverB;
    static TestCertificates.Leaf client;

    private PipelineHarness pipe;
    private int port;

    @BeforeAll
    static void certificates() throws Exception {
        ca = TestCertificates.ca(dir, "hec-ca");
        serverA = ca.leaf("hec-a", false);
        serverB = ca.leaf("hec-b", true);
        client = ca.leaf("hec-client", false);
    }

    @AfterEach
    void stop() {
        if (pipe != null) {
            pipe.close();
        }
    }

    private void start(String capture, Map<String, Object> tls) throws Exception {
        port = PipelineHarness.freePort();
        Map<String, Object> s = new HashMap<>(tls);
        s.put("Tokens", List.of("tok"));
        pipe = Support.pipeline(port, capture, s, io.sluice.core.message.MemoryBudget.ofHeapShare());
        pipe.start();
    }

    /** curl's exit code and output. */
    private record Curl(int exit, String out) {
    }

    private Curl curl(String scheme, String body, String... tlsArgs) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20", "-H", "Authorization: Splunk tok",
                "--data-binary", body));
        cmd.addAll(List.of(tlsArgs));
        cmd.add(scheme + "://127.0.0.1:" + port + "/services/collector/event");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Curl(p.exitValue(), out);
    }

    @Test
    void curlPostsOverHttpsAndAPlainClientIsRefused() throws Exception {
        start("tls-curl", Map.of("TLS/CertFile", serverA.cert(), "TLS/KeyFile", serverA.key()));
        Curl ok = curl("https", "{\"event\":\"over tls\"}", "--cacert", ca.caPem.toString());
        assertThat(ok.out()).isEqualTo(SUCCESS);
        PipelineHarness.await("the event", 10_000, () -> pipe.captured("tls-curl").size() == 1);
        assertThat(pipe.captured("tls-curl").get(0).payload()).isEqualTo("over tls");

        Curl untrusted = curl("https", "{\"event\":\"x\"}");
        assertThat(untrusted.exit()).isNotZero();
        Curl plain = curl("http", "{\"event\":\"plain\"}");
        assertThat(plain.exit()).isNotZero();
        PipelineHarness.await("TLS failures counted", 10_000, () -> pipe.stats("in").rejected(Rejection.AUTH) >= 2);
        assertThat(pipe.captured("tls-curl")).hasSize(1);
    }

    @Test
    void mutualTlsTakesOnlyClientsWithACertificateFromTheCa() throws Exception {
        start("tls-mtls", Map.of("TLS/CertFile", serverA.cert(), "TLS/KeyFile", serverA.key(),
                "TLS/CAFile", ca.caPem, "TLS/ClientAuth", "require"));
        Curl anonymous = curl("https", "{\"event\":\"anonymous\"}", "--cacert", ca.caPem.toString());
        assertThat(anonymous.out()).doesNotContain("Success");
        Curl ok = curl("https", "{\"event\":\"with cert\"}", "--cacert", ca.caPem.toString(),
                "--cert", client.cert().toString(), "--key", client.key().toString());
        assertThat(ok.out()).isEqualTo(SUCCESS);
        PipelineHarness.await("the event", 10_000, () -> pipe.captured("tls-mtls").size() == 1);
        assertThat(pipe.captured("tls-mtls").get(0).payload()).isEqualTo("with cert");
    }

    @Test
    void splunkHecSendsOverHttpsWithTheGroupAndWithItsOldSpelling() throws Exception {
        start("tls-producer", Map.of("TLS/CertFile", serverA.cert(), "TLS/KeyFile", serverA.key()));
        int sent = 0;
        for (Map<String, Object> tls : List.<Map<String, Object>>of(Map.of("TLS/CAFile", ca.caPem),
                Map.of("TLSCAFile", ca.caPem))) {
            Map<String, Object> s = new HashMap<>(tls);
            s.put("Endpoint", "https://127.0.0.1:" + port);
            s.put("Token", "tok");
            PluginConfig config = PluginConfig.of("out" + sent, "producer.SplunkHEC", s);
            HecProducer p = new HecProducer(config);
            p.start(DirectProducerContext.of(config.id(), "producer.SplunkHEC", PipelineHarness.stderrLog()));
            Batch b = new BatchPool(16).acquire();
            for (int i = 0; i < 10; i++) {
                b.add().setPayload("event " + (sent + i));
            }
            p.deliver(b);
            p.close();
            sent += 10;
            int expect = sent;
            PipelineHarness.await("events over https", 10_000, () -> pipe.captured("tls-producer").size() == expect);
        }
        assertThat(PluginConfig.of("old", "producer.SplunkHEC", Map.of("TLSCAFile", ca.caPem.toString(), "Token", "t")).deprecations())
                .containsExactly("old: TLSCAFile is deprecated and goes in the next release; use TLS/CAFile");
    }

    @Test
    void aCertificateRotatedUnderLoadLosesNoEvent() throws Exception {
        Path cert = Files.copy(serverA.cert(), dir.resolve("live.crt"), StandardCopyOption.REPLACE_EXISTING);
        Path key = Files.copy(serverA.key(), dir.resolve("live.key"), StandardCopyOption.REPLACE_EXISTING);
        start("tls-rotate", Map.of("TLS/CertFile", cert, "TLS/KeyFile", key));
        Set<String> served = ConcurrentHashMap.newKeySet();
        // one long-lived connection opened before the rotation keeps sending after it
        SSLSocket early = open(ca.clientContext(null));
        served.add(subject(early));
        int events = 0;
        boolean rotated = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(served.contains("CN=hec-b") && events >= 1000) && System.nanoTime() < deadline) {
            // a new client each time: a client resuming its TLS session is not shown the certificate again
            try (SSLSocket s = open(ca.clientContext(null))) {
                served.add(subject(s));
                assertThat(post(s, events, 20, true)).contains(SUCCESS);
            }
            events += 20;
            assertThat(post(early, events, 20, false)).contains(SUCCESS);
            events += 20;
            if (!rotated && events >= 200) {
                Files.copy(serverB.key(), dir.resolve("next.key"), StandardCopyOption.REPLACE_EXISTING);
                Files.copy(serverB.cert(), dir.resolve("next.crt"), StandardCopyOption.REPLACE_EXISTING);
                Files.move(dir.resolve("next.key"), key, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                Files.move(dir.resolve("next.crt"), cert, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                rotated = true;
            }
        }
        early.close();
        assertThat(served).containsExactlyInAnyOrder("CN=hec-a", "CN=hec-b");
        int total = events;
        PipelineHarness.await("every event", 20_000, () -> pipe.captured("tls-rotate").size() >= total);
        List<Captured> got = pipe.captured("tls-rotate");
        assertThat(got).hasSize(total);
        Set<String> distinct = new java.util.HashSet<>();
        for (Captured e : got) {
            distinct.add(e.payload());
        }
        assertThat(distinct).hasSize(total);
    }

    private SSLSocket open(SSLContext c) throws IOException {
        SSLSocket s = (SSLSocket) c.getSocketFactory().createSocket(new Socket("127.0.0.1", port), "127.0.0.1", port, true);
        s.setSoTimeout(20_000);
        s.startHandshake();
        return s;
    }

    private static String subject(SSLSocket s) throws IOException {
        return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }

    /** Posts {@code n} events numbered from {@code first} on a connection and returns the answer. */
    private static String post(SSLSocket s, int first, int n, boolean close) throws IOException {
        StringBuilder body = new StringBuilder();
        for (int i = first; i < first + n; i++) {
            body.append("{\"event\":\"e").append(i).append("\"}");
        }
        byte[] request = Support.post("/services/collector/event", body.toString().getBytes(StandardCharsets.UTF_8),
                "Authorization: Splunk tok", close ? "Connection: close" : "Connection: keep-alive");
        s.getOutputStream().write(request);
        s.getOutputStream().flush();
        return Support.read(s.getInputStream()).body();
    }
}
