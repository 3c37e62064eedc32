package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * "producer.Forward → consumer.Forward across processes, with acks and gzip, every event counted": process A
 * ({@code consumer.Socket} fed numbered NDJSON lines by the test → {@code producer.Forward}, RequireAck,
 * CompressedPackedForward) sends to process B ({@code consumer.Forward} → {@code producer.File}); the test counts
 * every number in B's file. Exactly once: no number missing, none twice, even when the acks of frames B accepted are
 * lost on the way back and A sends those frames again.
 */
@Timeout(120)
class ForwardRelayTest extends ProcessTest {
    private static final int EVENTS = 50_000;

    /** Process B: Forward in, each event's {@code message} field (A's NDJSON line) out as one line of the file. */
    private static String receiver(int forwardPort, Path out) {
        return "\"In\":\n"
                + "    Type: \"consumer.Forward\"\n"
                + "    Address: \"127.0.0.1:" + forwardPort + "\"\n"
                + "    PayloadKey: \"message\"\n"
                + "    Metadata: false\n"
                + "    Streams: \"events\"\n"
                + "\"Out\":\n"
                + "    Type: \"producer.File\"\n"
                + "    Streams: \"events\"\n"
                + "    File: \"" + out + "\"\n";
    }

    /** Process A: NDJSON lines from a TCP socket to producer.Forward (the line is sent as the record's message). */
    private static String sender(int socketPort, int serverPort, String extra) {
        return "\"In\":\n"
                + "    Type: \"consumer.Socket\"\n"
                + "    Address: \"tcp://127.0.0.1:" + socketPort + "\"\n"
                + "    Format: \"ndjson\"\n"
                + "    Streams: \"events\"\n"
                + "\"ToB\":\n"
                + "    Type: \"producer.Forward\"\n"
                + "    Streams: \"events\"\n"
                + "    Servers: [\"127.0.0.1:" + serverPort + "\"]\n"
                + "    Mode: \"CompressedPackedForward\"\n"
                + "    RequireAck: true\n"
                + "    MaxInFlight: 4\n"
                + "    Tag: \"e2e.relay\"\n"
                + "    Retry/BackoffMs: 50\n"
                + "    Retry/MaxBackoffMs: 500\n"
                + extra;
    }

    /** Writes events {@code {"n":i,"s":"r","p":"…"}} for i in [0, n) to A's socket. */
    private static void feed(int socketPort, int n) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", socketPort), 5000);
            OutputStream out = new BufferedOutputStream(s.getOutputStream(), 64 * 1024);
            String pad = "x".repeat(60);
            for (int i = 0; i < n; i++) {
                out.write(("{\"n\":" + i + ",\"s\":\"r\",\"p\":\"" + pad + "\"}\n").getBytes(StandardCharsets.UTF_8));
            }
            out.flush();
        }
    }

    private static void assertExactlyOnce(Ledger ledger) {
        System.out.printf("forward relay: %s%n", ledger);
        assertThat(ledger.unparsable()).as("lines that are not events").isZero();
        assertThat(ledger.hasAll('r', EVENTS)).as("missing: " + ledger.missing('r', EVENTS, 20)).isTrue();
        assertThat(ledger.distinct('r')).isEqualTo(EVENTS);
        assertThat(ledger.duplicates()).as("events written twice").isZero();
        assertThat(ledger.lines()).isEqualTo(EVENTS);
    }

    @Test
    void everyEventArrivesOnceAndUdpHeartbeatsSeeTheReceiverGo() throws Exception {
        int forwardPort = E2e.freePort();
        Path out = dir.resolve("relay-out.ndjson");
        SluiceProcess b = start("relay-B", receiver(forwardPort, out), forwardPort);
        int socketPort = E2e.freePort();
        SluiceProcess a = start("relay-A", sender(socketPort, forwardPort, "    HeartbeatType: \"udp\"\n"
                + "    HeartbeatIntervalMs: 100\n    HeartbeatTimeoutMs: 1500\n"), socketPort);
        Ledger ledger = new Ledger(out);
        long t0 = System.nanoTime();
        feed(socketPort, EVENTS);
        Await.until("every event in B's file", 60, () -> ledger.refresh().hasAll('r', EVENTS));
        System.out.printf("forward relay: %,d events through A and B in %d ms%n", EVENTS, (System.nanoTime() - t0) / 1_000_000);
        assertThat(a.metric("sluice_messages_out_total", "ToB")).as("delivered by A").isEqualTo(EVENTS);

        // B answers A's UDP heartbeats: with nothing left to send, A keeps B up well past HeartbeatTimeoutMs...
        assertThat(a.pluginReady("ToB")).isTrue();
        long until = System.nanoTime() + 2_500_000_000L;
        while (System.nanoTime() < until) {
            assertThat(a.pluginReady("ToB")).as("A's producer.Forward ready while B answers heartbeats").isTrue();
            Thread.sleep(100); // sampling period of the watch
        }
        // ...and marks it down once B is gone.
        assertThat(b.stop()).isZero();
        Await.until("A sees B down", 20, () -> !a.pluginReady("ToB"));
        // The log line reaches us through A's stderr reader, possibly after /ready already flipped: wait for it.
        String down = "ToB: server 127.0.0.1:" + forwardPort + " marked down";
        Await.until("A logs B marked down", 20, () -> a.lines().stream().anyMatch(l -> l.contains(down)));
        assertThat(a.stop()).isZero();
        assertExactlyOnce(ledger.refresh());
    }

    @Test
    void framesResentAfterTheirAcksWereLostAreNotWrittenTwice() throws Exception {
        int forwardPort = E2e.freePort();
        Path out = dir.resolve("lost-acks-out.ndjson");
        SluiceProcess b = start("lost-acks-B", receiver(forwardPort, out), forwardPort);
        AckEater proxy = open(new AckEater(forwardPort, 3));
        {
            int socketPort = E2e.freePort();
            SluiceProcess a = start("lost-acks-A", sender(socketPort, proxy.port(), ""), socketPort);
            Ledger ledger = new Ledger(out);
            feed(socketPort, EVENTS);
            Await.until("every event in B's file", 60, () -> ledger.refresh().hasAll('r', EVENTS));
            assertThat(proxy.acksEaten()).as("acks B sent that A never saw").isGreaterThanOrEqualTo(3);
            assertThat(proxy.connections.get()).as("A came back on a new connection").isGreaterThan(1);
            // A resent the frames whose acks it lost; B recognised their chunk ids.
            Await.until("B's log of the copies", 20, () -> b.lines().stream().anyMatch(l -> l.contains("was already accepted")));
            assertThat(a.metric("sluice_messages_retried_total", "ToB")).as("messages A resent").isPositive();
            assertThat(a.stop()).isZero();
            assertThat(b.stop()).isZero();
            System.out.printf("lost acks: %d acks eaten, %d connections, B logged %d copies%n", proxy.acksEaten(),
                    proxy.connections.get(), b.lines().stream().filter(l -> l.contains("was already accepted")).count());
            assertExactlyOnce(ledger.refresh());
        }
    }

    /**
     * A TCP proxy to B that loses acks: on the first connection it passes A's frames to B but swallows what B
     * answers until it has swallowed {@code acksToEat} acks, then cuts both connections (a network failure after
     * B accepted the frames). Later connections pass both ways.
     */
    static final class AckEater implements AutoCloseable {
        private final ServerSocket server;
        private final int target;
        private final int acksToEat;
        final AtomicInteger connections = new AtomicInteger();
        private final AtomicLong eaten = new AtomicLong();

        AckEater(int target, int acksToEat) throws IOException {
            this.target = target;
            this.acksToEat = acksToEat;
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread t = new Thread(this::accept, "ack-eater");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return server.getLocalPort();
        }

        /** Acks swallowed ({@code {"ack": "<24 chars>"}} is 31 bytes; counted by the byte 0x81 each starts with). */
        long acksEaten() {
            return eaten.get();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    Socket upstream = new Socket();
                    upstream.connect(new InetSocketAddress("127.0.0.1", target), 5000);
                    boolean eat = connections.incrementAndGet() == 1;
                    pipe(client, upstream, false, client, upstream);
                    pipe(upstream, client, eat, client, upstream);
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void pipe(Socket from, Socket to, boolean eat, Socket a, Socket b) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[64 * 1024];
                try (InputStream in = from.getInputStream()) {
                    OutputStream out = to.getOutputStream();
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        if (!eat) {
                            out.write(buf, 0, n);
                            continue;
                        }
                        for (int i = 0; i < n; i++) {
                            if (buf[i] == (byte) 0x81) {
                                eaten.incrementAndGet();
                            }
                        }
                        if (eaten.get() >= acksToEat) {
                            break;
                        }
                    }
                } catch (IOException ignored) {
                    // one side went away
                }
                close(a);
                close(b);
            }, "ack-eater-pipe");
            t.setDaemon(true);
            t.start();
        }

        private static void close(Socket s) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
