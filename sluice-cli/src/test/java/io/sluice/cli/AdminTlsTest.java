package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.tls.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin endpoint over HTTPS with the TLS/* group (--admin-tls-cert, --admin-tls-key, --admin-tls-ca): the JDK's
 * HTTP client with a client certificate is served, one without is refused, plain HTTP is refused, and a bad
 * certificate path is a config error (exit 2) before anything starts.
 */
class AdminTlsTest {
    private static final String CONFIG = "Gen:\n  Type: consumer.Profiler\n  Runs: 1000\n  KeepRunning: true\n"
            + "  DelayMs: 100\n  Streams: s\nOut:\n  Type: producer.Null\n  Streams: s\n";

    @Test
    void mutualTlsOnTheAdminEndpoint(@TempDir Path dir) throws Exception {
        TestCertificates ca = TestCertificates.ca(dir, "admin-ca");
        TestCertificates.Leaf server = ca.leaf("admin", false);
        TestCertificates.Leaf client = ca.leaf("operator", false);
        Path conf = Files.writeString(dir.resolve("a.yaml"), CONFIG);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "-c", conf.toString(), "--admin", "127.0.0.1:" + port, "--no-stats",
                "--admin-tls-cert", server.cert().toString(), "--admin-tls-key", server.key().toString(),
                "--admin-tls-ca", ca.caPem.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(dir.resolve("err.txt").toFile()).start();
        try {
            HttpClient operator = HttpClient.newBuilder().sslContext(ca.clientContext(client)).connectTimeout(Duration.ofSeconds(2)).build();
            URI health = URI.create("https://127.0.0.1:" + port + "/health");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int status = 0;
            while (status != 200) {
                try {
                    status = operator.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
                } catch (java.io.IOException notYet) {
                    assertThat(p.isAlive()).as(Files.readString(dir.resolve("err.txt"))).isTrue();
                    assertThat(System.nanoTime()).as("admin endpoint up").isLessThan(deadline);
                    Thread.sleep(50);
                }
            }
            HttpClient anonymous = HttpClient.newBuilder().sslContext(ca.clientContext(null)).connectTimeout(Duration.ofSeconds(2)).build();
            assertThatThrownBy(() -> anonymous.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(java.io.IOException.class);
            HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            assertThatThrownBy(() -> plain.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(java.io.IOException.class);
        } finally {
            p.toHandle().destroy();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aCertificateThatCannotBeReadIsAConfigError(@TempDir Path dir) throws Exception {
        Path conf = Files.writeString(dir.resolve("a.yaml"), CONFIG);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.execute(new String[] {"-c", conf.toString(), "--admin", "127.0.0.1:0", "--admin-tls-cert",
            dir.resolve("none.crt").toString(), "--admin-tls-key", dir.resolve("none.key").toString()},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("admin").contains("TLS/CertFile");
    }
}
