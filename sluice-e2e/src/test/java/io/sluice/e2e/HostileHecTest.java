package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * consumer.HEC against hostile clients, at the launcher's heap: huge requests, many large ones at once, a
 * downstream that is down, slow and idle connections, forged record boundaries. Each attack is survived (see
 * {@link HostileTest#assertSurvived}), refused with Splunk's answer and counted, and nothing acknowledged is lost.
 */
@Timeout(600)
class HostileHecTest extends HostileTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    /** One thread per concurrent client: the common pool has a single thread on two cores. */
    private static final java.util.concurrent.ExecutorService CLIENTS = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "hec-client");
        t.setDaemon(true);
        return t;
    });

    private static String config(int port, Path out, String extra) {
        return "\"In\":\n    Type: \"consumer.HEC\"\n    Address: \"127.0.0.1:" + port + "\"\n    Streams: \"s\"\n" + extra
                + "\"Out\":\n    Type: \"producer.File\"\n    Streams: \"s\"\n    File: \"" + out + "\"\n";
    }

    private static HttpResponse<String> post(int port, byte[] body) throws Exception {
        return HTTP.send(request(port, body), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest request(int port, byte[] body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/services/collector/event"))
                .timeout(Duration.ofSeconds(120)).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    }

    /** {@code n} events {@code {"event":"<tag> <filler>"}} of about {@code size} bytes each, concatenated. */
    private static byte[] events(String tag, int n, int size) {
        String filler = "x".repeat(Math.max(0, size - tag.length() - 14));
        String one = "{\"event\":\"" + tag + " " + filler + "\"}";
        return one.repeat(n).getBytes(StandardCharsets.UTF_8);
    }

    /** A large POST on its own connection, reading an answer sent before the body was taken. */
    private static RawHttp.Answer postRaw(int port, byte[] body) {
        try {
            return RawHttp.post(port, "/services/collector/event", body);
        } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
        }
    }

    /** A valid event with a unique marker is delivered: the input still works after the attack. */
    private static void assertStillDelivers(SluiceProcess p, int port, Path out, String marker) throws Exception {
        HttpResponse<String> r = post(port, ("{\"event\":\"" + marker + "\"}").getBytes(StandardCharsets.UTF_8));
        assertThat(r.statusCode()).as("a valid event after the attack: " + r.body()).isEqualTo(200);
        awaitLine(out, marker, 60);
    }

    @Test
    void aRequestOfAMillionTinyEventsIsRefusedUpFront() throws Exception {
        int port = E2e.freePort();
        Path out = dir.resolve("out.ndjson");
        SluiceProcess p = startAsLaunched("hec-million", config(port, out, ""), port);
        byte[] body = "{\"event\":\"t\"}".repeat(1_000_000).getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> r = post(port, body);
        System.out.printf("hec-million: %d MB request of 1M events answered %d %s%n", body.length >> 20, r.statusCode(), r.body());
        assertThat(r.statusCode()).as("a request of more events than the cap").isEqualTo(413);
        assertThat(rejected(p, "In", "too_large")).isEqualTo(1);
        assertStillDelivers(p, port, out, "after-million");
        assertThat(countLines(out, "\"t\"")).as("nothing of the refused request was written").isZero();
        assertSurvived(p, "a 12 MB request of 1M events");
        assertThat(p.stop()).isZero();
    }

    @Test
    void legalThirtyMegabyteBodiesFromSixClientsTwiceAreTakenOrRefusedBusy() throws Exception {
        int port = E2e.freePort();
        Path out = dir.resolve("out.ndjson");
        SluiceProcess p = startAsLaunched("hec-30mib", config(port, out, ""), port);
        int perRequest = 7_500;
        long accepted = 0;
        long busy = 0;
        for (int round = 0; round < 2; round++) {
            List<CompletableFuture<RawHttp.Answer>> answers = new ArrayList<>();
            for (int c = 0; c < 6; c++) {
                byte[] body = events("r" + round + "c" + c + "z", perRequest, 30 * 1024 * 1024 / perRequest);
                answers.add(CompletableFuture.supplyAsync(() -> postRaw(port, body), CLIENTS));
            }
            for (CompletableFuture<RawHttp.Answer> a : answers) {
                RawHttp.Answer r = a.join();
                if (r.status() == 200) {
                    accepted++;
                } else {
                    assertThat(r.status()).as("refused only as busy: " + r.body()).isEqualTo(503);
                    assertThat(r.body()).contains("\"code\":9");
                    assertThat(r.headers()).containsKey("retry-after");
                    busy++;
                }
            }
        }
        System.out.printf("hec-30mib: 12 requests of 30 MiB: %d taken, %d answered busy%n", accepted, busy);
        assertThat(accepted).as("some requests are taken").isPositive();
        assertThat(rejected(p, "In", "busy")).isEqualTo(busy);
        long expected = accepted * perRequest;
        Await.until("every taken event written", 180, () -> countLines(out, "z x") >= expected);
        assertThat(countLines(out, "z x")).as("events written: exactly those of the taken requests").isEqualTo(expected);
        assertStillDelivers(p, port, out, "after-30mib");
        assertSurvived(p, "6 clients posting 30 MiB twice");
        assertThat(p.stop()).isZero();
    }

    @Test
    void slowAndIdleConnectionsAreClosedAndCounted() throws Exception {
        int port = E2e.freePort();
        Path out = dir.resolve("out.ndjson");
        SluiceProcess p = startAsLaunched("hec-slow", config(port, out, "    IdleTimeoutMs: 3000\n"), port);
        long threadsBefore = p.threads();
        // Slow first, so that all 1,000 are within MaxConnections (1,024): each is a timeout to count. Connections
        // that never send a byte are idle keep-alive connections to the server: closed after the timeout, not counted.
        List<Socket> slow = idleConnections(port, 1000,
                "POST /services/collector/event HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"ev".getBytes(StandardCharsets.US_ASCII));
        // Connect completes in the kernel before the server accepts: wait until it took every slow one.
        Await.until("1,000 slow connections accepted", 30, () -> p.metric("sluice_connections", "In") == 1000);
        List<Socket> idle = idleConnections(port, 1000, new byte[0]);
        assertThat(p.threads() - threadsBefore).as("threads added by 2,000 connections").isLessThan(20);
        // Beyond MaxConnections (1,024 by default) a connection is told the server is busy, and counted.
        HttpResponse<String> beyond = post(port, "{\"event\":\"beyond-the-limit\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(beyond.statusCode()).as("a connection beyond the limit: " + beyond.body()).isEqualTo(503);
        // The server refuses the backlog of connections as it accepts them: poll until it has gone through them.
        Await.until("connections beyond the limit refused and counted", 30, () -> rejected(p, "In", "busy") >= 2001 - 1024);
        for (Socket s : slow.subList(0, 20)) {
            assertThat(closedByServer(s, 30)).as("a slowloris request closed after the idle timeout").isTrue();
        }
        for (Socket s : idle) {
            assertThat(closedByServer(s, 30)).as("an idle connection closed (beyond the limit, or after the idle timeout)").isTrue();
        }
        Await.until("timeouts counted", 30, () -> rejected(p, "In", "timeout") >= 1000);
        Await.until("a valid event taken once the slow connections were closed", 60, () -> post(port,
                "{\"event\":\"after-slowloris\"}".getBytes(StandardCharsets.UTF_8)).statusCode() == 200);
        awaitLine(out, "after-slowloris", 60);
        assertSurvived(p, "2,000 idle and slowloris connections");
        assertThat(p.stop()).isZero();
    }

    @Test
    void anEventCannotForgeARecordBoundaryInTheFileOutput() throws Exception {
        int port = E2e.freePort();
        Path out = dir.resolve("out.ndjson");
        SluiceProcess p = startAsLaunched("hec-forge", config(port, out, ""), port);
        String body = "{\"event\":\"a\\n{\\\"forged\\\":true}\"}{\"event\":\"b\\u0000c\\r\\nd\"}{\"event\":{\"k\":\"x\\ny\"}}"
                + "{\"event\":\"last\"}";
        HttpResponse<String> r = post(port, body.getBytes(StandardCharsets.UTF_8));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        awaitLine(out, "last", 60);
        byte[] written = Files.readAllBytes(out);
        List<String> lines = lines(out);
        assertThat(lines).as("one line per event: " + lines).hasSize(4);
        assertThat(lines).noneMatch(l -> l.startsWith("{\"forged\""));
        for (byte b : written) {
            assertThat(b == '\n' || (b & 0xff) >= 0x20).as("only the record separator is a control byte").isTrue();
        }
        assertSurvived(p, "forged newlines and NUL bytes");
        assertThat(p.stop()).isZero();
    }

    @Test
    void withTheDownstreamDownLargeRequestsAreHeldBackAndNothingTakenIsLost() throws Exception {
        int front = E2e.freePort();
        int hecPort = E2e.freePort();
        Path out = dir.resolve("received.ndjson");
        String configA = "\"In\":\n    Type: \"consumer.HEC\"\n    Address: \"127.0.0.1:" + front + "\"\n    Streams: \"events\"\n"
                + E2e.hecProducer(hecPort, "");
        SluiceProcess a = startAsLaunched("hec-down-A", configA, front);
        int perRequest = 8_000;
        List<CompletableFuture<RawHttp.Answer>> answers = new ArrayList<>();
        for (int c = 0; c < 12; c++) {
            byte[] body = events("c" + c + "q", perRequest, 16 * 1024 * 1024 / perRequest);
            answers.add(CompletableFuture.supplyAsync(() -> postRaw(front, body), CLIENTS));
        }
        // Nothing can be delivered: each request is taken (and then held until delivered) or refused busy.
        Await.until("requests beyond the budget answered busy", 120, () -> answers.stream().filter(CompletableFuture::isDone)
                .map(CompletableFuture::join).anyMatch(r -> r.status() == 503));
        assertSurvived(a, "12 clients posting 16 MB with the downstream down");
        SluiceProcess b = start("hec-down-B", E2e.receiver(hecPort, out), hecPort);
        long taken = 0;
        for (CompletableFuture<RawHttp.Answer> f : answers) {
            RawHttp.Answer r = f.get(300, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(r.status()).as(r.body()).isIn(200, 503);
            if (r.status() == 200) {
                taken++;
            }
        }
        long expected = taken * perRequest;
        System.out.printf("hec-down: %d of 12 requests taken while the receiver was down%n", taken);
        Await.until("every taken event at the receiver", 300, () -> countLines(out, "q x") >= expected);
        assertThat(countLines(out, "q x")).isEqualTo(expected);
        HttpResponse<String> after = post(front, "{\"event\":\"after-down\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(after.statusCode()).as("a new request is answered, not left hanging").isEqualTo(200);
        awaitLine(out, "after-down", 60);
        assertSurvived(a, "the receiver coming back");
        assertThat(a.stop()).isZero();
        assertThat(b.stop()).isZero();
    }
}
