package io.sluice.hec.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.pipeline.StartException;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.hec.Support;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * consumer.HEC under pressure: the memory budget is reserved before bodies are read, inflated or parsed, every
 * limit refuses with Splunk's answer and is counted, the budget returns to zero once everything is delivered,
 * half-sent requests time out, and failures answer 503, never success.
 */
@Timeout(60)
class LimitsTest {
    private static final String EVENT_PATH = "/services/collector/event";
    private static final String BUSY = "{\"text\":\"Server is busy\",\"code\":9}";
    private static final String SUCCESS = "{\"text\":\"Success\",\"code\":0}";
    private static final String TOO_LARGE = "{\"text\":\"Content-Length of request is too large\",\"code\":27}";
    private static final int BUDGET = 1024 * 1024;

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private PipelineHarness pipe;
    private MemoryBudget memory;
    private int port;
    private String capture;

    private void start(String captureId, Map<String, Object> settings, long budget) throws Exception {
        capture = captureId;
        port = PipelineHarness.freePort();
        memory = new MemoryBudget(budget);
        // No probing connection (it would count against MaxConnections): open() binds before start returns.
        pipe = Support.pipeline(port, captureId, settings, memory);
        pipe.start();
    }

    @AfterEach
    void stop() {
        if (capture != null && pipe != null) {
            pipe.collect(capture).open();
        }
        if (pipe != null) {
            pipe.close();
        }
        threads.shutdownNow();
    }

    private PluginStats stats() {
        return pipe.stats("in");
    }

    /** n events whose payloads are {@code size} bytes each. */
    private static byte[] events(int n, int size) {
        StringBuilder b = new StringBuilder();
        String payload = "x".repeat(size);
        for (int i = 0; i < n; i++) {
            b.append("{\"event\":\"").append(payload).append("\"}");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private Support.Reply post(byte[] body, String... headers) throws IOException {
        return Support.exchange(port, Support.post(EVENT_PATH, body, headers));
    }

    private CompletableFuture<Support.Reply> postAsync(byte[] body) {
        byte[] request = Support.post(EVENT_PATH, body);
        return CompletableFuture.supplyAsync(() -> {
            try {
                return Support.exchange(port, request);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, threads);
    }

    /** Writes a head announcing {@code contentLength} bytes and only {@code sent} of them, then reads the answer. */
    private Support.Reply announce(long contentLength, int sent, String... headers) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            StringBuilder h = new StringBuilder("POST " + EVENT_PATH + " HTTP/1.1\r\nHost: x\r\n");
            for (String x : headers) {
                h.append(x).append("\r\n");
            }
            h.append("Content-Length: ").append(contentLength).append("\r\n\r\n");
            OutputStream out = s.getOutputStream();
            out.write(h.toString().getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[sent]);
            out.flush();
            return Support.read(s.getInputStream());
        }
    }

    private static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(z)) {
            g.write(data);
        }
        return z.toByteArray();
    }

    private void awaitBudgetEmpty() throws InterruptedException {
        PipelineHarness.await("the memory budget to be all returned (used " + memory + ")", 10_000, () -> memory.used() == 0);
    }

    @Test
    void aRequestLargerThanTheBudgetGets413AndIsCountedTooLarge() throws Exception {
        start("limits-large", Map.of(), BUDGET);
        Support.Reply r = announce(2L * BUDGET, 64 * 1024);
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.body()).isEqualTo(TOO_LARGE);
        assertThat(stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        assertThat(memory.used()).isZero();
        // the receiver still takes what fits
        assertThat(post(events(3, 100)).status()).isEqualTo(200);
        PipelineHarness.await("3 events", 10_000, () -> pipe.captured("limits-large").size() == 3);
        awaitBudgetEmpty();
    }

    @Test
    void tinyEventsAreChargedTheirOverheadSoManyOfThemAreTooLarge() throws Exception {
        start("limits-tiny", Map.of("MaxEventsPerRequest", 1_000_000), BUDGET);
        // 20,000 events of 13 bytes: 260 kB of body, but 20,000 x MESSAGE_OVERHEAD = 3.2 MB once parsed
        byte[] body = "{\"event\":\"t\"}".repeat(20_000).getBytes(StandardCharsets.UTF_8);
        Support.Reply r = post(body);
        assertThat(r.status()).isEqualTo(413);
        assertThat(stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        assertThat(pipe.captured("limits-tiny")).isEmpty();
        awaitBudgetEmpty();
    }

    @Test
    void requestsBeyondTheBudgetGet503WithRetryAfterAndSucceedOnceThePipelineDrained() throws Exception {
        start("limits-busy", Map.of(), BUDGET);
        pipe.collect("limits-busy").hold();
        // 40 events of 10 kB: ~400 kB that need ~880 kB while parsed and hold ~407 kB until delivered
        byte[] body = events(40, 10_000);
        CompletableFuture<Support.Reply> first = postAsync(body);
        PipelineHarness.await("the first request's events to be published", 10_000, () -> stats().in() == 40);
        assertThat(memory.used()).isPositive();

        Support.Reply busy = post(body);
        assertThat(busy.status()).isEqualTo(503);
        assertThat(busy.body()).isEqualTo(BUSY);
        assertThat(busy.header("Retry-After")).isNotNull();
        assertThat(stats().rejected(Rejection.BUSY)).isEqualTo(1);
        assertThat(first).as("no answer before delivery").isNotDone();

        pipe.collect("limits-busy").open();
        assertThat(first.get().status()).isEqualTo(200);
        assertThat(first.get().body()).isEqualTo(SUCCESS);
        awaitBudgetEmpty();

        assertThat(post(body).body()).isEqualTo(SUCCESS);
        assertThat(pipe.captured("limits-busy")).hasSize(80);
        awaitBudgetEmpty();
    }

    @Test
    void moreEventsThanMaxEventsPerRequestAreRefused() throws Exception {
        start("limits-count", Map.of("MaxEventsPerRequest", 10), BUDGET);
        Support.Reply r = post(events(11, 5));
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.body()).isEqualTo("{\"text\":\"Too many events in request\",\"code\":27}");
        assertThat(stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        assertThat(post(events(10, 5)).body()).isEqualTo(SUCCESS);
        assertThat(pipe.captured("limits-count")).hasSize(10);
        awaitBudgetEmpty();
    }

    @Test
    void aGzipBodyInflatingBeyondMaxBodySizeIsRefused() throws Exception {
        // an unlimited budget: only MaxBodySize can refuse
        start("limits-gzip-cap", Map.of("MaxBodySize", 256 * 1024), MemoryBudget.unlimited().limit());
        // valid events, tiny once compressed: 8 MB inflated
        Support.Reply r = post(gzip(events(8_000, 1_000)), "Content-Encoding: gzip");
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.body()).isEqualTo(TOO_LARGE);
        assertThat(stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        assertThat(pipe.captured("limits-gzip-cap")).isEmpty();
        awaitBudgetEmpty();
        assertThat(post(gzip(events(100, 1_000)), "Content-Encoding: gzip").body()).isEqualTo(SUCCESS);
        assertThat(pipe.captured("limits-gzip-cap")).hasSize(100);
        awaitBudgetEmpty();
    }

    @Test
    void aGzipBodyInflatingBeyondTheBudgetIsRefused() throws Exception {
        // MaxBodySize 32 MiB: only the budget can refuse 1.5 MB of inflated events
        start("limits-gzip-budget", Map.of(), BUDGET);
        byte[] small = gzip(events(1_500, 1_000));
        assertThat(small.length).isLessThan(64 * 1024);
        Support.Reply r = post(small, "Content-Encoding: gzip");
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.body()).isEqualTo(TOO_LARGE);
        assertThat(stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        assertThat(pipe.captured("limits-gzip-budget")).isEmpty();
        awaitBudgetEmpty();
        assertThat(post(gzip(events(100, 1_000)), "Content-Encoding: gzip").body()).isEqualTo(SUCCESS);
        assertThat(pipe.captured("limits-gzip-budget")).hasSize(100);
        awaitBudgetEmpty();
    }

    @Test
    void aGzipBodyWhoseTrailerLiesIsStillReservedStepByStep() throws Exception {
        start("limits-gzip-lie", Map.of(), BUDGET);
        byte[] z = gzip(events(1_500, 1_000));
        z[z.length - 4] = 10; // ISIZE: claims 10 bytes
        z[z.length - 3] = 0;
        z[z.length - 2] = 0;
        z[z.length - 1] = 0;
        Support.Reply r = post(z, "Content-Encoding: gzip");
        assertThat(r.status()).isEqualTo(413);
        assertThat(stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        awaitBudgetEmpty();
    }

    @Test
    void aHalfSentRequestIsClosedAfterTheTimeoutAndCounted() throws Exception {
        // long enough to see the reservation first even on a loaded machine
        start("limits-slow", Map.of("IdleTimeoutMs", 2000), BUDGET);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("POST " + EVENT_PATH + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
                    + "{\"event\":").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            PipelineHarness.await("the body to be reserved", 10_000, () -> memory.used() > 0);
            assertThat(readsEndOfStream(s.getInputStream())).as("closed by the server").isTrue();
        }
        PipelineHarness.await("the timeout to be counted", 10_000, () -> stats().rejected(Rejection.TIMEOUT) == 1);
        awaitBudgetEmpty();
    }

    @Test
    void aRequestHeadTrickledByteByByteIsClosedToo() throws Exception {
        start("limits-loris", Map.of("IdleTimeoutMs", 300), BUDGET);
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write(("POST " + EVENT_PATH + " HTTP/1.1\r\nHost: x\r\n").getBytes(StandardCharsets.US_ASCII));
            // Slowloris: a header line every 50 ms keeps the connection busy but the head never ends.
            long deadline = System.nanoTime() + 10_000_000_000L;
            boolean closed = false;
            for (int i = 0; System.nanoTime() < deadline && !closed; i++) {
                try {
                    out.write(("X-Slow-" + i + ": y\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    Thread.sleep(50);
                } catch (IOException e) {
                    closed = true;
                }
            }
            assertThat(closed).as("the server closed the trickling connection").isTrue();
        }
        assertThat(stats().rejected(Rejection.TIMEOUT)).isEqualTo(1);
    }

    private static boolean readsEndOfStream(InputStream in) {
        try {
            return in.read() < 0;
        } catch (IOException e) {
            return true; // reset
        }
    }

    @Test
    void aBatchThePipelineFailsIsAnswered503NotSuccess() throws Exception {
        start("limits-fail", Map.of(), BUDGET);
        pipe.collect("limits-fail").fail = true;
        Support.Reply r = post(events(5, 10));
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.body()).isEqualTo(BUSY);
        assertThat(r.header("Retry-After")).isNotNull();
        awaitBudgetEmpty();
        pipe.collect("limits-fail").fail = false;
        assertThat(post(events(5, 10)).body()).isEqualTo(SUCCESS);
        assertThat(pipe.captured("limits-fail")).hasSize(5);
        awaitBudgetEmpty();
    }

    @Test
    void aPortInUseFailsTheStartNamingTheAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int p = taken.getLocalPort();
            PipelineHarness p2 = Support.pipeline(p, "limits-port", Map.of(), MemoryBudget.unlimited());
            assertThatThrownBy(p2::start).isInstanceOf(StartException.class)
                    .hasMessageContaining("in: ")
                    .hasMessageContaining("127.0.0.1:" + p);
            assertThat(p2.pipeline().isReady()).isFalse();
        }
    }

    @Test
    void connectionsBeyondMaxConnectionsGet503AndAreCounted() throws Exception {
        start("limits-conns", Map.of("MaxConnections", 2), BUDGET);
        byte[] health = "GET /services/collector/health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        try (Socket a = new Socket("127.0.0.1", port); Socket b = new Socket("127.0.0.1", port)) {
            for (Socket s : new Socket[] {a, b}) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(health);
                assertThat(Support.read(s.getInputStream()).status()).isEqualTo(200);
            }
            assertThat(stats().connections()).isEqualTo(2);
            try (Socket c = new Socket("127.0.0.1", port)) {
                c.setSoTimeout(10_000);
                Support.Reply r = Support.read(c.getInputStream());
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.body()).isEqualTo(BUSY);
                assertThat(readsEndOfStream(c.getInputStream())).isTrue();
            }
            assertThat(stats().rejected(Rejection.BUSY)).isEqualTo(1);
            assertThat(stats().connections()).isEqualTo(2);
        }
        PipelineHarness.await("both connections to be counted closed", 10_000, () -> stats().connections() == 0);
    }

    @Test
    void expectContinueThenTheBody() throws Exception {
        start("limits-expect", Map.of(), BUDGET);
        byte[] body = events(2, 10);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST " + EVENT_PATH + " HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: "
                    + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(Support.read(s.getInputStream()).status()).isEqualTo(100);
            out.write(body);
            out.flush();
            assertThat(Support.read(s.getInputStream()).body()).isEqualTo(SUCCESS);
        }
        assertThat(pipe.captured("limits-expect")).hasSize(2);
        awaitBudgetEmpty();
    }

    @Test
    void aChunkedBodyIsReservedAsItArrives() throws Exception {
        start("limits-chunked", Map.of(), BUDGET);
        assertThat(chunked(events(10, 100)).body()).isEqualTo(SUCCESS);
        assertThat(pipe.captured("limits-chunked")).hasSize(10);
        awaitBudgetEmpty();
        // 700 kB with no Content-Length: refused once what arrived (and the events it would become) cannot fit
        Support.Reply r = chunked(events(700, 1_000));
        assertThat(r.status()).isEqualTo(413);
        assertThat(stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        assertThat(pipe.captured("limits-chunked")).hasSize(10);
        awaitBudgetEmpty();
    }

    /** Posts {@code body} in 16 kB chunks and reads the answer (which may come before the last chunk). */
    private Support.Reply chunked(byte[] body) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST " + EVENT_PATH + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            try {
                for (int off = 0; off < body.length; off += 16 * 1024) {
                    int n = Math.min(16 * 1024, body.length - off);
                    out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(body, off, n);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (IOException e) {
                // answered and closed early: read the answer below
            }
            return Support.read(s.getInputStream());
        }
    }
}
