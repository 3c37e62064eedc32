package io.sluice.io.socket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.testing.DirectProducerContext;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.io.Lines;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.sluice.core.config.ConfigException;
import io.sluice.core.tls.TestCertificates;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** producer.Socket to a real server socket on 127.0.0.1: what arrives is read back frame by frame. */
@Timeout(60)
class SocketProducerTest {
    private final ProducerContext context = DirectProducerContext.of("Out", "producer.Socket",
            new Log(new PrintStream(OutputStream.nullOutputStream()), Log.ERROR));
    private final PluginStats stats = context.stats();
    private final BatchPool pool = new BatchPool(64);

    /** Texts that try to break their line, as plain payloads and inside JSON strings (quotes escaped, controls raw). */
    private static final String[] HOSTILE = {
        "a\n{\"forged\":true}", "crlf\r\ninside", "nul\0byte", "esc\u001b[2J", "del\u007f", "tab\tkept", "C:\\new",
        "ends with a newline\n",
    };

    private ProducerContext context() {
        return context;
    }

    /** Sends one batch through a producer configured with {@code settings}; returns every byte the server read. */
    private byte[] send(Map<String, Object> settings, Batch batch) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                    return in.readAllBytes();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Map<String, Object> all = new HashMap<>(settings);
            all.put("Address", "tcp://127.0.0.1:" + server.getLocalPort());
            SocketProducer out = new SocketProducer(PluginConfig.of("Out", "producer.Socket", all));
            out.start(context());
            out.deliver(batch);
            out.close(); // closes the connection: the server's read ends
            return received.get(30, TimeUnit.SECONDS);
        }
    }

    private Batch hostileBatch() {
        Batch b = pool.acquire();
        for (String h : HOSTILE) {
            b.add().setPayload(h);
        }
        for (String h : HOSTILE) {
            b.add().setPayload("{\"msg\":\"" + h.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
        }
        byte[] invalid = {'{', '"', 'm', 's', 'g', '"', ':', '"', 'x', (byte) 0xc0, (byte) 0xff, '"', '}'};
        b.add().setPayload(invalid);
        return b;
    }

    private static String withoutLineEnd(String s) {
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    @Test
    void newlineFramingSendsEveryRecordAsOneLineThatReadsBack() throws Exception {
        byte[] got = send(Map.of(), hostileBatch());
        List<byte[]> lines = Lines.split(got);
        assertThat(lines).hasSize(2 * HOSTILE.length + 1);
        for (int i = 0; i < HOSTILE.length; i++) {
            assertThat(new String(Lines.unescapeText(lines.get(i)), StandardCharsets.UTF_8)).isEqualTo(withoutLineEnd(HOSTILE[i]));
            assertThat(Lines.jsonField(lines.get(HOSTILE.length + i), "msg")).isEqualTo(HOSTILE[i]);
        }
        assertThat(Lines.jsonField(lines.get(2 * HOSTILE.length), "msg")).isEqualTo("x\ufffd\ufffd");
        assertThat(stats.counters()).anySatisfy(c -> {
            assertThat(c.name()).isEqualTo("sluice_invalid_utf8_total");
            assertThat(c.value().get()).isEqualTo(2);
        });
        // The HEC forgery of the report, byte for byte.
        assertThat(new String(lines.get(0), StandardCharsets.UTF_8)).isEqualTo("a\\n{\"forged\":true}");
    }

    @Test
    void crlfAndNulDelimitersAreNeverInsideAFrame() throws Exception {
        for (String delimiter : new String[] {"\\r\\n", "\\0"}) {
            byte[] d = delimiter.equals("\\0") ? new byte[] {0} : new byte[] {'\r', '\n'};
            byte[] got = send(Map.of("Delimiter", delimiter), hostileBatch());
            int frames = 0;
            int start = 0;
            for (int i = 0; i + d.length <= got.length; i++) {
                boolean at = true;
                for (int k = 0; k < d.length; k++) {
                    at &= got[i + k] == d[k];
                }
                if (at) {
                    byte[] frame = java.util.Arrays.copyOfRange(got, start, i);
                    for (byte x : frame) {
                        assertThat(x == 0 || x == '\r' || x == '\n').as("raw delimiter byte inside a frame").isFalse();
                    }
                    frames++;
                    start = i + d.length;
                    i = start - 1;
                }
            }
            assertThat(start).as("ends with a delimiter").isEqualTo(got.length);
            assertThat(frames).as("frames with Delimiter %s", delimiter).isEqualTo(2 * HOSTILE.length + 1);
        }
    }

    @Test
    void octetCountingSendsPayloadsAsTheyAre() throws Exception {
        Batch b = pool.acquire();
        b.add().setPayload("a\nb");
        byte[] got = send(Map.of("Framing", "octet"), b);
        assertThat(new String(got, StandardCharsets.UTF_8)).isEqualTo("3 a\nb");
    }

    @Test
    void cleanPayloadsGoOutUnchanged() throws Exception {
        Batch b = pool.acquire();
        b.add().setPayload("{\"n\":1,\"é\":\"ü\"}");
        b.add().setPayload("plain text with \"quotes\" and C:\\Users\n");
        byte[] got = send(Map.of(), b);
        ByteArrayOutputStream want = new ByteArrayOutputStream();
        want.writeBytes("{\"n\":1,\"é\":\"ü\"}\nplain text with \"quotes\" and C:\\Users\n".getBytes(StandardCharsets.UTF_8));
        assertThat(got).isEqualTo(want.toByteArray());
    }

    @Test
    void tlsWithAClientCertificateReachesAServerThatRequiresOne(@TempDir Path dir) throws Exception {
        TestCertificates ca = TestCertificates.ca(dir, "ca");
        TestCertificates.Leaf server = ca.leaf("server", false);
        TestCertificates.Leaf client = ca.leaf("client", false);
        try (SSLServerSocket ss = (SSLServerSocket) JdkTls.context(server.p12(), ca.caPem).getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ss.setNeedClientAuth(true);
            CompletableFuture<String> received = CompletableFuture.supplyAsync(() -> {
                try (SSLSocket s = (SSLSocket) ss.accept(); InputStream in = s.getInputStream()) {
                    s.setSoTimeout(30_000);
                    String who = ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
                    return who + " " + new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            SocketProducer out = new SocketProducer(PluginConfig.of("Out", "producer.Socket", Map.of(
                    "Address", "tcp://127.0.0.1:" + ss.getLocalPort(), "TLS/CAFile", ca.caPem.toString(),
                    "TLS/CertFile", client.cert().toString(), "TLS/KeyFile", client.key().toString())));
            out.start(context());
            Batch b = pool.acquire();
            b.add().setPayload("over mutual TLS");
            out.deliver(b);
            out.close();
            assertThat(received.get(30, TimeUnit.SECONDS)).isEqualTo("CN=client over mutual TLS\n");
        }
    }

    @Test
    void tlsSettingsAreCheckedAtConfiguration(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> new SocketProducer(PluginConfig.of("Out", "producer.Socket",
                Map.of("Address", "udp://127.0.0.1:5000", "TLS/Enable", true))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("tcp://");
        assertThatThrownBy(() -> new SocketProducer(PluginConfig.of("Out", "producer.Socket",
                Map.of("TLS/CAFile", dir.resolve("missing.pem").toString()))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("TLS/CAFile");
        assertThatThrownBy(() -> new SocketProducer(PluginConfig.of("Out", "producer.Socket",
                Map.of("TLS/Enable", true, "TLS/ClientAuth", "require"))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("applies to servers");
    }
}
