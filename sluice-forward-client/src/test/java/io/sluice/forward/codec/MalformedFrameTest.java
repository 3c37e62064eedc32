package io.sluice.forward.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.forward.testutil.CollectingSink;
import java.util.HexFormat;
import java.util.Map;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

/** Malformed frames raise ForwardProtocolException with the offset and a reason. */
class MalformedFrameTest {
    private static final HexFormat HEX = HexFormat.of();

    private static AbstractThrowableAssert<?, ?> decoding(byte[] frame) {
        return assertThatThrownBy(() -> new ForwardDecoder().decode(frame, 0, frame.length, new CollectingSink()))
                .isInstanceOf(ForwardProtocolException.class);
    }

    private static AbstractThrowableAssert<?, ?> decoding(String hex) {
        return decoding(HEX.parseHex(hex));
    }

    private static void atOffset(AbstractThrowableAssert<?, ?> a, long offset, String reason) {
        a.satisfies(e -> assertThat(((ForwardProtocolException) e).offset()).isEqualTo(offset))
                .hasMessageContaining(reason)
                .hasMessageStartingWith("at offset " + offset + ": ");
    }

    private static byte[] packed(String compressed, byte[] payload) {
        MsgPackWriter w = new MsgPackWriter();
        w.writeArrayHeader(3);
        w.writeString("t");
        w.writeBin(payload, 0, payload.length);
        w.writeMapHeader(1);
        w.writeString("compressed");
        w.writeString(compressed);
        return w.toByteArray();
    }

    private static byte[] gzipOf(byte[] data) {
        MsgPackWriter w = new MsgPackWriter();
        new Gzip().compress(data, 0, data.length, w);
        return w.toByteArray();
    }

    @Test
    void truncatedAtEveryByte() throws Exception {
        MsgPackWriter out = new MsgPackWriter();
        EventBatch b = new EventBatch();
        b.add(1, 2, Map.of("k", "v"));
        new ForwardEncoder().forward(out, "tag", b, "chunk");
        byte[] f = out.toByteArray();
        for (int len = 0; len < f.length; len++) {
            int n = len;
            assertThatThrownBy(() -> new ForwardDecoder().decode(f, 0, n, new CollectingSink()))
                    .isInstanceOf(ForwardProtocolException.class)
                    .satisfies(e -> assertThat(((ForwardProtocolException) e).offset()).isBetween(0L, (long) n));
        }
    }

    @Test
    void notAnArray() {
        atOffset(decoding("81a16101"), 0, "expected array");
    }

    @Test
    void wrongElementCount() {
        atOffset(decoding("95a174010203c0"), 0, "2 to 4 elements");
        atOffset(decoding("91a174"), 0, "2 to 4 elements");
        atOffset(decoding("94a174908080"), 0, "cannot have 4 elements");
    }

    @Test
    void tagNotAString() {
        atOffset(decoding("930101" + "80"), 1, "tag must be a str");
    }

    @Test
    void recordNotAMap() {
        atOffset(decoding("93a17401a178"), 4, "record must be a map");
    }

    @Test
    void timeOfWrongType() {
        // Forward mode entry [nil, {}]
        atOffset(decoding("92a1749192c080"), 5, "time must be EventTime, integer or float");
        // EventTime ext of type 5
        atOffset(decoding("93a174d7050000000100000000" + "80"), 3, "type 0 with 8 bytes");
        // nanoseconds out of range
        atOffset(decoding("93a174d70000000001ffffffff" + "80"), 3, "nanoseconds out of range");
    }

    @Test
    void entryOfWrongShape() {
        atOffset(decoding("92a17491930180c0"), 4, "an entry is [time, record]");
    }

    @Test
    void optionsOfWrongType() {
        atOffset(decoding("93a1749001"), 4, "options must be a map");
        atOffset(decoding("93a1749081a473697a65a178"), 10, "option size must be an integer");
        atOffset(decoding("93a1749081a56368756e6b01"), 11, "option chunk must be a str");
    }

    @Test
    void trailingBytes() {
        atOffset(decoding("93a174908000"), 5, "trailing bytes");
    }

    @Test
    void invalidFormatByte() {
        decoding("93a17490c1").hasMessageContaining("0xc1");
    }

    @Test
    void badGzipMagic() {
        byte[] f = packed("gzip", new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
        atOffset(decoding(f), 5, "not gzip data");
    }

    @Test
    void corruptDeflateData() {
        byte[] gz = gzipOf(new byte[] {(byte) 0x92, 1, (byte) 0x80});
        gz[10] = (byte) 0xff; // first deflate block header: invalid block type
        decoding(packed("gzip", gz)).hasMessageContaining("bad gzip data");
    }

    @Test
    void gzipChecksumMismatch() {
        byte[] gz = gzipOf(new byte[] {(byte) 0x92, 1, (byte) 0x80});
        gz[gz.length - 8] ^= 1;
        decoding(packed("gzip", gz)).hasMessageContaining("CRC-32 mismatch");
    }

    @Test
    void truncatedGzip() {
        byte[] gz = gzipOf(new byte[] {(byte) 0x92, 1, (byte) 0x80});
        byte[] cut = java.util.Arrays.copyOf(gz, gz.length - 3);
        decoding(packed("gzip", cut)).hasMessageContaining("truncated gzip");
    }

    @Test
    void malformedEntriesInsideGzipReportThePayloadOffset() {
        byte[] gz = gzipOf(new byte[] {(byte) 0x92, 1, 2}); // record is not a map
        atOffset(decoding(packed("gzip", gz)), 3, "at decompressed offset 2: record must be a map");
    }

    @Test
    void gzipBombIsRefused() {
        byte[] big = new byte[1 << 20];
        byte[] gz = gzipOf(big);
        byte[] f = packed("gzip", gz);
        assertThatThrownBy(() -> new ForwardDecoder(64 * 1024).decode(f, 0, f.length, new CollectingSink()))
                .isInstanceOf(ForwardProtocolException.class)
                .hasMessageContaining("inflates to more than 65536 bytes");
    }

    @Test
    void severalConcatenatedGzipMembers() throws Exception {
        EventBatch a = new EventBatch();
        a.add(1, 0, Map.of("n", 1));
        EventBatch b = new EventBatch();
        b.add(2, 0, Map.of("n", 2));
        b.add(3, 0, Map.of("n", 3));
        MsgPackWriter gz = new MsgPackWriter();
        Gzip g = new Gzip();
        g.compress(a.array(), 0, a.sizeBytes(), gz);
        g.compress(b.array(), 0, b.sizeBytes(), gz);
        byte[] f = packed("gzip", gz.toByteArray());
        CollectingSink sink = new CollectingSink();
        assertThat(new ForwardDecoder().decode(f, 0, f.length, sink)).isEqualTo(3);
        assertThat(sink.records()).containsExactly(Map.of("n", 1L), Map.of("n", 2L), Map.of("n", 3L));
    }

    @Test
    void gzipWithHeaderFieldsFromJdkStream() throws Exception {
        EventBatch a = new EventBatch();
        a.add(1, 0, Map.of("n", 1));
        java.io.ByteArrayOutputStream bos = new java.io.ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(bos)) {
            z.write(a.array(), 0, a.sizeBytes());
        }
        byte[] f = packed("gzip", bos.toByteArray());
        CollectingSink sink = new CollectingSink();
        assertThat(new ForwardDecoder().decode(f, 0, f.length, sink)).isEqualTo(1);
    }

    @Test
    void unsupportedCompression() {
        atOffset(decoding(packed("zstd", new byte[] {1})), 3, "unsupported compression \"zstd\"");
    }

    @Test
    void compressedOptionOnForwardMode() {
        atOffset(decoding("93a1749081aa636f6d70726573736564a4677a6970"), 3, "compressed option on a FORWARD frame");
    }

    @Test
    void packedPayloadAsStrAndFloatTimesAreAccepted() throws Exception {
        // [ "t", str([1.5, {}]), ] with float64 time 1.5
        byte[] entry = HEX.parseHex("92cb3ff800000000000080");
        MsgPackWriter w = new MsgPackWriter();
        w.writeArrayHeader(2);
        w.writeString("t");
        w.writeStringHeader(entry.length);
        w.writeRaw(entry);
        CollectingSink sink = new CollectingSink();
        new ForwardDecoder().decode(w.array(), 0, w.size(), sink);
        assertThat(sink.events.get(0).seconds()).isEqualTo(1);
        assertThat(sink.events.get(0).nanos()).isEqualTo(500_000_000);
    }

    @Test
    void eventTimeAsExt8IsAccepted() throws Exception {
        // ext8 (0xc7), length 8, type 0
        CollectingSink sink = new CollectingSink();
        byte[] f = HEX.parseHex("93a174c708000000000a0000000b81a16101");
        new ForwardDecoder().decode(f, 0, f.length, sink);
        assertThat(sink.events.get(0).seconds()).isEqualTo(10);
        assertThat(sink.events.get(0).nanos()).isEqualTo(11);
    }

    @Test
    void metadataFormWithNonEmptyMetadata() throws Exception {
        // [ "t", [ [ [EventTime, {"m":1}], {"a":1} ] ] ]
        CollectingSink sink = new CollectingSink();
        byte[] f = HEX.parseHex("92a174" + "91" + "92" + "92d7000000000100000002" + "81a16d01" + "81a16101");
        new ForwardDecoder().decode(f, 0, f.length, sink);
        assertThat(sink.events.get(0).metadata()).isEqualTo(Map.of("m", 1L));
        assertThat(sink.events.get(0).record()).isEqualTo(Map.of("a", 1L));
    }
}
