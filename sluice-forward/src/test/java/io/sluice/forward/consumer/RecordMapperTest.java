package io.sluice.forward.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.forward.codec.KeyCache;
import io.sluice.forward.codec.MsgPackWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Forward records to payload and metadata. */
class RecordMapperTest {
    private static byte[] record(Map<String, Object> r) {
        MsgPackWriter w = new MsgPackWriter();
        w.writeRecord(r, new KeyCache());
        return w.toByteArray();
    }

    private static Map<String, Object> sample() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("msg", "line\t\"1\"\u0001é");
        r.put("n", -7);
        r.put("big", Long.MAX_VALUE);
        r.put("f", 1.5);
        r.put("whole", 3.0);
        r.put("ok", false);
        r.put("nil", null);
        r.put("nested", Map.of("a", List.of(1, "b")));
        return r;
    }

    @Test
    void jsonPayloadAndTypedMetadata() {
        byte[] rec = record(sample());
        Message m = new BatchPool(1).acquire().add();
        new RecordMapper(RecordMapper.PayloadMode.JSON, "", true, "").map(rec, 0, rec.length, -1, 0, m);
        assertThat(m.payloadString()).isEqualTo("{\"msg\":\"line\\t\\\"1\\\"\\u0001é\",\"n\":-7,\"big\":9223372036854775807,"
                + "\"f\":1.5,\"whole\":3.0,\"ok\":false,\"nil\":null,\"nested\":{\"a\":[1,\"b\"]}}");
        Metadata md = m.metadata();
        assertThat(md.getString("msg")).isEqualTo("line\t\"1\"\u0001é");
        assertThat(md.kind(md.indexOf("msg"))).isEqualTo(Metadata.STRING);
        assertThat(md.getString("n")).isEqualTo("-7");
        assertThat(md.kind(md.indexOf("n"))).isEqualTo(Metadata.NUMBER);
        assertThat(md.kind(md.indexOf("ok"))).isEqualTo(Metadata.BOOLEAN);
        assertThat(md.kind(md.indexOf("nil"))).isEqualTo(Metadata.NULL);
        assertThat(md.getString("nested")).isEqualTo("{\"a\":[1,\"b\"]}");
        assertThat(md.kind(md.indexOf("nested"))).isEqualTo(Metadata.JSON);
    }

    @Test
    void payloadKeyAndMsgpackModes() {
        byte[] rec = record(sample());
        Message m = new BatchPool(1).acquire().add();
        new RecordMapper(RecordMapper.PayloadMode.JSON, "msg", false, "").map(rec, 0, rec.length, -1, 0, m);
        assertThat(m.payloadString()).isEqualTo("line\t\"1\"\u0001é");
        assertThat(m.hasMetadata()).isFalse();
        new RecordMapper(RecordMapper.PayloadMode.JSON, "nested", false, "").map(rec, 0, rec.length, -1, 0, m);
        assertThat(m.payloadString()).isEqualTo("{\"a\":[1,\"b\"]}");
        new RecordMapper(RecordMapper.PayloadMode.MSGPACK, "absent", false, "").map(rec, 0, rec.length, -1, 0, m);
        assertThat(java.util.Arrays.copyOf(m.payload(), m.length())).isEqualTo(rec);
    }

    @Test
    void eventMetadataGoesUnderItsPrefix() {
        byte[] rec = record(Map.of("log", "a line"));
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("source", "tail");
        meta.put("n", 3);
        meta.put("otlp", Map.of("severity_number", 9));
        meta.put("log", "not the record's log");
        byte[] md = record(meta);
        // Record and metadata in one array, as the decoder hands them over.
        byte[] both = new byte[md.length + rec.length];
        System.arraycopy(md, 0, both, 0, md.length);
        System.arraycopy(rec, 0, both, md.length, rec.length);

        Message m = new BatchPool(1).acquire().add();
        new RecordMapper(RecordMapper.PayloadMode.JSON, "", true, "_meta.").map(both, md.length, rec.length, 0, md.length, m);
        Metadata f = m.metadata();
        assertThat(m.payloadString()).isEqualTo("{\"log\":\"a line\"}");
        assertThat(f.getString("log")).as("the record's field is not overwritten").isEqualTo("a line");
        assertThat(f.getString("_meta.log")).isEqualTo("not the record's log");
        assertThat(f.getString("_meta.source")).isEqualTo("tail");
        assertThat(f.kind(f.indexOf("_meta.n"))).isEqualTo(Metadata.NUMBER);
        assertThat(f.getString("_meta.n")).isEqualTo("3");
        assertThat(f.getString("_meta.otlp")).isEqualTo("{\"severity_number\":9}");
        assertThat(f.kind(f.indexOf("_meta.otlp"))).isEqualTo(Metadata.JSON);
        assertThat(f.size()).isEqualTo(5);

        // An empty prefix drops it; so does Metadata off; and an empty map adds nothing.
        Message dropped = new BatchPool(1).acquire().add();
        new RecordMapper(RecordMapper.PayloadMode.JSON, "", true, "").map(both, md.length, rec.length, 0, md.length, dropped);
        assertThat(dropped.metadata().size()).isEqualTo(1);
        Message off = new BatchPool(1).acquire().add();
        new RecordMapper(RecordMapper.PayloadMode.JSON, "", false, "_meta.").map(both, md.length, rec.length, 0, md.length, off);
        assertThat(off.hasMetadata()).isFalse();
        byte[] empty = {(byte) 0x80};
        Message none = new BatchPool(1).acquire().add();
        new RecordMapper(RecordMapper.PayloadMode.JSON, "", true, "fb.").map(rec, 0, rec.length, -1, 0, none);
        RecordMapper mapper = new RecordMapper(RecordMapper.PayloadMode.JSON, "", true, "fb.");
        byte[] withEmpty = new byte[1 + rec.length];
        withEmpty[0] = empty[0];
        System.arraycopy(rec, 0, withEmpty, 1, rec.length);
        Message emptyMeta = new BatchPool(1).acquire().add();
        mapper.map(withEmpty, 1, rec.length, 0, 1, emptyMeta);
        assertThat(none.metadata().size()).isEqualTo(1);
        assertThat(emptyMeta.metadata().size()).isEqualTo(1);
        assertThat(emptyMeta.metadata().getString("log")).isEqualTo("a line");
    }

    /** Records the JSON-then-metadata path must map as the field-by-field path does. */
    private static List<byte[]> awkwardRecords() {
        List<byte[]> out = new java.util.ArrayList<>();
        out.add(record(sample()));
        Map<String, Object> escapedKeys = new LinkedHashMap<>();
        escapedKeys.put("quote\"key", "v");
        escapedKeys.put("tab\tkey", "line\nbreak");
        escapedKeys.put("plain", "back\\slash");
        escapedKeys.put("é", "ü");
        escapedKeys.put("", "");
        out.add(record(escapedKeys));
        Map<String, Object> dup = new LinkedHashMap<>();
        dup.put("a", 1);
        out.add(record(dup));
        MsgPackWriter w = new MsgPackWriter();
        // Duplicate keys (last wins), a bin value, NaN, an EventTime, a key longer than 8 bytes, a long string.
        w.writeMapHeader(8);
        w.writeString("k");
        w.writeString("first");
        w.writeString("k");
        w.writeString("second");
        w.writeString("bin");
        w.writeBin("raw bytes\u0002".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, 10);
        w.writeString("nan");
        w.writeDouble(Double.NaN);
        w.writeString("time");
        w.writeEventTime(1_700_000_000L, 5);
        w.writeString("a_rather_long_key_name");
        w.writeLong(Long.MIN_VALUE);
        w.writeString("long");
        w.writeString("x".repeat(300) + "\"" + "y".repeat(40));
        w.writeString("arr");
        w.writeArrayHeader(2);
        w.writeBoolean(true);
        w.writeNil();
        out.add(w.toByteArray());
        // A non-string key: the JSON path falls back to the field-by-field one.
        MsgPackWriter n = new MsgPackWriter();
        n.writeMapHeader(2);
        n.writeLong(5);
        n.writeString("five");
        n.writeString("s");
        n.writeString("t");
        out.add(n.toByteArray());
        return out;
    }

    private static Map<String, String> fields(Metadata md) {
        Map<String, String> f = new LinkedHashMap<>();
        for (int i = 0; i < md.size(); i++) {
            f.put(md.key(i), md.kind(i) + ":" + md.value(i));
        }
        return f;
    }

    @Test
    void metadataFromTheJsonPayloadEqualsMetadataMappedFieldByField() {
        for (byte[] rec : awkwardRecords()) {
            Message json = new BatchPool(1).acquire().add();
            new RecordMapper(RecordMapper.PayloadMode.JSON, "", true, "").map(rec, 0, rec.length, -1, 0, json);
            Message fieldByField = new BatchPool(1).acquire().add();
            new RecordMapper(RecordMapper.PayloadMode.MSGPACK, "", true, "")
                    .map(rec, 0, rec.length, -1, 0, fieldByField);
            assertThat(fields(json.metadata())).isEqualTo(fields(fieldByField.metadata())).isNotEmpty();
            // Keys and plain values are held as JSON text that needs no escaping: writers copy them as they are.
            Metadata md = json.metadata();
            for (int i = 0; i < md.size(); i++) {
                if (md.isKeyRaw(i)) {
                    assertThat(md.key(i)).doesNotContain("\"", "\\", "\n", "\t");
                }
            }
        }
    }

    @Test
    void scratchThatGrewForOneLargeRecordIsGivenBackByTrim() {
        long[] held = {0};
        io.sluice.forward.codec.BufferAllowance counting = new io.sluice.forward.codec.BufferAllowance() {
            @Override
            public void grow(long bytes) {
                held[0] += bytes;
            }

            @Override
            public void shrink(long bytes) {
                held[0] -= bytes;
            }
        };
        RecordMapper mapper = new RecordMapper(RecordMapper.PayloadMode.JSON, "", true, "");
        mapper.memory(counting, bytes -> { });
        // 100,000 top-level entries: the JSON scratch and the entry spans grow far past what is kept.
        MsgPackWriter w = new MsgPackWriter();
        w.writeMapHeader(100_000);
        for (int i = 0; i < 100_000; i++) {
            w.writeString("k" + i);
            w.writeLong(i);
        }
        byte[] rec = w.toByteArray();
        Message m = new BatchPool(1).acquire().add();
        mapper.map(rec, 0, rec.length, -1, 0, m);
        assertThat(m.metadata().size()).isEqualTo(100_000);
        assertThat(held[0]).as("grown for the record").isGreaterThan(RecordMapper.KEEP_BYTES);
        mapper.trim();
        assertThat(held[0]).as("kept after trim").isLessThanOrEqualTo(4096);
    }
}
