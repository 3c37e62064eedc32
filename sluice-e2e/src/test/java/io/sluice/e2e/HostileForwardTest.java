package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;

/**
 * consumer.Forward against hostile peers, at the launcher's heap: a huge record, a PackedForward of a million
 * records, a gzip bomb under MaxDecompressedSize, unauthenticated peers streaming before the handshake, invalid
 * UTF-8, thousands of idle connections. Frames are encoded here with msgpack-java, the library fluency uses.
 */
@Timeout(600)
class HostileForwardTest extends HostileTest {
    private static String config(int port, Path out, String extra) {
        return "\"In\":\n    Type: \"consumer.Forward\"\n    Address: \"127.0.0.1:" + port + "\"\n    Streams: \"s\"\n" + extra
                + "\"Out\":\n    Type: \"producer.File\"\n    Streams: \"s\"\n    File: \"" + out + "\"\n";
    }

    /** Message mode {@code [tag, time, {"msg": msg}]}, the string written as raw bytes (any bytes, even invalid UTF-8). */
    private static byte[] message(byte[] msg) throws IOException {
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packArrayHeader(3).packString("t").packLong(1_700_000_000L).packMapHeader(1).packString("msg");
        p.packRawStringHeader(msg.length).writePayload(msg);
        p.close();
        return p.toByteArray();
    }

    private static byte[] message(String msg) throws IOException {
        return message(msg.getBytes(StandardCharsets.UTF_8));
    }

    /** The entries of {@code n} records {@code [time, {"k": value}]}, concatenated as PackedForward carries them. */
    private static byte[] entries(int n, String value) throws IOException {
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        for (int i = 0; i < n; i++) {
            p.packArrayHeader(2).packLong(1_700_000_000L).packMapHeader(1).packString("k").packString(value);
        }
        p.close();
        return p.toByteArray();
    }

    /** {@code [tag, bin(entries), {"chunk": id[, "compressed": "gzip"]}]}: the server acks the chunk once delivered. */
    private static byte[] packed(byte[] entries, String chunk, boolean gzip) throws IOException {
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packArrayHeader(3).packString("t").packBinaryHeader(entries.length).writePayload(entries);
        p.packMapHeader(gzip ? 2 : 1).packString("chunk").packString(chunk);
        if (gzip) {
            p.packString("compressed").packString("gzip");
        }
        p.close();
        return p.toByteArray();
    }

    private static byte[] gzip(byte[] plain) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(plain);
        }
        return out.toByteArray();
    }

    /** Sends one frame; returns the acked chunk id, or null when the server closed the connection without an ack. */
    private static String sendForAck(int port, byte[] frame) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(120_000);
            OutputStream out = s.getOutputStream();
            try {
                out.write(frame);
                out.flush();
            } catch (IOException closedWhileWriting) {
                return null;
            }
            InputStream in = s.getInputStream();
            try (MessageUnpacker u = MessagePack.newDefaultUnpacker(in)) {
                if (!u.hasNext()) {
                    return null;
                }
                int n = u.unpackMapHeader();
                String ack = null;
                for (int i = 0; i < n; i++) {
                    String key = u.unpackString();
                    String value = u.unpackString();
                    if (key.equals("ack")) {
                        ack = value;
                    }
                }
                return ack;
            } catch (IOException closed) {
                return null;
            }
        }
    }

    private static void assertStillDelivers(int port, Path out, String marker) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.getOutputStream().write(message(marker));
            s.getOutputStream().flush();
            awaitLine(out, marker, 60);
        }
    }

    @Test
    void hugeRecordsMillionRecordFramesAndGzipBombsAreSurvived() throws Exception {
        int port = E2e.freePort();
        Path out = dir.resolve("out.ndjson");
        SluiceProcess p = startAsLaunched("fwd-big", config(port, out, ""), port);

        byte[] big = message("B".repeat(30 * 1024 * 1024));
        try (Socket s = new Socket("127.0.0.1", port)) {
            try {
                s.getOutputStream().write(big);
                s.getOutputStream().flush();
            } catch (IOException refused) {
                // closed by the server as too large: counted below
            }
        }
        assertStillDelivers(port, out, "after-30mib-record");
        assertSurvived(p, "a 30 MiB record");

        String ack = sendForAck(port, packed(entries(1_000_000, "m1"), "million", false));
        System.out.printf("fwd-big: 1M-record PackedForward %s%n", ack == null ? "refused (closed, no ack)" : "acked");
        if (ack != null) {
            assertThat(ack).isEqualTo("million");
            Await.until("every acked record written", 120, () -> countLines(out, "m1") >= 1_000_000);
            assertThat(countLines(out, "m1")).isEqualTo(1_000_000);
        } else {
            assertThat(rejected(p, "In", "too_large") + rejected(p, "In", "busy")).isPositive();
        }
        assertStillDelivers(port, out, "after-million");
        assertSurvived(p, "a 1M-record PackedForward");

        // About 120 MiB of records, compressible to about 120 KB: under MaxDecompressedSize, over the budget.
        byte[] bomb = gzip(entries(120 * 1024 * 1024 / 1040, "z".repeat(1024)));
        long tooLargeBefore = rejected(p, "In", "too_large");
        String bombAck = sendForAck(port, packed(bomb, "bomb", true));
        System.out.printf("fwd-big: %d KB gzip inflating to ~120 MiB: %s%n", bomb.length >> 10, bombAck == null ? "refused" : "acked");
        assertThat(bombAck).as("a gzip bomb beyond what the budget can hold is refused").isNull();
        assertThat(rejected(p, "In", "too_large")).isGreaterThan(tooLargeBefore);
        assertStillDelivers(port, out, "after-bomb");
        assertSurvived(p, "a gzip bomb");
        assertThat(p.stop()).isZero();
    }

    @Test
    void unauthenticatedPeersCanBufferOnlyALittle() throws Exception {
        int port = E2e.freePort();
        Path out = dir.resolve("out.ndjson");
        SluiceProcess p = startAsLaunched("fwd-unauth", config(port, out, "    SharedKey: \"secret\"\n"), port);
        byte[] junk = new byte[1024 * 1024];
        java.util.Arrays.fill(junk, (byte) 0x91); // fixarray headers: a frame that never ends
        List<Socket> peers = idleConnections(port, 8, new byte[0]);
        for (Socket s : peers) {
            long sent = 0;
            try {
                while (sent < 30L * 1024 * 1024 - 1) {
                    s.getOutputStream().write(junk);
                    sent += junk.length;
                }
            } catch (IOException closed) {
                // the server closed it: that is the point
            }
            assertThat(sent).as("bytes an unauthenticated peer could send before being cut off").isLessThan(30L * 1024 * 1024 - 1);
            assertThat(closedByServer(s, 30)).isTrue();
        }
        assertThat(rejected(p, "In", "auth")).isGreaterThanOrEqualTo(8);
        assertSurvived(p, "8 unauthenticated peers streaming 30 MiB");
        assertThat(p.stop()).isZero();
    }

    @Test
    void invalidUtf8BecomesValidJsonAndIdleConnectionsAreBounded() throws Exception {
        int port = E2e.freePort();
        Path out = dir.resolve("out.ndjson");
        SluiceProcess p = startAsLaunched("fwd-utf8", config(port, out, "    IdleTimeoutMs: 2000\n"), port);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.getOutputStream().write(message(new byte[] {'b', 'a', 'd', (byte) 0xff, (byte) 0xc3, '(', '!'}));
            s.getOutputStream().flush();
        }
        awaitLine(out, "bad", 60);
        byte[] written = Files.readAllBytes(out);
        assertThat(StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(written)).toString())
                .as("the output is valid UTF-8").contains("bad\uFFFD");

        long threadsBefore = p.threads();
        List<Socket> idle = idleConnections(port, 2000, new byte[0]);
        assertThat(p.threads() - threadsBefore).as("threads added by 2,000 connections").isLessThan(20);
        for (Socket s : idle) {
            assertThat(closedByServer(s, 30)).as("an idle connection closed (beyond MaxConnections, or idle)").isTrue();
        }
        Await.until("every connection refused (beyond MaxConnections, 1,024) or timed out, and counted", 30,
                () -> rejected(p, "In", "busy") >= 2000 - 1024 && rejected(p, "In", "busy") + rejected(p, "In", "timeout") >= 2000);
        assertStillDelivers(port, out, "after-idle");
        assertSurvived(p, "invalid UTF-8 and 2,000 idle connections");
        assertThat(p.stop()).isZero();
    }
}
