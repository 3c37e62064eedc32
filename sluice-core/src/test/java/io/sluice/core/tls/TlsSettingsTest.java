package io.sluice.core.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS group over real sockets on 127.0.0.1 with keytool-made certificates: verification, names, mutual TLS,
 * minimum version, every key format, the old spellings, and certificate rotation without a restart.
 */
class TlsSettingsTest {
    @TempDir
    static Path dir;
    static TestCertificates ca;
    static TestCertificates otherCa;
    static TestCertificates.Leaf serverA;
    static TestCertificates.Leaf serverB;
    static TestCertificates.Leaf client;
    static TestCertificates.Leaf rsa;

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final List<AutoCloseable> open = new ArrayList<>();

    /** A plugin that only declares the group, with one old spelling, as a real network plugin would. */
    static final Param<String> OLD_CA = Param.string("TlsCaFile", "", "old").deprecatedFor(TlsSettings.CA_FILE);
    static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "test.Tls", "tls")
            .params(TlsSettings.with(OLD_CA)).factory(c -> new Consumer(c) {
                @Override
                public void consume(ConsumerContext context) {
                }
            });

    @BeforeAll
    static void certificates() throws Exception {
        ca = TestCertificates.ca(dir, "ca");
        otherCa = TestCertificates.ca(dir, "other");
        serverA = ca.leaf("server-a", false);
        serverB = ca.leaf("server-b", false);
        client = ca.leaf("client", false);
        rsa = ca.leaf("rsa", true);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        pool.shutdownNow();
    }

    static PluginConfig config(Map<String, Object> tls) {
        List<PluginSpec> specs = new ArrayList<>(PluginRegistry.defaultRegistry().all());
        specs.add(SPEC);
        PluginRegistry r = new PluginRegistry(specs);
        StringBuilder yaml = new StringBuilder("t:\n  Type: test.Tls\n  Streams: s\n");
        for (Map.Entry<String, Object> e : tls.entrySet()) {
            yaml.append("  ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
        }
        yaml.append("out:\n  Type: producer.Null\n  Streams: s\n");
        return new ConfigLoader(r, Map.of()).loadString(yaml.toString(), "t.yaml").stream()
                .filter(c -> c.id().equals("t")).findFirst().orElseThrow();
    }

    static TlsSettings server(Map<String, Object> tls) {
        return TlsSettings.from(config(tls), TlsSettings.Role.SERVER);
    }

    static TlsSettings client(Map<String, Object> tls) {
        return TlsSettings.from(config(tls), TlsSettings.Role.CLIENT, new TlsSettings.Alias(OLD_CA, TlsSettings.CA_FILE));
    }

    /** An echo server: answers each line with the subject of the client's certificate, or "anonymous". */
    int listen(TlsSettings s) throws IOException {
        SSLServerSocket ss = (SSLServerSocket) s.context().getServerSocketFactory()
                .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        ss.setSSLParameters(s.parameters(ss.getSSLParameters(), null));
        open.add(ss);
        pool.execute(() -> {
            while (!ss.isClosed()) {
                try {
                    SSLSocket c = (SSLSocket) ss.accept();
                    pool.execute(() -> echo(c));
                } catch (IOException e) {
                    return;
                }
            }
        });
        return ss.getLocalPort();
    }

    private static void echo(SSLSocket c) {
        try (c) {
            BufferedReader in = new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.UTF_8));
            OutputStream out = c.getOutputStream();
            for (String line; (line = in.readLine()) != null; ) {
                String who;
                try {
                    who = ((X509Certificate) c.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
                } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
                    who = "anonymous";
                }
                out.write((line + " " + who + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    SSLSocket connect(TlsSettings s, int port) throws IOException {
        Socket plain = new Socket();
        plain.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        plain.setSoTimeout(10_000);
        SSLSocket sock = s.clientSocket(plain, "127.0.0.1", port);
        open.add(sock);
        return sock;
    }

    static String ask(SSLSocket s, String line) throws IOException {
        s.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
        return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine();
    }

    static String serverSubject(SSLSocket s) throws IOException {
        return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }

    Map<String, Object> pem(TestCertificates.Leaf leaf) {
        return Map.of("TLS/CertFile", leaf.cert(), "TLS/KeyFile", leaf.key());
    }

    @Test
    void verifyingClientTalksToPemServer() throws Exception {
        int port = listen(server(pem(serverA)));
        SSLSocket s = connect(client(Map.of("TLS/CAFile", ca.caPem)), port);
        assertThat(ask(s, "hi")).isEqualTo("hi anonymous");
        assertThat(serverSubject(s)).isEqualTo("CN=server-a");
        assertThat(s.getSession().getProtocol()).isEqualTo("TLSv1.3");
    }

    @Test
    void clientRefusesAServerOfAnotherCaOrName() throws Exception {
        int port = listen(server(pem(serverA)));
        assertThatThrownBy(() -> connect(client(Map.of("TLS/CAFile", otherCa.caPem)), port)).isInstanceOf(SSLException.class);
        assertThatThrownBy(() -> connect(client(Map.of("TLS/CAFile", ca.caPem, "TLS/ServerName", "other.example")), port))
                .isInstanceOf(SSLException.class).hasMessageContaining("other.example");
        SSLSocket s = connect(client(Map.of("TLS/Enable", true, "TLS/InsecureSkipVerify", true,
                "TLS/ServerName", "other.example")), port);
        assertThat(ask(s, "insecure")).isEqualTo("insecure anonymous");
    }

    @Test
    void mutualTlsRequiresAClientCertificateFromTheCa() throws Exception {
        int port = listen(server(Map.of("TLS/CertFile", serverA.cert(), "TLS/KeyFile", serverA.key(),
                "TLS/CAFile", ca.caPem, "TLS/ClientAuth", "require")));
        // TLS 1.3 refuses a missing client certificate after the client's handshake ends: the first read fails
        assertThatThrownBy(() -> ask(connect(client(Map.of("TLS/CAFile", ca.caPem)), port), "x")).isInstanceOf(IOException.class);
        SSLSocket s = connect(client(Map.of("TLS/CAFile", ca.caPem, "TLS/CertFile", client.cert(),
                "TLS/KeyFile", client.key())), port);
        assertThat(ask(s, "me")).isEqualTo("me CN=client");
    }

    @Test
    void requestedClientAuthTakesClientsWithoutCertificates() throws Exception {
        int port = listen(server(Map.of("TLS/CertFile", serverA.cert(), "TLS/KeyFile", serverA.key(),
                "TLS/CAFile", ca.caPem, "TLS/ClientAuth", "request")));
        assertThat(ask(connect(client(Map.of("TLS/CAFile", ca.caPem)), port), "a")).isEqualTo("a anonymous");
        assertThat(ask(connect(client(Map.of("TLS/CAFile", ca.caPem, "TLS/CertFile", client.p12(),
                "TLS/KeyPassword", TestCertificates.PASSWORD)), port), "b")).isEqualTo("b CN=client");
    }

    @Test
    void minimumVersionRefusesOlderClients() throws Exception {
        int port = listen(server(Map.of("TLS/CertFile", serverA.cert(), "TLS/KeyFile", serverA.key(), "TLS/MinVersion", "1.3")));
        TlsSettings old = client(Map.of("TLS/CAFile", ca.caPem));
        Socket plain = new Socket("127.0.0.1", port);
        SSLSocket s = (SSLSocket) old.context().getSocketFactory().createSocket(plain, "127.0.0.1", port, true);
        open.add(s);
        s.setEnabledProtocols(new String[] {"TLSv1.2"});
        assertThatThrownBy(s::startHandshake).isInstanceOf(SSLException.class);
        assertThat(connect(old, port).getSession().getProtocol()).isEqualTo("TLSv1.3");
    }

    @Test
    void everyKeyFormatLoads() throws Exception {
        Path pkcs1 = Files.writeString(dir.resolve("rsa-pkcs1.key"), TestCertificates.pkcs1Pem(rsa.privateKey()));
        Path encrypted = Files.writeString(dir.resolve("enc.key"), TestCertificates.encryptedPem(serverA.privateKey(), "s3cret"));
        TlsSettings trusting = client(Map.of("TLS/CAFile", ca.caPem));
        int p1 = listen(server(Map.of("TLS/CertFile", rsa.cert(), "TLS/KeyFile", pkcs1)));
        assertThat(serverSubject(connect(trusting, p1))).isEqualTo("CN=rsa");
        int p2 = listen(server(Map.of("TLS/CertFile", serverA.cert(), "TLS/KeyFile", encrypted, "TLS/KeyPassword", "s3cret")));
        assertThat(serverSubject(connect(trusting, p2))).isEqualTo("CN=server-a");
        int p3 = listen(server(Map.of("TLS/CertFile", serverB.p12(), "TLS/KeyPassword", TestCertificates.PASSWORD)));
        assertThat(serverSubject(connect(trusting, p3))).isEqualTo("CN=server-b");
        assertThatThrownBy(() -> server(Map.of("TLS/CertFile", serverA.cert(), "TLS/KeyFile", encrypted, "TLS/KeyPassword", "wrong")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("TLS/CertFile");
        assertThatThrownBy(() -> server(Map.of("TLS/CertFile", serverA.cert(), "TLS/KeyFile", encrypted)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("TLS/KeyPassword");
    }

    @Test
    void settingsAreCheckedForTheirRole() {
        assertThatThrownBy(() -> server(Map.of("TLS/Enable", true))).hasMessageContaining("needs TLS/CertFile");
        assertThatThrownBy(() -> server(Map.of("TLS/CertFile", serverA.cert()))).hasMessageContaining("TLS/KeyFile");
        assertThatThrownBy(() -> server(Map.of("TLS/CertFile", serverA.cert(), "TLS/KeyFile", serverA.key(),
                "TLS/ClientAuth", "require"))).hasMessageContaining("needs TLS/CAFile");
        assertThatThrownBy(() -> server(Map.of("TLS/ClientAuth", "maybe"))).hasMessageContaining("expected one of none, request, require");
        assertThatThrownBy(() -> server(Map.of("TLS/CertFile", serverA.cert(), "TLS/KeyFile", serverA.key(),
                "TLS/ServerName", "x"))).hasMessageContaining("applies to clients");
        assertThatThrownBy(() -> client(Map.of("TLS/ClientAuth", "require"))).hasMessageContaining("applies to servers");
        assertThatThrownBy(() -> client(Map.of("TLS/Enable", true, "TLS/MinVersion", "1.1"))).hasMessageContaining("expected one of 1.2, 1.3");
        assertThatThrownBy(() -> client(Map.of("TLS/Enable", true, "TLS/CipherSuites", "TLS_NOPE")))
                .hasMessageContaining("TLS_NOPE");
        assertThat(server(Map.of()).enabled()).isFalse();
        assertThat(client(Map.of()).enabled()).isFalse();
    }

    @Test
    void theOldSpellingStillWorksAndIsNamedDeprecated() throws Exception {
        PluginConfig c = config(Map.of("TlsCaFile", ca.caPem));
        assertThat(c.deprecations()).containsExactly("t: TlsCaFile is deprecated and goes in the next release; use TLS/CAFile");
        TlsSettings s = TlsSettings.from(c, TlsSettings.Role.CLIENT, new TlsSettings.Alias(OLD_CA, TlsSettings.CA_FILE));
        assertThat(s.enabled()).isTrue();
        int port = listen(server(pem(serverA)));
        assertThat(serverSubject(connect(s, port))).isEqualTo("CN=server-a");
    }

    @Test
    void aRotatedCertificateServesNewConnectionsAndOpenOnesGoOn() throws Exception {
        Path cert = Files.copy(serverA.cert(), dir.resolve("live.crt"), StandardCopyOption.REPLACE_EXISTING);
        Path key = Files.copy(serverA.key(), dir.resolve("live.key"), StandardCopyOption.REPLACE_EXISTING);
        int port = listen(server(Map.of("TLS/CertFile", cert, "TLS/KeyFile", key)));
        TlsSettings trusting = client(Map.of("TLS/CAFile", ca.caPem));
        SSLSocket before = connect(trusting, port);
        assertThat(serverSubject(before)).isEqualTo("CN=server-a");
        // write the new pair beside and move it in, as cert-manager and certbot do
        Files.copy(serverB.key(), dir.resolve("live.key.new"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(serverB.cert(), dir.resolve("live.crt.new"), StandardCopyOption.REPLACE_EXISTING);
        Files.move(dir.resolve("live.key.new"), key, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.move(dir.resolve("live.crt.new"), cert, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String subject;
        do {
            SSLSocket s = connect(trusting, port);
            subject = serverSubject(s);
            s.close();
        } while (!subject.equals("CN=server-b") && System.nanoTime() < deadline);
        assertThat(subject).isEqualTo("CN=server-b");
        assertThat(ask(before, "still here")).isEqualTo("still here anonymous");
        assertThat(serverSubject(before)).isEqualTo("CN=server-a");
    }

    @Test
    void theGroupWorksOutsidePluginsForTheAdminEndpoint() throws Exception {
        TlsSettings admin = TlsSettings.of("admin", TlsSettings.Role.SERVER,
                Map.of("TLS/CertFile", serverA.cert().toString(), "TLS/KeyFile", serverA.key().toString()));
        int port = listen(admin);
        assertThat(serverSubject(connect(client(Map.of("TLS/CAFile", ca.caPem)), port))).isEqualTo("CN=server-a");
        assertThatThrownBy(() -> TlsSettings.of("admin", TlsSettings.Role.SERVER, Map.of("TLS/CertFile", "/no/such")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("admin").hasMessageContaining("TLS/KeyFile");
    }
}
