package io.sluice.forward.server;

import static io.sluice.forward.testutil.Pipelines.await;
import static io.sluice.forward.testutil.Pipelines.awaitReady;
import static io.sluice.forward.testutil.Pipelines.freePort;
import static io.sluice.forward.testutil.Pipelines.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.pipeline.Pipeline;
import io.sluice.forward.client.ForwardAuthenticationException;
import io.sluice.forward.client.ForwardClient;
import io.sluice.forward.client.ForwardConfig;
import io.sluice.forward.testutil.Pipelines;
import io.sluice.forward.testutil.Pipelines.Collect;
import io.sluice.forward.testutil.Pipelines.MemoryLog;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** shared_key, users and TLS, on consumer.Forward and producer.Forward, with the right and the wrong secrets. */
@Timeout(60)
class SecurityTest {
    @TempDir
    static Path dir;
    static Path keyStore;
    static Path trustStore;

    private final MemoryLog log = new MemoryLog();
    private final List<Pipeline> pipelines = new ArrayList<>();

    @BeforeAll
    static void certificates() throws Exception {
        keyStore = dir.resolve("server.p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=sluice-test",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", keyStore.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(out)).isZero();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(keyStore.toFile())) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("server", ks.getCertificate("server"));
        trustStore = dir.resolve("trust.p12");
        try (var o = java.nio.file.Files.newOutputStream(trustStore)) {
            trust.store(o, "changeit".toCharArray());
        }
    }

    @AfterEach
    void stop() {
        for (int i = pipelines.size() - 1; i >= 0; i--) {
            pipelines.get(i).stop();
        }
    }

    private Pipeline start(String yaml) throws Exception {
        Pipeline p = Pipelines.start(yaml, log.log);
        pipelines.add(p);
        awaitReady(p);
        return p;
    }

    private Collect server(int port, String extra) throws Exception {
        return producer(start("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + port + "\n" + extra
                + "Out:\n  Type: test.Collect\n"), "Out");
    }

    private static SSLContext clientTls() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(trustStore.toFile())) {
            trust.load(in, "changeit".toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    private static ForwardConfig.Builder client(int port) {
        return ForwardConfig.builder().host("127.0.0.1").port(port).requireAck(true).maxRetries(0);
    }

    @Test
    void sharedKeyAndUsers() throws Exception {
        int port = freePort();
        Collect out = server(port, "  SharedKey: s3cret\n  Users:\n    alice: wonderland\n");
        try (ForwardClient c = new ForwardClient(client(port).handshake("s3cret", "client-1")
                .credentials("alice", "wonderland").build())) {
            c.sendMessage("secure", Map.of("n", 1));
        }
        await("the event", 10_000, () -> out.events.size() == 1);

        try (ForwardClient c = new ForwardClient(client(port).handshake("wrong", "client-2")
                .credentials("alice", "wonderland").build())) {
            assertThatThrownBy(() -> c.sendMessage("secure", Map.of("n", 2)))
                    .isInstanceOf(ForwardAuthenticationException.class).hasMessageContaining("shared_key mismatch");
        }
        try (ForwardClient c = new ForwardClient(client(port).handshake("s3cret", "client-3")
                .credentials("alice", "guess").build())) {
            assertThatThrownBy(() -> c.sendMessage("secure", Map.of("n", 3)))
                    .isInstanceOf(ForwardAuthenticationException.class).hasMessageContaining("username/password mismatch");
        }
        await("log lines", 10_000, () -> log.text().contains("client-3"));
        assertThat(log.text()).contains("rejected (auth) from /127.0.0.1:").contains("'client-2'): shared_key mismatch");
        // A client that skips the handshake and sends a frame straight away is refused too.
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port));
            s.setSoTimeout(10_000);
            s.getOutputStream().write(new byte[] {(byte) 0x93, (byte) 0xa1, 'x', 1, (byte) 0x80});
            s.getInputStream().readAllBytes(); // HELO, PONG(false), then end of stream
        }
        assertThat(out.events).hasSize(1);
        // Each refused handshake is counted on /metrics.
        await("3 refusals counted", 10_000,
                () -> pipelines.get(0).consumerStats().get(0).rejected(io.sluice.core.pipeline.Rejection.AUTH) == 3);
    }

    @Test
    void tlsServerAcceptsTlsClientsAndDropsPlainOnes() throws Exception {
        int port = freePort();
        Collect out = server(port, "  TlsKeyStore: " + keyStore + "\n  TlsKeyStorePassword: changeit\n");
        try (ForwardClient c = new ForwardClient(client(port).tls(clientTls()).build())) {
            c.sendMessage("tls", Map.of("n", 1));
        }
        await("the event", 10_000, () -> out.events.size() == 1);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port));
            s.setSoTimeout(10_000);
            s.getOutputStream().write(new byte[] {(byte) 0x93, (byte) 0xa1, 'x', 1, (byte) 0x80});
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
        await("log line", 10_000, () -> log.text().contains("TLS failed"));
        try (ForwardClient c = new ForwardClient(client(port).tls(clientTls()).build())) {
            c.sendMessage("tls", Map.of("n", 2));
        }
        await("the second event", 10_000, () -> out.events.size() == 2);
    }

    @Test
    void producerForwardOverTlsWithSharedKeyAndUser() throws Exception {
        int sinkPort = freePort();
        Collect out = server(sinkPort, "  TlsKeyStore: " + keyStore + "\n  TlsKeyStorePassword: changeit\n"
                + "  SharedKey: k\n  Users:\n    bob: pw\n");
        int relayPort = freePort();
        start("In:\n  Type: consumer.Forward\n  Address: 127.0.0.1:" + relayPort + "\n"
                + "Fwd:\n  Type: producer.Forward\n  Servers: [\"127.0.0.1:" + sinkPort + "\"]\n  Tls: true\n"
                + "  TlsTrustStore: " + trustStore + "\n  TlsTrustStorePassword: changeit\n  SharedKey: k\n"
                + "  Username: bob\n  Password: pw\n  Mode: CompressedPackedForward\n"
                + "  HeartbeatType: tcp\n  HeartbeatIntervalMs: 50\n  HeartbeatTimeoutMs: 300\n");
        Pipeline relay = pipelines.get(pipelines.size() - 1);
        try (ForwardClient c = new ForwardClient(client(relayPort).build())) {
            for (int i = 0; i < 100; i++) {
                c.sendMessage("via.tls", Map.of("n", i));
            }
        }
        await("100 events", 10_000, () -> out.events.size() == 100);
        assertThat(out.events).allSatisfy(e -> assertThat(e.tag()).isEqualTo("via.tls"));
        // TCP heartbeats (connect, close) to a TLS server with a shared key: for longer than HeartbeatTimeoutMs with
        // nothing sent, the server stays up (the relay ready), and they are not taken for failed TLS or handshakes.
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(600);
        while (System.nanoTime() < until) {
            assertThat(relay.isReady()).as("relay ready; log: " + log.text()).isTrue();
            Thread.sleep(50); // sampling period of the watch
        }
        assertThat(log.text()).doesNotContain("TLS failed").doesNotContain("refused").doesNotContain("marked down");
    }

    /**
     * A handshake stops at the first wrong PING: ten wrong guesses and then the right PING, all in one write, get one
     * PONG refusing the first guess and a closed connection; the right PING behind them is never read, so guessing
     * costs a connection each time (issue 19 found the eleventh PING authenticating).
     */
    @Test
    void aHandshakeStopsAtTheFirstWrongPing() throws Exception {
        int port = freePort();
        Collect out = server(port, "  SharedKey: s3cret\n");
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port));
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            byte[] helo = new byte[4096];
            int n = in.read(helo);
            io.sluice.forward.codec.MsgPackReader r = new io.sluice.forward.codec.MsgPackReader().reset(helo, 0, n, 0);
            assertThat(r.readArrayHeader()).isEqualTo(2);
            assertThat(r.readStringEquals("HELO")).isTrue();
            byte[] nonce = null;
            for (int k = r.readMapHeader(); k > 0; k--) {
                String key = r.readString();
                if (key.equals("nonce")) {
                    nonce = r.readBytes();
                } else {
                    r.skipValue();
                }
            }
            assertThat(nonce).isNotNull();
            io.sluice.forward.codec.MsgPackWriter w = new io.sluice.forward.codec.MsgPackWriter();
            for (int guess = 0; guess <= 10; guess++) {
                ping(w, nonce, guess < 10 ? "guess-" + guess : "s3cret");
            }
            s.getOutputStream().write(w.array(), 0, w.size());
            byte[] answer = in.readAllBytes(); // the PONG, then end of stream
            io.sluice.forward.codec.MsgPackReader p = new io.sluice.forward.codec.MsgPackReader()
                    .reset(answer, 0, answer.length, 0);
            assertThat(p.readArrayHeader()).isEqualTo(5);
            assertThat(p.readStringEquals("PONG")).isTrue();
            assertThat(p.readBoolean()).as("the first guess refused").isFalse();
            assertThat(p.readString()).contains("shared_key mismatch");
            p.skipValue();
            p.skipValue();
            assertThat(p.hasRemaining()).as("a second PONG: the right PING behind the wrong ones was read").isFalse();
        }
        await("the refusal counted", 10_000,
                () -> pipelines.get(0).consumerStats().get(0).rejected(io.sluice.core.pipeline.Rejection.AUTH) == 1);
        assertThat(out.events).isEmpty();
    }

    /** ["PING", hostname, salt, sha512_hex(salt + hostname + nonce + key), "", ""] (no users configured). */
    private static void ping(io.sluice.forward.codec.MsgPackWriter w, byte[] nonce, String key) throws Exception {
        byte[] salt = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-512");
        sha.update(salt);
        sha.update("guesser".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        sha.update(nonce);
        sha.update(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        w.writeArrayHeader(6);
        w.writeString("PING");
        w.writeString("guesser");
        w.writeBin(salt, 0, salt.length);
        w.writeString(java.util.HexFormat.of().formatHex(sha.digest()));
        w.writeString("");
        w.writeString("");
    }
}
