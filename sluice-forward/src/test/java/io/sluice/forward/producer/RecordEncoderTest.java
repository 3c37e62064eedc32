package io.sluice.forward.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.forward.codec.MsgPackReader;
import io.sluice.forward.codec.MsgPackWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Messages to Forward records: metadata kinds map back to msgpack types, nested JSON back to maps and arrays. */
class RecordEncoderTest {
    private static Message message() {
        Batch b = new BatchPool(1).acquire();
        return b.add();
    }

    private static void set(Message m, String k, String v, byte kind) {
        m.metadata().set(k.getBytes(StandardCharsets.UTF_8), v.getBytes(StandardCharsets.UTF_8), kind);
    }

    private static Map<String, Object> decode(MsgPackWriter w) throws Exception {
        return new MsgPackReader().reset(w.array(), 0, w.size(), 0).readMap();
    }

    @Test
    void metadataKeepsItsKinds() throws Exception {
        Message m = message();
        set(m, "s", "text \"quoted\"", Metadata.STRING);
        set(m, "i", "-42", Metadata.NUMBER);
        set(m, "big", "123456789012345678901", Metadata.NUMBER);
        set(m, "f", "2.5e3", Metadata.NUMBER);
        set(m, "b", "true", Metadata.BOOLEAN);
        set(m, "n", "null", Metadata.NULL);
        set(m, "j", "{\"a\":[1,\"x\\n\\u00e9\\ud83d\\ude00\",{\"b\":null}],\"c\":false}", Metadata.JSON);
        set(m, "bad", "{not json", Metadata.JSON);
        RecordEncoder e = new RecordEncoder(RecordEncoder.Source.AUTO, "message");
        assertThat(e.encode(m)).isTrue();
        Map<String, Object> r = decode(e.writer());
        assertThat(r).containsEntry("s", "text \"quoted\"").containsEntry("i", -42L).containsEntry("f", 2500.0)
                .containsEntry("big", 1.2345678901234568E20).containsEntry("b", true).containsEntry("n", null)
                .containsEntry("bad", "{not json");
        java.util.Map<String, Object> inner = new java.util.LinkedHashMap<>();
        inner.put("b", null);
        assertThat(r.get("j")).isEqualTo(Map.of("a", List.of(1L, "x\n\u00e9\uD83D\uDE00", inner), "c", false));
    }

    @Test
    void payloadWhenThereIsNoMetadata() throws Exception {
        Message m = message();
        m.setPayload("a line\n");
        RecordEncoder e = new RecordEncoder(RecordEncoder.Source.AUTO, "log");
        e.encode(m);
        assertThat(decode(e.writer())).isEqualTo(Map.of("log", "a line"));
    }

    @Test
    void msgpackPayloadMustBeAMap() {
        Message m = message();
        m.setPayload(new byte[] {(byte) 0x91, 1});
        assertThat(new RecordEncoder(RecordEncoder.Source.MSGPACK, "x").encode(m)).isFalse();
        m.setPayload(new byte[] {(byte) 0x81, (byte) 0xa1, 'k', 1});
        assertThat(new RecordEncoder(RecordEncoder.Source.MSGPACK, "x").encode(m)).isTrue();
    }
}
