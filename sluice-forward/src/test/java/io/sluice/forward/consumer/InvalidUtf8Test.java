package io.sluice.forward.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.json.Utf8Reference;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.forward.codec.MsgPackWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * msgpack strings that are not UTF-8: what reaches the JSON payload and the metadata is valid UTF-8, invalid
 * sequences replaced with U+FFFD (one per maximal subpart, the Unicode standard's recommended practice, which is
 * also WHATWG's; the JDK's decoder differs for surrogates and a few other forms), and counted.
 */
class InvalidUtf8Test {
    private static final HexFormat HEX = HexFormat.of();

    /** A record {key: value} with raw bytes for both. */
    private static byte[] record(byte[] key, byte[] value) {
        MsgPackWriter w = new MsgPackWriter();
        w.writeMapHeader(1);
        w.writeStringHeader(key.length);
        w.writeRaw(key);
        w.writeStringHeader(value.length);
        w.writeRaw(value);
        return w.toByteArray();
    }

    private static Message map(RecordMapper mapper, byte[] rec) {
        Message m = new BatchPool(1).acquire().add();
        mapper.map(rec, 0, rec.length, -1, 0, m);
        return m;
    }

    /** Decodes strictly: fails on anything that is not UTF-8. */
    private static String strict(byte[] b, int off, int len) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, off, len)).toString();
    }

    private static String payload(Message m) throws CharacterCodingException {
        return strict(m.payload(), 0, m.length());
    }

    @Test
    void invalidSequencesBecomeReplacementCharactersInPayloadAndMetadata() throws Exception {
        RecordMapper mapper = new RecordMapper(RecordMapper.PayloadMode.JSON, "", true, "");
        // ab, a lone continuation byte, an overlong '/' (2), a surrogate (3: ED only starts ED 80..9F), a truncated
        // 3-byte sequence before 'A' (1), é.
        byte[] value = HEX.parseHex("6162" + "80" + "c0af" + "eda080" + "e28241" + "c3a9");
        Message m = map(mapper, record("k\u00e9y".getBytes(StandardCharsets.UTF_8), value));
        String expected = "ab\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFDA\u00e9";
        assertThat(payload(m)).isEqualTo("{\"k\u00e9y\":\"" + expected + "\"}");
        Metadata md = m.metadata();
        assertThat(strict(md.arena(), md.valueOffset(0), md.valueLength(0))).isEqualTo(expected);
        // The metadata holds the payload's replaced text: each invalid sequence of the record is counted once.
        assertThat(mapper.invalidUtf8()).as("one count per invalid sequence").isEqualTo(7);
        assertThat(Utf8Reference.decode(value)).as("the reference decoder agrees").isEqualTo(expected);
    }

    @Test
    void anInvalidKeyIsReplacedTooAndValidTextIsUnchanged() throws Exception {
        RecordMapper mapper = new RecordMapper(RecordMapper.PayloadMode.JSON, "", true, "");
        byte[] valid = "grüße € 😀 \u0001\"".getBytes(StandardCharsets.UTF_8);
        Message m = map(mapper, record(HEX.parseHex("6bff"), valid));
        assertThat(payload(m)).isEqualTo("{\"k\uFFFD\":\"grüße € 😀 \\u0001\\\"\"}");
        Metadata md = m.metadata();
        assertThat(md.key(0)).isEqualTo("k\uFFFD");
        assertThat(md.getString("k\uFFFD")).isEqualTo("grüße € 😀 \u0001\"");
        assertThat(mapper.invalidUtf8()).isEqualTo(2); // the key, in the payload and in the metadata
    }

    @Test
    void payloadKeyStringsAreReplacedAndBinPassesAsItCame() throws Exception {
        RecordMapper mapper = new RecordMapper(RecordMapper.PayloadMode.JSON, "log", false, "");
        Message m = map(mapper, record("log".getBytes(StandardCharsets.UTF_8), HEX.parseHex("41f5")));
        assertThat(payload(m)).isEqualTo("A\uFFFD");
        MsgPackWriter w = new MsgPackWriter();
        w.writeMapHeader(1);
        w.writeString("log");
        w.writeBin(new byte[] {0x41, (byte) 0xf5}, 0, 2);
        byte[] bin = w.toByteArray();
        Message raw = map(mapper, bin);
        assertThat(Arrays.copyOf(raw.payload(), raw.length())).containsExactly(0x41, 0xf5);
    }

    @Test
    void randomBytesAlwaysGiveValidJsonAndMatchTheReferenceReplacement() throws Exception {
        RecordMapper mapper = new RecordMapper(RecordMapper.PayloadMode.JSON, "", true, "");
        Random rnd = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            byte[] value = new byte[rnd.nextInt(12)];
            for (int j = 0; j < value.length; j++) {
                // Mostly high bytes, where the cases are.
                value[j] = (byte) (rnd.nextInt(4) == 0 ? rnd.nextInt(128) : 0x80 + rnd.nextInt(128));
            }
            Message m = map(mapper, record("k".getBytes(StandardCharsets.UTF_8), value));
            String json = payload(m); // strict: throws on invalid UTF-8
            String expected = Utf8Reference.decode(value);
            Metadata md = m.metadata();
            assertThat(strict(md.arena(), md.valueOffset(0), md.valueLength(0))).as(HEX.formatHex(value))
                    .isEqualTo(expected);
            assertThat(json).startsWith("{\"k\":\"").endsWith("\"}");
        }
    }

    @Test
    void fourByteLimitsAndTruncations() throws Exception {
        RecordMapper mapper = new RecordMapper(RecordMapper.PayloadMode.JSON, "", false, "");
        // U+10FFFF is the last; F4 90 starts nothing; F0 80 would be overlong; a 4-byte sequence cut at its end.
        byte[] value = HEX.parseHex("f48fbfbf" + "f4908080" + "f08080" + "f09f98");
        String json = payload(map(mapper, record(new byte[] {'k'}, value)));
        assertThat(json).isEqualTo("{\"k\":\"\uDBFF\uDFFF" + "\uFFFD".repeat(4) + "\uFFFD".repeat(3) + "\uFFFD\"}");
        assertThat(Utf8Reference.decode(value)).isEqualTo("\uDBFF\uDFFF" + "\uFFFD".repeat(8));
    }


    @Test
    void theConnectionCountsReplacementsOnTheMetricsCounter() throws Exception {
        EmbeddedForward h = new EmbeddedForward();
        MsgPackWriter w = new MsgPackWriter();
        w.writeArrayHeader(4);
        w.writeString("bad.utf8");
        w.writeLong(1_700_000_000L);
        w.writeRaw(record("msg".getBytes(StandardCharsets.UTF_8), HEX.parseHex("6f6bfe")));
        w.writeMapHeader(0);
        byte[] frame = w.toByteArray();
        h.feed(frame, 0, frame.length);
        assertThat(h.ctx.events()).hasSize(1);
        assertThat(h.ctx.events().get(0).payload()).isEqualTo("{\"msg\":\"ok\uFFFD\"}");
        assertThat(h.ctx.events().get(0).fields().get("msg")).isEqualTo("ok\uFFFD");
        assertThat(h.counter("sluice_invalid_utf8_total")).isEqualTo(1);
    }
}
