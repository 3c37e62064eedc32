package io.sluice.io.socket;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SocketConsumerTest {
    @TempDir
    Path dir;

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void send(int port, byte[] data) throws Exception {
        try (Socket s = connect(port)) {
            OutputStream out = s.getOutputStream();
            out.write(data);
            out.flush();
        }
    }

    /** The consumer binds on its own thread: retry until it listens. */
    private static Socket connect(int port) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                return new Socket("127.0.0.1", port);
            } catch (java.net.ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(10);
            }
        }
    }

    @Test
    void ndjsonOverTcpArrivesLineByLineInOrder() throws Exception {
        int port = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(
                "In:\n  Type: consumer.Socket\n  Address: tcp://127.0.0.1:" + port + "\n  Format: ndjson\n  Streams: s\n"
                        + "Out:\n  Type: test.Collect\n  Streams: s\n").start()) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < 20_000; i++) {
                b.append("{\"n\":").append(i).append(",\"pad\":\"").append("x".repeat(i % 300)).append("\"}\n");
                if (i % 1000 == 0) {
                    b.append("\n");
                }
            }
            send(port, b.toString().getBytes(StandardCharsets.UTF_8));
            p.await("20000 lines", () -> p.collect("Out").size() >= 20_000);
            List<String> got = p.payloads("Out");
            assertThat(got).hasSize(20_000);
            for (int i = 0; i < got.size(); i += 997) {
                assertThat(got.get(i)).startsWith("{\"n\":" + i + ",");
            }
        }
    }

    @Test
    void aGarbagePeerThatHangsUpMidLineCrashesNothingAndLosesNothing() throws Exception {
        int port = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(
                "In:\n  Type: consumer.Socket\n  Address: 127.0.0.1:" + port + "\n  MaxLineSize: 64\n  Streams: s\n"
                        + "Out:\n  Type: test.Collect\n  Streams: s\n").start()) {
            byte[] garbage = new byte[1000];
            new java.util.Random(7).nextBytes(garbage);
            for (int i = 0; i < garbage.length; i++) {
                if (garbage[i] == '\n') {
                    garbage[i] = 'n';
                }
            }
            ByteBuffer all = ByteBuffer.allocate(2000);
            all.put("before\n".getBytes(StandardCharsets.UTF_8)).put(garbage).put((byte) '\n');
            all.put(new byte[] {(byte) 0xC3, (byte) 0x28, 'x', '\n'}); // invalid UTF-8 passes as bytes
            all.put("half a li".getBytes(StandardCharsets.UTF_8));
            send(port, java.util.Arrays.copyOf(all.array(), all.position()));
            p.await("3 lines and the partial one", () -> p.collect("Out").size() >= 4);
            List<String> got = p.payloads("Out");
            assertThat(got.get(0)).isEqualTo("before");
            assertThat(p.captured("Out").get(1).fields()).containsEntry("truncated", "true");
            assertThat(got.get(2).getBytes(StandardCharsets.ISO_8859_1)).hasSize(3);
            assertThat(got.get(3)).isEqualTo("half a li");
            // The listener is still there for the next client.
            send(port, "still up\n".getBytes(StandardCharsets.UTF_8));
            p.await("the next client's line", () -> p.payloads("Out").contains("still up"));
        }
    }

    @Test
    void syslogOverTcpWithOctetCountingAndOverUdp() throws Exception {
        int tcp = freePort();
        int udp = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(
                "Tcp:\n  Type: consumer.Syslogd\n  Address: tcp://127.0.0.1:" + tcp + "\n  Format: RFC6587\n  SetMetadata: true\n  Streams: s\n"
                        + "Udp:\n  Type: consumer.Socket\n  Address: udp://127.0.0.1:" + udp + "\n  Format: syslog\n  Streams: s\n"
                        + "Out:\n  Type: test.Collect\n  Streams: s\n").start()) {
            String m1 = "<34>1 2003-10-11T22:14:15.003Z host su - ID47 - first\nmessage";
            String m2 = "<13>1 2003-10-11T22:14:16Z host app 42 - - second";
            byte[] framed = (m1.getBytes(StandardCharsets.UTF_8).length + " " + m1 + m2.length() + " " + m2)
                    .getBytes(StandardCharsets.UTF_8);
            send(tcp, framed);
            p.await("two octet-counted messages", () -> p.collect("Out").size() >= 2);
            try (DatagramChannel ch = DatagramChannel.open()) {
                byte[] d = "<34>Oct 11 22:14:15 mymachine su: over udp".getBytes(StandardCharsets.UTF_8);
                PipelineHarness.await("a datagram to arrive", 10_000, () -> {
                    try {
                        ch.send(ByteBuffer.wrap(d), new InetSocketAddress("127.0.0.1", udp));
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    return p.collect("Out").size() >= 3;
                });
            }
            List<String> got = p.payloads("Out");
            assertThat(got.subList(0, 3)).containsExactly("first\nmessage", "second", "over udp");
            assertThat(p.captured("Out").get(1).fields()).containsEntry("app_name", "app").containsEntry("proc_id", "42");
            assertThat(p.captured("Out").get(2).fields()).containsEntry("tag", "su").containsEntry("hostname", "mymachine");
        }
    }

    @Test
    void unixSocketAndProducerSocketReconnectingToALateServer() throws Exception {
        Path sock = dir.resolve("in.sock");
        int late = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(
                "Unix:\n  Type: consumer.Socket\n  Address: unix://" + sock + "\n  Streams: u\n"
                        + "Out:\n  Type: test.Collect\n  Streams: u\n"
                        + "Gen:\n  Type: consumer.Profiler\n  Runs: 50\n  Batches: 1\n  Message: \"gen %d\"\n  DelayMs: 0\n  KeepRunning: true\n  Streams: g\n"
                        + "Send:\n  Type: producer.Socket\n  Address: 127.0.0.1:" + late + "\n  ReconnectMaxMs: 50\n  Streams: g\n").start()) {
            // The socket file appears at bind, a moment before listen: retry the connect until it is accepted.
            PipelineHarness.await("the unix socket accepting", 10_000, () -> {
                try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    ch.connect(UnixDomainSocketAddress.of(sock));
                    ch.write(ByteBuffer.wrap("via unix\n".getBytes(StandardCharsets.UTF_8)));
                    return true;
                } catch (java.io.IOException notYet) {
                    return false;
                }
            });
            p.await("the unix line", () -> p.payloads("Out").contains("via unix"));
            // producer.Socket has been retrying since start; the server appears only once it has failed.
            p.await("a failed attempt", () -> p.logText().contains("reconnecting with backoff"));
            List<String> received = new ArrayList<>();
            try (ServerSocket server = new ServerSocket()) {
                server.bind(new InetSocketAddress("127.0.0.1", late));
                try (Socket s = server.accept()) {
                    java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                    for (int i = 0; i < 50; i++) {
                        received.add(r.readLine());
                    }
                }
            }
            assertThat(received).hasSize(50).allMatch(l -> l.startsWith("gen "));
        }
    }
}
