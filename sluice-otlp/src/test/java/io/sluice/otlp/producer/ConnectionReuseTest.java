package io.sluice.otlp.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.PipelineHarness;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Servers that close connections on their own (idle keep-alive, GOAWAY at a connection age) cost no delivery. */
@Timeout(60)
class ConnectionReuseTest {
    @Test
    void grpcServerThatSendsGoawayEveryHundredMillisecondsLosesNoRequest() throws Exception {
        try (GrpcReceiver r = new GrpcReceiver(null, 100)) {
            Map<String, Object> s = new HashMap<>();
            s.put("Endpoint", "127.0.0.1:" + r.port());
            OtlpProducer p = Support.producer(s, PipelineHarness.quietLog());
            try {
                int sent = 0;
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
                while (System.nanoTime() < end) { // several connection ages, no pause between requests
                    p.deliver(GrpcExportTest.oneLog());
                    sent++;
                }
                assertThat(r.logRecords()).isEqualTo(sent);
            } finally {
                p.close();
            }
        }
    }

    @Test
    void httpServerThatClosesEachConnectionAfterItsAnswer() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> serveOnePerConnection(server, requests));
            t.setDaemon(true);
            t.start();
            Map<String, Object> s = new HashMap<>();
            s.put("Protocol", "http/protobuf");
            s.put("Endpoint", "http://127.0.0.1:" + server.getLocalPort());
            OtlpProducer p = Support.producer(s, PipelineHarness.quietLog());
            try {
                for (int i = 0; i < 20; i++) {
                    p.deliver(GrpcExportTest.oneLog());
                }
                assertThat(requests.get()).isEqualTo(20);
            } finally {
                p.close();
            }
        }
    }

    /** Answers 200 (keep-alive, as far as the headers say) and then closes the connection. */
    private static void serveOnePerConnection(ServerSocket server, AtomicInteger requests) {
        while (!server.isClosed()) {
            try (Socket c = server.accept()) {
                InputStream in = c.getInputStream();
                String head = readHead(in);
                int len = 0;
                for (String line : head.split("\r\n")) {
                    if (line.toLowerCase().startsWith("content-length:")) {
                        len = Integer.parseInt(line.substring(15).trim());
                    }
                }
                in.readNBytes(len);
                requests.incrementAndGet();
                OutputStream out = c.getOutputStream();
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (Exception e) {
                // the test ends by closing the server socket
            }
        }
    }

    private static String readHead(InputStream in) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int state = 0;
        int c;
        while (state < 4 && (c = in.read()) >= 0) {
            b.write(c);
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
