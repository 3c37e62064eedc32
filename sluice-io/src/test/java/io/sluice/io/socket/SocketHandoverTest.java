package io.sluice.io.socket;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.net.ListenerHandover;
import io.sluice.core.net.ListenerHold;
import io.sluice.core.testing.ConnectLoop;
import io.sluice.core.testing.PipelineHarness;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A reload replaces consumer.Socket or consumer.Syslogd with one on the same address: under a hold the bound socket
 * (TCP, UDP, unix) passes from the old consumer to the new one, so nothing sent in between is refused or dropped.
 */
@Timeout(60)
class SocketHandoverTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"consumer.Socket", "consumer.Syslogd"})
    void overTcpNoConnectionIsRefusedAndTheNewConsumerReadsWhatWasSentInBetween(String type) throws Exception {
        int port = PipelineHarness.freePort();
        String address = "tcp://127.0.0.1:" + port;
        PipelineHarness a = start(type, address);
        PipelineHarness b;
        Socket between;
        try (ConnectLoop loop = new ConnectLoop(port)) {
            loop.awaitMore(20);
            try (ListenerHold hold = ListenerHandover.hold()) {
                a.close();
                between = new Socket("127.0.0.1", port); // no consumer now: the kernel's backlog takes it
                between.getOutputStream()
                        .write("<13>Oct 11 22:14:15 host app: between\n".getBytes(StandardCharsets.UTF_8));
                loop.awaitMore(10);
                b = start(type, address);
            }
            loop.awaitMore(20);
            assertThat(loop.refused()).isZero();
        }
        try {
            between.close();
            b.await("the line sent in between", () -> b.collect("Out").size() == 1);
            assertThat(a.collect("Out").size()).isZero();
        } finally {
            b.close();
        }
        assertFreed(port);
    }

    @Test
    void overUdpDatagramsSentInBetweenReachTheNewConsumer() throws Exception {
        int port = PipelineHarness.freePort();
        String address = "udp://127.0.0.1:" + port;
        PipelineHarness a = start("consumer.Socket", address);
        PipelineHarness b;
        try (DatagramChannel out = DatagramChannel.open()) {
            InetSocketAddress to = new InetSocketAddress("127.0.0.1", port);
            out.send(ByteBuffer.wrap("before\n".getBytes(StandardCharsets.UTF_8)), to);
            a.await("the line sent before", () -> a.collect("Out").size() == 1);
            try (ListenerHold hold = ListenerHandover.hold()) {
                a.close();
                out.send(ByteBuffer.wrap("between\n".getBytes(StandardCharsets.UTF_8)), to);
                b = start("consumer.Socket", address);
            }
            out.send(ByteBuffer.wrap("after\n".getBytes(StandardCharsets.UTF_8)), to);
        }
        try {
            b.await("the lines sent in between and after", () -> b.collect("Out").size() == 2);
            assertThat(b.payloads("Out")).containsExactly("between", "after");
            assertThat(a.payloads("Out")).containsExactly("before");
        } finally {
            b.close();
        }
    }

    @Test
    void overAUnixSocketTheFileStaysAndTheNewConsumerReadsWhatWasSentInBetween() throws Exception {
        Path sock = dir.resolve("in.sock");
        String address = "unix://" + sock;
        PipelineHarness a = start("consumer.Socket", address);
        PipelineHarness b;
        try (SocketChannel between = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            try (ListenerHold hold = ListenerHandover.hold()) {
                a.close();
                assertThat(sock).as("kept while parked").exists();
                between.connect(UnixDomainSocketAddress.of(sock));
                between.write(ByteBuffer.wrap("between\n".getBytes(StandardCharsets.UTF_8)));
                b = start("consumer.Socket", address);
            }
        }
        try {
            b.await("the line sent in between", () -> b.collect("Out").size() == 1);
            assertThat(b.payloads("Out")).containsExactly("between");
        } finally {
            b.close();
        }
        assertThat(Files.exists(sock)).as("removed once closed outside a hold").isFalse();
    }

    @Test
    void aSocketNobodyTookIsClosedWhenTheHoldEnds() throws Exception {
        int port = PipelineHarness.freePort();
        PipelineHarness a = start("consumer.Socket", "tcp://127.0.0.1:" + port);
        try (ListenerHold hold = ListenerHandover.hold()) {
            a.close();
            try (Socket s = new Socket("127.0.0.1", port)) {
                assertThat(s.isConnected()).as("parked: still bound").isTrue();
            }
        }
        assertFreed(port);
    }

    private static PipelineHarness start(String type, String address) throws Exception {
        PipelineHarness p = PipelineHarness.builder().log(PipelineHarness.stderrLog()).yaml(
                "In:\n  Type: " + type + "\n  Address: " + address + "\n  Streams: s\n"
                        + "Out:\n  Type: test.Collect\n  Streams: s\n").start();
        p.awaitReady(10_000);
        return p;
    }

    /** Outside a hold, stopping closes: connecting is refused and the port can be bound again. */
    private static void assertFreed(int port) throws IOException {
        ConnectLoop.awaitRefused(port);
        try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
    }
}
