package io.sluice.core.admin;

import static io.sluice.core.testing.PipelineHarness.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.pipeline.Pipeline;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The admin endpoint under attack (issue 19): starvation, slow clients, no token, an open tap, too many connections. */
@Timeout(60)
class AdminSecurityTest {
    private static final String ONE_MESSAGE = "Src:\n  Type: test.Numbers\n  Count: 1\n  KeepRunning: true\n  Streams: s\n"
            + "Out:\n  Type: test.Collect\n  Streams: s\n";
    private static final String TOKEN = "s3cret-token";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Socket> sockets = new ArrayList<>();
    private Pipeline pipeline;
    private AdminServer admin;

    @TempDir
    Path dir;

    @AfterEach
    void tearDown() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (pipeline != null) {
            pipeline.stop();
        }
    }

    private void start(Consumer<AdminServer.Settings> settings) throws Exception {
        start(settings, null);
    }

    private void start(Consumer<AdminServer.Settings> settings, io.netty.handler.ssl.SslContext tls) throws Exception {
        pipeline = PipelineHarness.pipeline(ONE_MESSAGE);
        pipeline.start();
        AdminServer.Settings s = new AdminServer.Settings();
        s.port = 0;
        settings.accept(s);
        admin = AdminServer.start(pipeline, s, tls, PipelineHarness.quietLog());
    }

    private HttpResponse<String> get(String path, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + path))
                .timeout(Duration.ofSeconds(10));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", admin.port());
        s.setSoTimeout(10_000);
        sockets.add(s);
        return s;
    }

    private Socket send(String request) throws IOException {
        Socket s = connect();
        s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }

    /** The answer's status line, read byte by byte so that nothing after it is consumed. */
    private static String statusLine(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            line.write(b);
        }
        return line.toString(StandardCharsets.US_ASCII).trim();
    }

    /** Whether the server closed the connection (end of stream or reset) before the socket's timeout. */
    private static boolean closedByServer(Socket s) throws IOException {
        try {
            InputStream in = s.getInputStream();
            while (in.read() != -1) {
                // the rest of an answer sent before closing
            }
            return true;
        } catch (SocketException reset) {
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        }
    }

    @Test
    void eightOpenTapsAndEightHalfSentRequestsLeaveHealthAndMetricsAnsweringWithinASecond() throws Exception {
        start(s -> {
            s.tap = true;
            s.maxTaps = 8;
        });
        for (int i = 0; i < 8; i++) {
            Socket tap = send("GET /api/tap?plugin=Out&limit=5 HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(statusLine(tap)).as("tap " + i).isEqualTo("HTTP/1.1 200 OK");
        }
        for (int i = 0; i < 8; i++) {
            send("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Half: "); // never finished
        }
        for (String path : List.of("/health", "/metrics", "/health", "/metrics")) {
            long start = System.nanoTime();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + path))
                    .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(millis).as(path + " answered within a second").isLessThan(1000);
        }
        assertThat(get("/api/tap?plugin=Out", null).statusCode()).as("a ninth tap").isEqualTo(429);
    }

    @Test
    void aSlowLorisThatKeepsTricklingIsClosedAtTheDeadline() throws Exception {
        start(s -> s.requestMillis = 500);
        Socket slow = send("GET /health HTTP/1.1\r\nHost: x\r\n");
        Thread trickle = new Thread(() -> {
            try {
                for (int i = 0; i < 100; i++) {
                    slow.getOutputStream().write(("X-" + i + ": y\r\n").getBytes(StandardCharsets.US_ASCII));
                    slow.getOutputStream().flush();
                    Thread.sleep(50); // a header every 50 ms, far inside any idle timeout
                }
            } catch (IOException | InterruptedException closed) {
                // the server closed it: what this test wants
            }
        }, "slowloris");
        long start = System.nanoTime();
        trickle.start();
        assertThat(closedByServer(slow)).as("closed").isTrue();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        trickle.interrupt();
        trickle.join();
        assertThat(millis).as("closed after the deadline, not long after").isBetween(400L, 3000L);
    }

    @Test
    void aConnectionThatSendsNothingIsClosedAtTheDeadline() throws Exception {
        start(s -> s.requestMillis = 300);
        Socket idle = connect();
        assertThat(closedByServer(idle)).isTrue();
        await("connection given back", 5_000, () -> admin.connections() == 0);
    }

    @Test
    void withATokenEveryPathButHealthAndReadyNeedsTheBearerToken() throws Exception {
        start(s -> s.token = TOKEN);
        for (String path : List.of("/metrics", "/api/plugins", "/api/tap?plugin=Out&limit=1", "/nope")) {
            HttpResponse<String> none = get(path, null);
            assertThat(none.statusCode()).as(path + " without a token").isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).as(path).hasValue("Bearer");
            assertThat(get(path, "Bearer wrong-token").statusCode()).as(path + " wrong token").isEqualTo(401);
            assertThat(get(path, "Bearer " + TOKEN + "x").statusCode()).as(path + " longer token").isEqualTo(401);
            assertThat(get(path, "Basic " + TOKEN).statusCode()).as(path + " wrong scheme").isEqualTo(401);
            assertThat(get(path, TOKEN).statusCode()).as(path + " no scheme").isEqualTo(401);
        }
        assertThat(get("/metrics", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
        assertThat(get("/metrics", "bearer " + TOKEN).statusCode()).as("the scheme in any case").isEqualTo(200);
        assertThat(get("/api/plugins", "Bearer " + TOKEN).body()).contains("\"id\":\"Out\"");
        assertThat(get("/nope", "Bearer " + TOKEN).statusCode()).isEqualTo(404);
        assertThat(get("/health", null).statusCode()).isEqualTo(200);
        assertThat(get("/ready", null).statusCode()).isEqualTo(200);
    }

    @Test
    void aTokenTurnsTheTapOnForItsHolders() throws Exception {
        start(s -> s.token = TOKEN);
        HttpResponse<String> r = get("/api/tap?plugin=Out&limit=0", "Bearer " + TOKEN);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/x-ndjson");
        assertThat(get("/api/tap?plugin=Nope", "Bearer " + TOKEN).statusCode()).isEqualTo(404);
        assertThat(get("/api/tap?plugin=Out&limit=x", "Bearer " + TOKEN).statusCode()).isEqualTo(400);
    }

    @Test
    void theTapIsOffByDefaultAndSaysHowToTurnItOn() throws Exception {
        start(s -> { });
        HttpResponse<String> r = get("/api/tap?plugin=Out&limit=1", null);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("--admin-tap").contains("--admin-token");
        assertThat(get("/metrics", null).statusCode()).as("no token: the rest stays open").isEqualTo(200);
    }

    @Test
    void connectionsBeyondTheCapAreAnswered503AndClosed() throws Exception {
        start(s -> {
            s.maxConnections = 4;
            s.requestMillis = 30_000;
        });
        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(connect());
        }
        await("4 connections open", 5_000, () -> admin.connections() == 4);
        Socket fifth = connect();
        assertThat(statusLine(fifth)).isEqualTo("HTTP/1.1 503 Service Unavailable");
        assertThat(closedByServer(fifth)).isTrue();
        held.get(0).close();
        await("a slot free", 5_000, () -> admin.connections() == 3);
        assertThat(get("/health", null).statusCode()).isEqualTo(200);
    }

    @Test
    void requestBodiesAndOversizedHeadsAreRefusedAndClosed() throws Exception {
        start(s -> { });
        Socket body = send("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
        assertThat(statusLine(body)).isEqualTo("HTTP/1.1 413 Request Entity Too Large");
        assertThat(closedByServer(body)).isTrue();
        Socket big = send("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(AdminServer.MAX_HEADERS) + "\r\n\r\n");
        assertThat(statusLine(big)).isEqualTo("HTTP/1.1 431 Request Header Fields Too Large");
        assertThat(closedByServer(big)).isTrue();
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + "/health"))
                .method("DELETE", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
    }

    @Test
    void anHttp10HealthCheckAsTheContainerSendsItIsAnsweredAndClosed() throws Exception {
        start(s -> { });
        Socket s = send("GET /health HTTP/1.0\r\nHost: 127.0.0.1:9696\r\nConnection: close\r\n\r\n");
        assertThat(statusLine(s)).isEqualTo("HTTP/1.1 200 OK");
        assertThat(closedByServer(s)).isTrue();
    }

    @Test
    void anSslContextServesHttps() throws Exception {
        io.sluice.core.tls.TestCertificates ca = io.sluice.core.tls.TestCertificates.ca(dir, "admin-ca");
        io.sluice.core.tls.TestCertificates.Leaf leaf = ca.leaf("admin", false);
        // the TLS/* group as the CLI's --admin-tls-cert and --admin-tls-key build it
        io.sluice.core.tls.TlsSettings tls = io.sluice.core.tls.TlsSettings.of("admin", io.sluice.core.tls.TlsSettings.Role.SERVER,
                java.util.Map.of("TLS/CertFile", leaf.cert().toString(), "TLS/KeyFile", leaf.key().toString()));
        start(s -> s.token = TOKEN, new io.sluice.core.tls.NettyTls(tls).context());
        HttpClient https = HttpClient.newBuilder().sslContext(ca.clientContext(null)).connectTimeout(Duration.ofSeconds(2)).build();
        HttpResponse<String> r = https.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + admin.port() + "/metrics"))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("sluice_ready 1");
        Socket plain = send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(closedByServer(plain)).as("plain HTTP to the TLS port").isTrue();
    }
}
