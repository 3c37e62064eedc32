package io.sluice.forward.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.forward.testutil.CollectingSink;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Encoder output decodes back to the same events, in every mode and time format. */
class RoundTripTest {

    static Map<String, Object> richRecord() {
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("id", 42);
        nested.put("tags", List.of("a", "b"));
        Map<String, Object> rec = new LinkedHashMap<>();
        rec.put("message", "hello forward");
        rec.put("unicode", "héllo wörld ✓ \uD83D\uDE00");
        rec.put("int", 7);
        rec.put("long", 1L << 40);
        rec.put("neg", -123456);
        rec.put("double", 3.25);
        rec.put("float", 1.5f);
        rec.put("bool", true);
        rec.put("null", null);
        rec.put("bin", new byte[] {0, 1, 2, (byte) 255});
        rec.put("user", nested);
        rec.put("time", new EventTime(5, 6));
        rec.put("long-string", "x".repeat(70_000));
        return rec;
    }

    /** What the decoder gives for {@link #richRecord()}: integers as Long. */
    static Map<String, Object> richRecordDecoded() {
        Map<String, Object> rec = new LinkedHashMap<>(richRecord());
        rec.put("int", 7L);
        rec.put("neg", -123456L);
        rec.put("user", Map.of("id", 42L, "tags", List.of("a", "b")));
        rec.remove("bin");
        return rec;
    }

    private static void assertRich(CollectingSink.Event e) {
        Map<String, Object> got = new LinkedHashMap<>(e.record());
        byte[] bin = (byte[]) got.remove("bin");
        assertThat(bin).containsExactly(0, 1, 2, 255);
        assertThat(got).isEqualTo(richRecordDecoded());
    }

    @ParameterizedTest
    @EnumSource(TimeFormat.class)
    void messageMode(TimeFormat format) throws Exception {
        ForwardEncoder enc = new ForwardEncoder(format, new Gzip());
        MsgPackWriter out = new MsgPackWriter();
        enc.message(out, "app.log", 1_700_000_000L, 123_456_789, richRecord(), "chunk-1");
        CollectingSink sink = new CollectingSink();
        ForwardDecoder dec = new ForwardDecoder();
        assertThat(dec.decode(out.array(), 0, out.size(), sink)).isEqualTo(1);
        assertThat(dec.lastMode()).isEqualTo(ForwardMode.MESSAGE);
        CollectingSink.Event e = sink.events.get(0);
        assertThat(e.tag()).isEqualTo("app.log");
        assertThat(e.seconds()).isEqualTo(1_700_000_000L);
        assertThat(e.nanos()).isEqualTo(format == TimeFormat.EVENT_TIME ? 123_456_789 : 0);
        assertThat(e.chunk()).isEqualTo("chunk-1");
        assertRich(e);
    }

    @ParameterizedTest
    @EnumSource(value = ForwardMode.class, names = {"FORWARD", "PACKED_FORWARD", "COMPRESSED_PACKED_FORWARD"})
    void batchModes(ForwardMode mode) throws Exception {
        ForwardEncoder enc = new ForwardEncoder();
        EventBatch batch = new EventBatch(TimeFormat.EVENT_TIME, enc.keyCache(), 64);
        for (int i = 0; i < 50; i++) {
            batch.add(1_700_000_000L + i, i, i == 3 ? richRecord() : Map.of("i", i, "s", "v" + i));
        }
        byte[] raw = {(byte) 0x81, (byte) 0xa1, 'r', (byte) 0xc3};
        batch.addRaw(1, 2, raw, 0, raw.length);
        MsgPackWriter out = new MsgPackWriter();
        enc.frame(mode, out, "batch.tag", batch, "abc");

        CollectingSink sink = new CollectingSink();
        ForwardDecoder dec = new ForwardDecoder();
        assertThat(dec.decode(out.array(), 0, out.size(), sink)).isEqualTo(51);
        assertThat(dec.lastMode()).isEqualTo(mode);
        assertThat(sink.options).containsExactly(new CollectingSink.Options("abc", 51,
                mode == ForwardMode.COMPRESSED_PACKED_FORWARD ? "gzip" : null));
        for (int i = 0; i < 50; i++) {
            CollectingSink.Event e = sink.events.get(i);
            assertThat(e.tag()).isEqualTo("batch.tag");
            assertThat(e.seconds()).isEqualTo(1_700_000_000L + i);
            assertThat(e.nanos()).isEqualTo(i);
            if (i == 3) {
                assertRich(e);
            } else {
                assertThat(e.record()).isEqualTo(Map.of("i", (long) i, "s", "v" + i));
            }
        }
        assertThat(sink.events.get(50).raw()).isEqualTo(raw);
        assertThat(sink.events.get(50).record()).isEqualTo(Map.of("r", true));
    }

    @Test
    void rawRecordBytesAreExactlyTheEncodedRecord() throws Exception {
        KeyCache keys = new KeyCache();
        MsgPackWriter rec = new MsgPackWriter();
        rec.writeRecord(richRecord(), keys);
        ForwardEncoder enc = new ForwardEncoder();
        MsgPackWriter out = new MsgPackWriter();
        enc.message(out, "t", 1, 0, richRecord(), null);
        CollectingSink sink = new CollectingSink();
        new ForwardDecoder().decode(out.array(), 0, out.size(), sink);
        assertThat(Arrays.equals(sink.events.get(0).raw(), rec.toByteArray())).isTrue();
    }

    @Test
    void emptyBatchRoundTrips() throws Exception {
        for (ForwardMode mode : List.of(ForwardMode.FORWARD, ForwardMode.PACKED_FORWARD,
                ForwardMode.COMPRESSED_PACKED_FORWARD)) {
            MsgPackWriter out = new MsgPackWriter();
            new ForwardEncoder().frame(mode, out, "t", new EventBatch(), null);
            assertThat(new ForwardDecoder().decode(out.array(), 0, out.size(), new CollectingSink())).isZero();
        }
    }

    @Test
    void decodesFromDirectByteBuffer() throws Exception {
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().message(out, "t", 1, 0, Map.of("k", "v"), null);
        java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(out.size());
        direct.put(out.array(), 0, out.size()).flip();
        CollectingSink sink = new CollectingSink();
        assertThat(new ForwardDecoder().decode(direct, sink)).isEqualTo(1);
        assertThat(direct.position()).isZero();
        assertThat(sink.records()).containsExactly(Map.of("k", "v"));
    }
}
