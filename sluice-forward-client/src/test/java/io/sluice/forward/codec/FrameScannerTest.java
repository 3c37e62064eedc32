package io.sluice.forward.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.forward.testutil.CollectingSink;
import io.sluice.forward.testutil.Vectors;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Frame-length detection on partial input, and refusing oversized frames from their header. */
class FrameScannerTest {

    /** A stream of frames of every mode, plus the three Fluent Bit captures. */
    static List<byte[]> frames() {
        List<byte[]> frames = new ArrayList<>();
        ForwardEncoder enc = new ForwardEncoder();
        MsgPackWriter out = new MsgPackWriter();
        enc.message(out, "m", 1, 2, Map.of("k", "v", "n", List.of(1, 2, Map.of("x", "y"))), "c1");
        frames.add(out.toByteArray());
        EventBatch b = new EventBatch();
        for (int i = 0; i < 20; i++) {
            b.add(10 + i, i, Map.of("i", i, "s", "x".repeat(i * 3)));
        }
        for (ForwardMode m : List.of(ForwardMode.FORWARD, ForwardMode.PACKED_FORWARD,
                ForwardMode.COMPRESSED_PACKED_FORWARD)) {
            out.clear();
            enc.frame(m, out, "b." + m, b, m == ForwardMode.FORWARD ? null : "c2");
            frames.add(out.toByteArray());
        }
        for (String f : List.of("forward-mode-eventtime-meta.bin", "compressed-packed-forward-ack.bin",
                "forward-mode-int-time-compat.bin")) {
            frames.add(Vectors.read("fluent-bit/forward/" + f));
        }
        return frames;
    }

    private static byte[] concat(List<byte[]> frames) {
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        frames.forEach(s::writeBytes);
        return s.toByteArray();
    }

    @Test
    void everyProperPrefixIsIncompleteAndTheWholeFrameIsExact() throws Exception {
        for (byte[] f : frames()) {
            FrameScanner resumable = new FrameScanner(1 << 20);
            for (int k = 0; k < f.length; k++) {
                assertThat(new FrameScanner(1 << 20).scan(f, 0, k)).as("prefix %d", k).isEqualTo(-1);
                assertThat(resumable.scan(f, 0, k)).as("resumed prefix %d", k).isEqualTo(-1);
            }
            assertThat(new FrameScanner(1 << 20).scan(f, 0, f.length)).isEqualTo(f.length);
            assertThat(resumable.scan(f, 0, f.length)).isEqualTo(f.length);
        }
    }

    @Test
    void streamSplitAtEveryOffsetDecodesTheSameEvents() throws Exception {
        byte[] stream = concat(frames());
        CollectingSink whole = new CollectingSink();
        try (ForwardStreamDecoder d = new ForwardStreamDecoder(1 << 20)) {
            assertThat(d.feed(stream, 0, stream.length, whole)).isEqualTo(7);
        }
        assertThat(whole.events).hasSize(1 + 3 * 20 + 6);
        List<String> expected = render(whole);
        for (int split = 0; split <= stream.length; split++) {
            CollectingSink sink = new CollectingSink();
            try (ForwardStreamDecoder d = new ForwardStreamDecoder(1 << 20)) {
                d.feed(stream, 0, split, sink);
                d.feed(stream, split, stream.length - split, sink);
                assertThat(d.buffered()).isZero();
            }
            assertThat(render(sink)).as("split at %d", split).isEqualTo(expected);
        }
    }

    @Test
    void byteByByteFeeding() throws Exception {
        byte[] stream = concat(frames());
        CollectingSink sink = new CollectingSink();
        int frames = 0;
        try (ForwardStreamDecoder d = new ForwardStreamDecoder(1 << 20)) {
            for (int i = 0; i < stream.length; i++) {
                frames += d.feed(stream, i, 1, sink);
            }
        }
        assertThat(frames).isEqualTo(7);
        assertThat(sink.events).hasSize(67);
    }

    private static List<String> render(CollectingSink sink) {
        List<String> out = new ArrayList<>();
        for (CollectingSink.Event e : sink.events) {
            out.add(e.tag() + "|" + e.seconds() + "|" + e.nanos() + "|" + e.record() + "|" + e.chunk());
        }
        return out;
    }

    @Test
    void oversizedBinIsRefusedFromItsHeaderAlone() {
        // [ "t", bin32 of 100 MB ... ]: only 8 header bytes have arrived
        byte[] head = {(byte) 0x93, (byte) 0xa1, 't', (byte) 0xc6, 0x05, (byte) 0xf5, (byte) 0xe1, 0x00};
        FrameScanner s = new FrameScanner(1 << 20);
        assertThatThrownBy(() -> s.scan(head, 0, head.length))
                .isInstanceOfSatisfying(FrameTooLargeException.class, e -> {
                    assertThat(e.offset()).isEqualTo(3);
                    assertThat(e.maxFrameBytes()).isEqualTo(1 << 20);
                })
                .hasMessageContaining("at offset 3");
    }

    @Test
    void oversizedArrayCountIsRefusedFromItsHeader() {
        // [ "t", array32 of 2^31 entries ...
        byte[] head = {(byte) 0x93, (byte) 0xa1, 't', (byte) 0xdd, (byte) 0x80, 0, 0, 0};
        assertThatThrownBy(() -> new FrameScanner(1 << 20).scan(head, 0, head.length))
                .isInstanceOf(FrameTooLargeException.class);
    }

    @Test
    void frameOverTheLimitIsRefusedEvenWithSmallHeaders() throws Exception {
        EventBatch b = new EventBatch();
        for (int i = 0; i < 100; i++) {
            b.add(1, 0, Map.of("k", "v"));
        }
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().forward(out, "t", b, null);
        assertThatThrownBy(() -> new FrameScanner(100).scan(out.array(), 0, out.size()))
                .isInstanceOf(FrameTooLargeException.class);
        assertThat(new FrameScanner(out.size()).scan(out.array(), 0, out.size())).isEqualTo(out.size());
    }

    @Test
    void nonContainerFirstByteIsRefused() {
        byte[] http = "GET / HTTP/1.1\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> new FrameScanner(1 << 20).scan(http, 0, http.length))
                .isInstanceOfSatisfying(ForwardProtocolException.class, e -> assertThat(e.offset()).isZero())
                .hasMessageContaining("array or map");
    }

    @Test
    void invalidFormatByteIsRefused() {
        byte[] f = {(byte) 0x92, (byte) 0xa1, 't', (byte) 0xc1};
        assertThatThrownBy(() -> new FrameScanner(1 << 20).scan(f, 0, f.length))
                .isInstanceOfSatisfying(ForwardProtocolException.class, e -> assertThat(e.offset()).isEqualTo(3));
    }

    @Test
    void scannerFindsFramesAtAnOffsetInALargerBuffer() throws Exception {
        byte[] f = frames().get(0);
        byte[] buf = new byte[f.length + 20];
        System.arraycopy(f, 0, buf, 7, f.length);
        assertThat(new FrameScanner(1 << 20).scan(buf, 7, f.length + 13)).isEqualTo(f.length);
    }
}
