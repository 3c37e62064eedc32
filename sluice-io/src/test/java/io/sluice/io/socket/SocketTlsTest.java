package io.sluice.io.socket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import io.sluice.core.tls.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * consumer.Socket and consumer.Syslogd over TLS, on 127.0.0.1 with keytool-made certificates: the JDK's
 * {@link SSLSocket} is the client every test can count on (it is built from the key and trust files directly,
 * not through Sluice's TLS code), and {@code openssl s_client} sends RFC 5425 syslog once, as a peer that shares
 * no code with the JDK. That test needs the {@code openssl} command: it is skipped, by an assumption, only on a
 * machine without one.
 */
@Timeout(120)
class SocketTlsTest {
    @TempDir
    static Path dir;
    static TestCertificates ca;
    static TestCertificates otherCa;
    static TestCertificates.Leaf serverA;
    static TestCertificates.Leaf serverB;
    static TestCertificates.Leaf client;
    static TestCertificates.Leaf stranger;

    @BeforeAll
    static void certificates() throws Exception {
        ca = TestCertificates.ca(dir, "ca");
        otherCa = TestCertificates.ca(dir, "other");
        serverA = ca.leaf("server-a", false);
        serverB = ca.leaf("server-b", true);
        client = ca.leaf("client", false);
        stranger = otherCa.leaf("stranger", false);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String serverTls(TestCertificates.Leaf leaf) {
        return "  TLS/CertFile: " + leaf.cert() + "\n  TLS/KeyFile: " + leaf.key() + "\n";
    }

    private static String mutualTls() {
        return serverTls(serverA) + "  TLS/CAFile: " + ca.caPem + "\n  TLS/ClientAuth: require\n";
    }

    private static String yaml(String type, int port, String extra) {
        return "In:\n  Type: " + type + "\n  Address: tcp://127.0.0.1:" + port + "\n  Streams: s\n" + extra
                + "Out:\n  Type: test.Collect\n  Streams: s\n";
    }

    /** A JDK TLS client that checks the server's certificate and name; {@code leaf} for mutual TLS, or null. */
    private static SSLSocket connect(int port, TestCertificates.Leaf leaf) throws Exception {
        SSLContext ctx = JdkTls.context(leaf == null ? null : leaf.p12(), ca.caPem);
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(20_000);
        SSLParameters p = s.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        s.setSSLParameters(p);
        s.startHandshake();
        return s;
    }

    private static void send(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String subject(SSLSocket s) throws IOException {
        return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }

    /** Whether the server closed {@code s}: a read sees the end of the stream, a reset or a TLS alert. */
    private static boolean closedByServer(Socket s) {
        try {
            s.setSoTimeout(50);
            return s.getInputStream().read() < 0;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException closed) {
            return true;
        }
    }

    private static String lines(String prefix, int from, int to) {
        StringBuilder b = new StringBuilder();
        for (int i = from; i < to; i++) {
            b.append(prefix).append(i).append(' ').append("x".repeat(i % 200)).append('\n');
        }
        return b.toString();
    }

    private static void assertAllInOrder(List<String> got, String prefix, int count) {
        List<String> mine = got.stream().filter(p -> p.startsWith(prefix)).toList();
        assertThat(mine).hasSize(count);
        for (int i = 0; i < count; i++) {
            assertThat(mine.get(i)).isEqualTo(prefix + i + " " + "x".repeat(i % 200));
        }
    }

    /** ReadBufferKB 4 unwraps through each connection's buffer (less room than a record); 256 straight into the read buffer. */
    @ParameterizedTest
    @ValueSource(ints = {4, 256})
    void manyLinesOverTlsArriveWholeAndInOrder(int readBufferKb) throws Exception {
        int port = freePort();
        MemoryBudget budget = new MemoryBudget(64 << 20);
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(yaml("consumer.Socket", port,
                serverTls(serverA) + "  ReadBufferKB: " + readBufferKb + "\n")).memory(budget).start();
                SSLSocket s = connect(port, null)) {
            assertThat(subject(s)).isEqualTo("CN=server-a");
            assertThat(s.getSession().getProtocol()).isEqualTo("TLSv1.3");
            // Written in pieces that cut lines and TLS records anywhere.
            String all = lines("a", 0, 20_000);
            for (int i = 0; i < all.length(); i += 7_777) {
                send(s, all.substring(i, Math.min(all.length(), i + 7_777)));
            }
            p.await("20000 lines", () -> p.collect("Out").size() >= 20_000);
            assertAllInOrder(p.payloads("Out"), "a", 20_000);
            assertThat(p.stats("In").rejected(Rejection.AUTH)).isZero();
            assertThat(p.logText()).contains("listening on tcp://127.0.0.1:" + port + " (TLS)");
        }
        assertThat(budget.used()).as("every reservation returned, TLS buffers too").isZero();
    }

    @Test
    void mutualTlsTakesClientsOfTheCaAndCountsTheOthers() throws Exception {
        int port = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(yaml("consumer.Socket", port, mutualTls())).start()) {
            try (SSLSocket good = connect(port, client)) {
                send(good, "from a known client\n");
                p.await("the known client's line", () -> p.payloads("Out").contains("from a known client"));
            }
            // TLS 1.3: the client's handshake ends before the server checked its certificate; the server then closes.
            try (SSLSocket anonymous = connect(port, null)) {
                try {
                    send(anonymous, "from nobody\n");
                } catch (IOException refusedAlready) {
                    // The server's alert may arrive before the line goes out.
                }
                p.await("the anonymous client refused", () -> p.stats("In").rejected(Rejection.AUTH) == 1);
                p.await("the anonymous client closed", () -> closedByServer(anonymous));
            }
            SSLContext foreign = JdkTls.context(stranger.p12(), ca.caPem);
            try (SSLSocket s = (SSLSocket) foreign.getSocketFactory().createSocket("127.0.0.1", port)) {
                s.setSoTimeout(20_000);
                try {
                    send(s, "from a stranger\n");
                } catch (IOException refusedAlready) {
                    // The server's alert may arrive before the line goes out.
                }
                p.await("the stranger refused", () -> p.stats("In").rejected(Rejection.AUTH) == 2);
            }
            assertThat(p.payloads("Out")).containsExactly("from a known client");
            assertThat(p.logText()).contains("rejected (auth) from /127.0.0.1:").contains("TLS handshake failed");
            p.await("no connection left", () -> p.stats("In").connections() == 0);
        }
    }

    @Test
    void aPlainClientIsClosedAndCounted() throws Exception {
        int port = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(yaml("consumer.Socket", port, serverTls(serverA))).start();
                Socket plain = new Socket("127.0.0.1", port)) {
            send(plain, "not TLS at all\n");
            p.await("the plain client closed", () -> closedByServer(plain));
            p.await("counted", () -> p.stats("In").rejected(Rejection.AUTH) == 1);
            assertThat(p.collect("Out").size()).isZero();
            assertThat(p.logText()).contains("rejected (auth) from /127.0.0.1:");
            try (SSLSocket s = connect(port, null)) {
                send(s, "the next one is served\n");
                p.await("a TLS client after it", () -> p.payloads("Out").contains("the next one is served"));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"silent", "partial"})
    void aHandshakeThatNeverCompletesIsClosedByTheIdleTimeout(String how) throws Exception {
        int port = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(yaml("consumer.Socket", port,
                serverTls(serverA) + "  IdleTimeoutMs: 300\n")).start();
                SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            if (how.equals("partial")) {
                // The first bytes of a TLS record holding a ClientHello, and then nothing.
                ch.write(ByteBuffer.wrap(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01}));
            }
            p.await("the stalled handshake closed", () -> closedByServer(ch.socket()));
            assertThat(p.stats("In").rejected(Rejection.TIMEOUT)).isEqualTo(1);
            assertThat(p.logText()).contains("TLS handshake not completed within 300 ms");
            p.await("no connection left", () -> p.stats("In").connections() == 0);
        }
    }

    @Test
    void acknowledgementsAreSentOverTls() throws Exception {
        int port = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(yaml("consumer.Socket", port,
                serverTls(serverA) + "  Acknowledge: \"OK\\n\"\n")).start();
                SSLSocket s = connect(port, null)) {
            InputStream in = s.getInputStream();
            for (int round = 1; round <= 3; round++) {
                send(s, "line " + round + "\n");
                assertThat(new String(in.readNBytes(3), StandardCharsets.UTF_8)).isEqualTo("OK\n");
                assertThat(p.stats("In").in()).as("published before the ack").isGreaterThanOrEqualTo(round);
            }
            p.await("3 lines delivered", () -> p.collect("Out").size() >= 3);
            assertThat(p.payloads("Out")).containsExactly("line 1", "line 2", "line 3");
        }
    }

    @Test
    void aRotatedCertificateServesNewConnectionsWhileAnOpenOneKeepsSending() throws Exception {
        Path cert = Files.copy(serverA.cert(), dir.resolve("live.crt"), StandardCopyOption.REPLACE_EXISTING);
        Path key = Files.copy(serverA.key(), dir.resolve("live.key"), StandardCopyOption.REPLACE_EXISTING);
        int port = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(yaml("consumer.Socket", port,
                "  TLS/CertFile: " + cert + "\n  TLS/KeyFile: " + key + "\n")).start();
                SSLSocket before = connect(port, null)) {
            assertThat(subject(before)).isEqualTo("CN=server-a");
            send(before, lines("old", 0, 1000));
            // The new pair is written beside and moved in, as cert-manager and certbot do.
            Files.copy(serverB.key(), dir.resolve("live.key.new"), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(serverB.cert(), dir.resolve("live.crt.new"), StandardCopyOption.REPLACE_EXISTING);
            Files.move(dir.resolve("live.key.new"), key, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Files.move(dir.resolve("live.crt.new"), cert, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            int sent = 1000;
            int tries = 0;
            String seen;
            do {
                send(before, lines("old", sent, sent + 100)); // the open connection keeps sending meanwhile
                sent += 100;
                try (SSLSocket s = connect(port, null)) {
                    seen = subject(s);
                    send(s, "new" + tries++ + "\n");
                }
            } while (!seen.equals("CN=server-b") && System.nanoTime() < deadline);
            assertThat(seen).isEqualTo("CN=server-b");
            send(before, lines("old", sent, sent + 1000));
            int total = sent + 1000;
            assertThat(subject(before)).as("the open connection keeps its session").isEqualTo("CN=server-a");
            int newOnes = tries;
            p.await("every line of both", () -> p.collect("Out").size() >= total + newOnes);
            assertAllInOrder(p.payloads("Out"), "old", total);
            Set<String> fresh = new HashSet<>(p.payloads("Out"));
            for (int i = 0; i < newOnes; i++) {
                assertThat(fresh).contains("new" + i);
            }
        }
    }

    private static String syslog(String msg) {
        String m = "<34>1 2003-10-11T22:14:15.003Z host app - - - " + msg;
        return m.getBytes(StandardCharsets.UTF_8).length + " " + m;
    }

    @Test
    void syslogdSpeaksRfc5425OctetCountingOverTls() throws Exception {
        int port = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(yaml("consumer.Syslogd", port, mutualTls() + "  Format: RFC5425\n")).start();
                SSLSocket s = connect(port, client)) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < 5000; i++) {
                // Messages holding newlines: octet counting, not the line end, cuts them.
                b.append(syslog("event " + i + "\nsecond line"));
            }
            send(s, b.toString());
            p.await("5000 syslog messages", () -> p.collect("Out").size() >= 5000);
            List<String> got = p.payloads("Out");
            for (int i = 0; i < 5000; i++) {
                assertThat(got.get(i)).isEqualTo("event " + i + "\nsecond line");
            }
        }
    }

    /** RFC 5425 from openssl s_client with a client certificate; skipped only where there is no openssl command. */
    @Test
    void syslogdTakesRfc5425FromOpensslWithAClientCertificate() throws Exception {
        Path openssl = opensslCommand();
        Assumptions.assumeTrue(openssl != null, "no openssl command on this machine");
        int port = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(yaml("consumer.Syslogd", port, mutualTls() + "  Format: RFC5425\n")).start()) {
            Process s = new ProcessBuilder(openssl.toString(), "s_client", "-connect", "127.0.0.1:" + port, "-quiet",
                    "-no_ign_eof", "-verify_return_error", "-CAfile", ca.caPem.toString(), "-cert", client.cert().toString(),
                    "-key", client.key().toString()).redirectErrorStream(true).start();
            AtomicReference<String> output = new AtomicReference<>("");
            Thread reader = new Thread(() -> {
                try {
                    output.set(new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
                } catch (IOException ignored) {
                    // The process ended.
                }
            });
            reader.start();
            try (OutputStream in = s.getOutputStream()) {
                in.write((syslog("from openssl 1") + syslog("from openssl 2\nwith a newline")).getBytes(StandardCharsets.UTF_8));
            }
            PipelineHarness.await("openssl's messages", 20_000, () -> p.collect("Out").size() >= 2);
            assertThat(s.waitFor(20, TimeUnit.SECONDS)).as("s_client ends at the end of its input").isTrue();
            reader.join(10_000);
            assertThat(p.payloads("Out")).as("openssl said: %s", output.get())
                    .containsExactly("from openssl 1", "from openssl 2\nwith a newline");
            assertThat(p.stats("In").rejected(Rejection.AUTH)).isZero();
        }
    }

    private static Path opensslCommand() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path c = Path.of(d, "openssl");
            if (Files.isExecutable(c)) {
                return c;
            }
        }
        return null;
    }

    @Test
    void aSmallBudgetHoldsTlsSendersBackAndEveryLineArrivesOnce() throws Exception {
        int port = freePort();
        long limit = 512 * 1024;
        MemoryBudget budget = new MemoryBudget(limit);
        int senders = 3;
        int each = 20_000;
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(yaml("consumer.Socket", port, serverTls(serverA))).memory(budget).start()) {
            Collect out = p.collect("Out");
            out.holdAfter(0);
            List<Thread> threads = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int k = 0; k < senders; k++) {
                String prefix = "s" + k + "-";
                Thread t = new Thread(() -> {
                    try (SSLSocket s = connect(port, null)) {
                        s.setSoTimeout(0);
                        String all = lines(prefix, 0, each);
                        for (int i = 0; i < all.length(); i += 30_000) {
                            send(s, all.substring(i, Math.min(all.length(), i + 30_000)));
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                });
                t.start();
                threads.add(t);
            }
            p.await("the budget to refuse the reader", () -> budget.refused() > 0);
            assertThat(budget.used()).isLessThanOrEqualTo(limit);
            out.open();
            for (Thread t : threads) {
                t.join(60_000);
                assertThat(t.isAlive()).isFalse();
            }
            assertThat(failure.get()).isNull();
            p.await("every line", () -> out.size() >= senders * each);
            List<String> got = p.payloads("Out");
            assertThat(got).hasSize(senders * each);
            for (int k = 0; k < senders; k++) {
                assertAllInOrder(got, "s" + k + "-", each);
            }
        }
        assertThat(budget.used()).as("every reservation returned").isZero();
    }

    /**
     * Syslog senders write and never read. A TLS 1.3 server's session ticket left unread in such a sender's socket
     * turns its close into a reset, which throws away what the server had not read yet: the listener sends none.
     * The JDK's SSLSocket reads what arrived before it closes, so the sender here is an SSLEngine on a plain socket
     * that reads only during its handshake, as OpenSSL-based senders (rsyslog, syslog-ng) do.
     */
    @Test
    void aSenderThatNeverReadsAndClosesRightAfterWritingLosesNothing() throws Exception {
        int port = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(yaml("consumer.Socket", port, serverTls(serverA))).memory(new MemoryBudget(512 * 1024)).start()) {
            Collect out = p.collect("Out");
            out.holdAfter(0); // the listener stops reading once its memory is spent: the rest waits in the sockets
            writeOnly(port, lines("c-", 0, 20_000).getBytes(StandardCharsets.UTF_8));
            out.open();
            p.await("every line", () -> out.size() >= 20_000);
            assertAllInOrder(p.payloads("Out"), "c-", 20_000);
        }
    }

    /** Handshakes, writes {@code data} and closes the socket, reading nothing after the handshake. */
    private static void writeOnly(int port, byte[] data) throws Exception {
        SSLEngine e = JdkTls.context(null, ca.caPem).createSSLEngine("127.0.0.1", port);
        e.setUseClientMode(true);
        int packet = e.getSession().getPacketBufferSize();
        ByteBuffer netIn = ByteBuffer.allocate(packet);
        ByteBuffer netOut = ByteBuffer.allocate(packet);
        ByteBuffer app = ByteBuffer.allocate(e.getSession().getApplicationBufferSize());
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            e.beginHandshake();
            for (SSLEngineResult.HandshakeStatus hs; (hs = e.getHandshakeStatus()) != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING; ) {
                if (hs == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                    e.getDelegatedTask().run();
                } else if (hs == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                    netOut.clear();
                    e.wrap(ByteBuffer.allocate(0), netOut);
                    writeAll(ch, netOut.flip());
                } else {
                    netIn.flip();
                    SSLEngineResult r = e.unwrap(netIn, app);
                    netIn.compact();
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW && ch.read(netIn) < 0) {
                        throw new IOException("closed during the handshake");
                    }
                }
            }
            ByteBuffer src = ByteBuffer.wrap(data);
            while (src.hasRemaining()) {
                netOut.clear();
                e.wrap(src, netOut);
                writeAll(ch, netOut.flip());
            }
        }
    }

    private static void writeAll(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    @Test
    void tls12ClientsAreServedUnlessMinVersionIs13() throws Exception {
        int port = freePort();
        int strict = freePort();
        String yaml = "In:\n  Type: consumer.Socket\n  Address: tcp://127.0.0.1:" + port + "\n  Streams: s\n" + serverTls(serverA)
                + "Strict:\n  Type: consumer.Socket\n  Address: tcp://127.0.0.1:" + strict + "\n  Streams: s\n"
                + serverTls(serverA) + "  TLS/MinVersion: \"1.3\"\n"
                + "Out:\n  Type: test.Collect\n  Streams: s\n";
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(yaml).start()) {
            SSLContext ctx = JdkTls.context(null, ca.caPem);
            try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port)) {
                s.setEnabledProtocols(new String[] {"TLSv1.2"});
                s.startHandshake();
                assertThat(s.getSession().getProtocol()).isEqualTo("TLSv1.2");
                send(s, lines("v12-", 0, 3000));
                p.await("the TLS 1.2 client's lines", () -> p.collect("Out").size() >= 3000);
                assertAllInOrder(p.payloads("Out"), "v12-", 3000);
            }
            try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", strict)) {
                s.setSoTimeout(20_000);
                s.setEnabledProtocols(new String[] {"TLSv1.2"});
                assertThatThrownBy(s::startHandshake).isInstanceOf(IOException.class);
            }
            p.await("the TLS 1.2 client refused", () -> p.stats("Strict").rejected(Rejection.AUTH) == 1);
        }
    }

    @Test
    void idleTlsConnectionsGiveTheirBuffersBack() throws Exception {
        int port = freePort();
        MemoryBudget budget = new MemoryBudget(64 << 20);
        List<SSLSocket> open = new ArrayList<>();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(yaml("consumer.Socket", port, serverTls(serverA))).memory(budget).start()) {
            for (int i = 0; i < 100; i++) {
                SSLSocket s = connect(port, null);
                open.add(s);
                send(s, "hello " + i + "\n");
            }
            p.await("100 lines", () -> p.collect("Out").size() >= 100);
            p.await("100 connections", () -> p.stats("In").connections() == 100);
            // 100 connections holding their ciphertext and plaintext buffers would hold over 3 MB; idle, they hold
            // none: what stays reserved is the loop's small pool and credit.
            p.await("the buffers given back", () -> budget.used() < 1_000_000);
            send(open.get(42), "still served\n");
            p.await("a line on an idle connection", () -> p.payloads("Out").contains("still served"));
        } finally {
            for (SSLSocket s : open) {
                s.close();
            }
        }
        assertThat(budget.used()).isZero();
    }

    private static PluginConfig config(String type, String extra) {
        return new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of()).loadString(
                "In:\n  Type: " + type + "\n  Streams: s\n" + extra + "Out:\n  Type: producer.Null\n  Streams: s\n",
                "t.yaml").get(0);
    }

    @Test
    void tlsIsForTcpAndSyslogOverTlsListensOn6514() {
        assertThatThrownBy(() -> new SocketConsumer(config("consumer.Socket",
                "  Address: udp://127.0.0.1:5000\n" + serverTls(serverA))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("TLS needs a tcp:// address");
        assertThatThrownBy(() -> new SocketConsumer(config("consumer.Socket",
                "  Address: unix://" + dir.resolve("s.sock") + "\n" + serverTls(serverA))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("TLS needs a tcp:// address");
        assertThatThrownBy(() -> new SyslogdConsumer(config("consumer.Syslogd",
                "  Address: udp://127.0.0.1:5000\n" + serverTls(serverA))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("TLS needs a tcp:// address");
        assertThatThrownBy(() -> new SyslogdConsumer(config("consumer.Syslogd", "  Format: RFC5425\n")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("RFC5425 is syslog over TLS");
        assertThatThrownBy(() -> new SocketConsumer(config("consumer.Socket", "  TLS/Enable: true\n")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("TLS/CertFile");
        assertThatThrownBy(() -> new SocketConsumer(config("consumer.Socket",
                serverTls(serverA) + "  TLS/InsecureSkipVerify: true\n")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("applies to clients");
        SyslogdConsumer tls = new SyslogdConsumer(config("consumer.Syslogd", serverTls(serverA)));
        assertThat(tls.server().s.address).hasToString("tcp://127.0.0.1:6514");
        SyslogdConsumer plain = new SyslogdConsumer(config("consumer.Syslogd", ""));
        assertThat(plain.server().s.address).hasToString("udp://127.0.0.1:514");
    }
}
