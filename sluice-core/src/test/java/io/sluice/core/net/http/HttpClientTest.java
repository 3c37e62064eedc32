package io.sluice.core.net.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** core's HTTP/1.1 client against a scripted server on a raw socket: what it sends, and every answer form it reads. */
@Timeout(30)
class HttpClientTest {
    /** Each accepted connection answers the scripted answers in turn, one per request; "close" closes it instead. */
    private final LinkedBlockingQueue<byte[]> answers = new LinkedBlockingQueue<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private static final byte[] CLOSE = new byte[0];

    HttpClientTest() throws IOException {
        Thread t = new Thread(this::acceptAll, "scripted-server");
        t.setDaemon(true);
        t.start();
    }

    @AfterEach
    void close() throws IOException {
        server.close();
    }

    private void acceptAll() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> serve(s));
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            while (true) {
                String head = readHead(in);
                if (head == null) {
                    return;
                }
                int len = 0;
                for (String line : head.split("\r\n")) {
                    if (line.toLowerCase().startsWith("content-length:")) {
                        len = Integer.parseInt(line.substring(15).trim());
                    }
                }
                requests.add(head + new String(in.readNBytes(len), StandardCharsets.UTF_8));
                byte[] answer = answers.take();
                if (answer == CLOSE) {
                    return;
                }
                s.getOutputStream().write(answer);
            }
        } catch (IOException | InterruptedException e) {
            // the client went away
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            b.write(c);
            if (b.size() >= 4 && b.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                return b.toString(StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    private HttpClient client(int timeoutMillis) {
        return new HttpClient("127.0.0.1", server.getLocalPort(), "/base/", null, "application/json",
                Map.of("Authorization", "Splunk t"), timeoutMillis, 1024);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void sendsHeaderAndBodyAndReadsAContentLengthAnswer() throws Exception {
        answers.add(ascii("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"));
        try (HttpClient c = client(5000)) {
            byte[] body = ascii("xx{\"a\":1}yy");
            HttpClient.Response r = c.post("/p?q=1", body, 2, 7, true);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("{}");
            assertThat(r.contentType()).isEqualTo("application/json");
            assertThat(r.retryAfterMillis()).isEqualTo(-1);
        }
        assertThat(requests).singleElement().asString()
                .startsWith("POST /base/p?q=1 HTTP/1.1\r\nHost: 127.0.0.1:" + server.getLocalPort() + "\r\n")
                .contains("Content-Type: application/json\r\nContent-Length: 7\r\nContent-Encoding: gzip\r\n")
                .contains("Authorization: Splunk t\r\n").endsWith("\r\n\r\n{\"a\":1}");
    }

    @Test
    void readsChunkedAndGzippedAnswersKeepingAtMostTheLimit() throws Exception {
        answers.add(ascii("HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\nRetry-After: 7\r\n\r\n"
                + "3;ext\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n"));
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(gz)) {
            z.write(new byte[5000]);
        }
        byte[] head = ascii("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + gz.size() + "\r\n\r\n");
        byte[] gzAnswer = new byte[head.length + gz.size()];
        System.arraycopy(head, 0, gzAnswer, 0, head.length);
        System.arraycopy(gz.toByteArray(), 0, gzAnswer, head.length, gz.size());
        answers.add(gzAnswer);
        try (HttpClient c = client(5000)) {
            HttpClient.Response chunked = c.get("/one");
            assertThat(chunked.status()).isEqualTo(503);
            assertThat(chunked.text()).isEqualTo("abcde");
            assertThat(chunked.retryAfterMillis()).isEqualTo(7000);
            HttpClient.Response inflated = c.get("/two"); // same connection: the chunked answer was read to its end
            assertThat(inflated.body()).hasSize(1024).containsOnly(0);
        }
        assertThat(requests).hasSize(2);
    }

    @Test
    void aPooledConnectionTheServerClosedIsReplacedAtOnce() throws Exception {
        answers.add(ascii("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
        answers.add(CLOSE); // the next request on that connection finds it closed, as an idle keep-alive one
        answers.add(ascii("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"));
        try (HttpClient c = client(5000)) {
            assertThat(c.get("/a").status()).isEqualTo(200);
            assertThat(c.get("/b").status()).isEqualTo(201);
        }
        assertThat(requests).hasSize(3);
    }

    @Test
    void noAnswerWithinTheTimeoutFailsNamingTheServerAndIsNotSentAgain() throws Exception {
        try (HttpClient c = client(200)) {
            assertThatThrownBy(() -> c.get("/slow")).isInstanceOf(SocketTimeoutException.class)
                    .hasMessage("no answer from 127.0.0.1:" + server.getLocalPort() + " within 200 ms");
        }
        assertThat(requests).hasSize(1);
    }

    @Test
    void retryAfterIsSecondsOrAnHttpDate() {
        assertThat(HttpClient.retryAfterMillis(" 3 ")).isEqualTo(3000);
        assertThat(HttpClient.retryAfterMillis("-5")).isZero();
        assertThat(HttpClient.retryAfterMillis("soon")).isEqualTo(-1);
        assertThat(HttpClient.retryAfterMillis(null)).isEqualTo(-1);
        String inAMinute = ZonedDateTime.now().plusSeconds(60).format(DateTimeFormatter.RFC_1123_DATE_TIME);
        assertThat(HttpClient.retryAfterMillis(inAMinute)).isBetween(55_000L, 60_000L);
    }
}
