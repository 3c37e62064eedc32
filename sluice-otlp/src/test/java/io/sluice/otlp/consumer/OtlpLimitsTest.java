package io.sluice.otlp.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.pipeline.Rejection;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.PipelineHarness;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The listener's limits and settings: the connection cap, half-sent requests and idle connections timing out,
 * pipelined HTTP requests answered in order, an address in use failing the start, and settings that cannot work
 * refused before anything starts.
 */
@Timeout(60)
class OtlpLimitsTest {
    private Harness h;

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    private static byte[] post(byte[] body) {
        byte[] head = ("POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: "
                + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    /** Reads one response's status (and skips its Content-Length body); -1 at end of stream. */
    private static int readStatus(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int c;
        int state = 0;
        while (state < 4 && (c = in.read()) >= 0) {
            head.write(c);
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        if (h.isEmpty()) {
            return -1;
        }
        for (String line : h.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                in.readNBytes(Integer.parseInt(line.substring(15).trim()));
            }
        }
        return Integer.parseInt(h.substring(9, 12));
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        h = new Harness("lim-pipelined", Map.of());
        try (Socket s = new Socket("127.0.0.1", h.httpPort)) {
            s.setSoTimeout(20_000);
            ByteArrayOutputStream both = new ByteArrayOutputStream();
            both.write(post(Requests.logsBytes(2)));
            both.write(post(Requests.logsBytes(1)));
            s.getOutputStream().write(both.toByteArray());
            assertThat(readStatus(s.getInputStream())).isEqualTo(200);
            assertThat(readStatus(s.getInputStream())).isEqualTo(200);
        }
        assertThat(h.received()).extracting(Captured::payload).containsExactly("line 0", "line 1", "line 0");
    }

    @Test
    void connectionsBeyondTheCapAreRefused() throws Exception {
        h = new Harness("lim-conns", Map.of("MaxConnections", 1));
        try (Socket first = new Socket("127.0.0.1", h.httpPort)) {
            PipelineHarness.await("the first connection", 10_000, () -> h.stats().connections() == 1);
            try (Socket second = new Socket("127.0.0.1", h.httpPort)) {
                second.setSoTimeout(20_000);
                assertThat(readStatus(second.getInputStream())).isEqualTo(503);
                assertThat(second.getInputStream().read()).isEqualTo(-1);
            }
            try (Socket third = new Socket("127.0.0.1", h.grpcPort)) {
                third.setSoTimeout(20_000);
                assertThat(third.getInputStream().read()).isEqualTo(-1);
            }
            assertThat(h.stats().rejected(Rejection.BUSY)).isEqualTo(2);
        }
    }

    @Test
    void halfSentRequestsAndIdleConnectionsAreClosed() throws Exception {
        h = new Harness("lim-idle", Map.of("IdleTimeoutMs", 300));
        try (Socket s = new Socket("127.0.0.1", h.httpPort)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: 100"
                    + "\r\n\r\n0123456789").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
        assertThat(h.stats().rejected(Rejection.TIMEOUT)).isEqualTo(1);
        for (int port : new int[] {h.httpPort, h.grpcPort}) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(20_000);
                s.getInputStream().readAllBytes(); // idle: closed (gRPC's SETTINGS first), else a read timeout fails
            }
        }
        h.awaitBudgetEmpty();
    }

    @Test
    void anAddressInUseFailsTheStart() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            PipelineHarness p = PipelineHarness.builder().plugin("in", "consumer.OTLP",
                    Map.of("Address", "127.0.0.1:" + taken.getLocalPort(), "HTTPAddress", "", "Streams", "otlp"))
                    .plugin("out", "test.Collect", Map.of("Streams", "otlp")).log(PipelineHarness.stderrLog()).build();
            assertThatThrownBy(p::start).hasStackTraceContaining("127.0.0.1:" + taken.getLocalPort());
            p.close();
        }
    }

    private static void assertRefused(Map<String, Object> settings, String message) {
        Map<String, Object> in = new HashMap<>(settings);
        in.put("Streams", "otlp");
        assertThatThrownBy(() -> PipelineHarness.builder().plugin("in", "consumer.OTLP", in)
                .plugin("out", "test.Collect", Map.of("Streams", "otlp")).log(PipelineHarness.stderrLog()).build())
                .hasMessageContaining(message);
    }

    @Test
    void settingsThatCannotWorkAreRefused() {
        assertRefused(Map.of("Address", "", "HTTPAddress", ""), "nothing to listen on");
        assertRefused(Map.of("Address", "127.0.0.1"), "expected host:port");
        assertRefused(Map.of("TLS/CertFile", "/x.crt"), "set TLS/KeyFile too");
        assertRefused(Map.of("TLS/ClientAuth", "maybe"), "expected one of none, request, require");
        assertRefused(Map.of("TLS/ClientAuth", "require"), "need TLS");
        assertRefused(Map.of("MaxRequestSize", 0), "at least 1");
        assertRefused(Map.of("TLS/CertFile", "/no/such.crt", "TLS/KeyFile", "/no/such.key"), "cannot load the TLS files");
    }
}
