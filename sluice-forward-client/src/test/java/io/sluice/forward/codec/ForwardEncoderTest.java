package io.sluice.forward.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.util.HexFormat;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** Pins the wire bytes of small frames of every mode. */
class ForwardEncoderTest {
    private static final HexFormat HEX = HexFormat.of();
    private final ForwardEncoder enc = new ForwardEncoder(TimeFormat.INTEGER, new Gzip());
    private final MsgPackWriter out = new MsgPackWriter();

    private static EventBatch oneEvent(TimeFormat f) {
        EventBatch b = new EventBatch(f, new KeyCache(), 64);
        b.add(1, 0, Map.of("a", 1));
        return b;
    }

    @Test
    void messageModeIntegerTime() {
        enc.message(out, "t", 1, 0, Map.of("a", 1), null);
        assertThat(HEX.formatHex(out.toByteArray())).isEqualTo("93" + "a174" + "01" + "81a16101");
    }

    @Test
    void messageModeEventTime() {
        ForwardEncoder e = new ForwardEncoder(TimeFormat.EVENT_TIME, new Gzip());
        e.message(out, "t", 1_700_000_000L, 5, Map.of("a", 1), null);
        assertThat(HEX.formatHex(out.toByteArray()))
                .isEqualTo("93" + "a174" + "d7006553f10000000005" + "81a16101");
    }

    @Test
    void messageModeWithChunkHasOptions() {
        enc.message(out, "t", 1, 0, Map.of("a", 1), "QUJD");
        assertThat(HEX.formatHex(out.toByteArray()))
                .isEqualTo("94" + "a174" + "01" + "81a16101" + "81" + "a56368756e6b" + "a451554a44");
    }

    @Test
    void messageModeRawRecord() {
        byte[] rec = HEX.parseHex("81a16101");
        enc.messageRaw(out, "t", 1, 0, rec, 0, rec.length, null);
        assertThat(HEX.formatHex(out.toByteArray())).isEqualTo("93a1740181a16101");
    }

    @Test
    void forwardMode() {
        enc.forward(out, "t", oneEvent(TimeFormat.INTEGER), null);
        assertThat(HEX.formatHex(out.toByteArray()))
                .isEqualTo("93" + "a174" + "91" + "9201" + "81a16101" + "81" + "a473697a65" + "01");
    }

    @Test
    void forwardModeEventTimeWithChunk() {
        EventBatch b = new EventBatch(TimeFormat.EVENT_TIME, new KeyCache(), 64);
        b.add(1, 2, Map.of("a", 1));
        enc.forward(out, "t", b, "QUJD");
        assertThat(HEX.formatHex(out.toByteArray())).isEqualTo("93a174" + "91" + "92" + "d7000000000100000002"
                + "81a16101" + "82" + "a473697a6501" + "a56368756e6b" + "a451554a44");
    }

    @Test
    void packedForwardUsesBin() {
        enc.packed(out, "t", oneEvent(TimeFormat.INTEGER), null);
        assertThat(HEX.formatHex(out.toByteArray()))
                .isEqualTo("93" + "a174" + "c406" + "920181a16101" + "81a473697a6501");
    }

    @Test
    void compressedPackedForwardIsGzipWithOption() throws Exception {
        EventBatch b = oneEvent(TimeFormat.INTEGER);
        enc.compressed(out, "t", b, null);
        byte[] f = out.toByteArray();
        String hex = HEX.formatHex(f);
        assertThat(hex).startsWith("93a174c6");
        int len = (int) Long.parseLong(hex.substring(8, 16), 16);
        assertThat(hex.substring(16 + 2 * len))
                .isEqualTo("82" + "a473697a6501" + "aa636f6d70726573736564" + "a4677a6970");
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(f, 8, len))) {
            assertThat(HEX.formatHex(in.readAllBytes())).isEqualTo("920181a16101");
        }
    }

    @Test
    void batchReuseDoesNotGrowOnceWarm() {
        EventBatch b = new EventBatch(TimeFormat.EVENT_TIME, new KeyCache(), 64);
        Map<String, Object> rec = Map.of("message", "hello", "n", 7);
        for (int round = 0; round < 3; round++) {
            b.clear();
            for (int i = 0; i < 100; i++) {
                b.add(1, 2, rec);
            }
        }
        int cap = b.capacity();
        b.clear();
        for (int i = 0; i < 100; i++) {
            b.add(1, 2, rec);
        }
        assertThat(b.capacity()).isEqualTo(cap);
        assertThat(b.count()).isEqualTo(100);
    }

    @Test
    void chunkIdsAreUniqueBase64Of16Bytes() {
        ChunkIdGenerator g = new ChunkIdGenerator();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String id = g.next();
            assertThat(java.util.Base64.getDecoder().decode(id)).hasSize(16);
            assertThat(seen.add(id)).isTrue();
        }
    }
}
