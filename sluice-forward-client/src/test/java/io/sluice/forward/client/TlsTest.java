package io.sluice.forward.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.forward.testutil.TestForwardServer;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** TLS with a throw-away certificate made by the JDK's keytool. */
@Timeout(60)
class TlsTest {
    private static final char[] PASS = "changeit".toCharArray();

    @TempDir
    static Path dir;
    private static KeyStore rightName;
    private static KeyStore wrongName;

    @BeforeAll
    static void makeCertificates() throws Exception {
        rightName = keytool("right.p12", "ip:127.0.0.1");
        wrongName = keytool("wrong.p12", "dns:wrong.invalid");
    }

    private static KeyStore keytool(String file, String san) throws Exception {
        Path ks = dir.resolve(file);
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=sluice-test", "-ext", "SAN=" + san, "-validity", "2",
                "-storetype", "PKCS12", "-keystore", ks.toString(),
                "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(out)).isZero();
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(ks.toFile())) {
            store.load(in, PASS);
        }
        return store;
    }

    private static SSLContext serverContext(KeyStore keys) throws Exception {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, PASS);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        return ctx;
    }

    /** A client that trusts exactly the server's self-signed certificate. */
    private static SSLContext clientContext(KeyStore keys) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("server", keys.getCertificate("server"));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    private static ForwardConfig.Builder config(TestForwardServer server, KeyStore keys) throws Exception {
        return ForwardConfig.builder().host("127.0.0.1").port(server.port()).requireAck(true)
                .tls(clientContext(keys)).maxRetries(0).retryBackoff(Duration.ofMillis(1), Duration.ofMillis(1));
    }

    @Test
    void sendsOverTlsWithAck() throws Exception {
        try (TestForwardServer server = new TestForwardServer(serverContext(rightName));
             ForwardClient client = new ForwardClient(config(server, rightName).build())) {
            client.sendMessage("tls", Map.of("secure", true));
            assertThat(server.events()).hasSize(1);
            assertThat(server.events().get(0).record()).isEqualTo(Map.of("secure", true));
        }
    }

    @Test
    void certificateForAnotherNameIsRefused() throws Exception {
        try (TestForwardServer server = new TestForwardServer(serverContext(wrongName));
             ForwardClient client = new ForwardClient(config(server, wrongName).build())) {
            assertThatThrownBy(client::connect).isInstanceOf(SSLHandshakeException.class);
        }
    }

    @Test
    void hostnameCheckCanBeTurnedOff() throws Exception {
        try (TestForwardServer server = new TestForwardServer(serverContext(wrongName));
             ForwardClient client = new ForwardClient(config(server, wrongName).verifyHostname(false).build())) {
            client.sendMessage("tls", Map.of("n", 1));
            assertThat(server.events()).hasSize(1);
        }
    }

    @Test
    void emitterOverTls() throws Exception {
        try (TestForwardServer server = new TestForwardServer(serverContext(rightName))) {
            ForwardEmitter emitter = ForwardEmitter.builder(config(server, rightName).build())
                    .flushInterval(Duration.ofMillis(20)).build();
            for (int i = 0; i < 50; i++) {
                assertThat(emitter.emit("tls", Map.of("id", i))).isTrue();
            }
            assertThat(emitter.close(Duration.ofSeconds(10))).isTrue();
            assertThat(server.events()).hasSize(50);
        }
    }

    @Test
    void untrustedServerIsRefused() throws Exception {
        try (TestForwardServer server = new TestForwardServer(serverContext(rightName));
             ForwardClient client = new ForwardClient(config(server, wrongName).build())) {
            assertThatThrownBy(client::connect).isInstanceOf(IOException.class);
        }
    }
}
