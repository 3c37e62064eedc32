package io.sluice.forward.server;

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
        new RecordMapper(RecordMapper.PayloadMode.JSON, "", true).map(rec, 0, rec.length, m);
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
        new RecordMapper(RecordMapper.PayloadMode.JSON, "msg", false).map(rec, 0, rec.length, m);
        assertThat(m.payloadString()).isEqualTo("line\t\"1\"\u0001é");
        assertThat(m.hasMetadata()).isFalse();
        new RecordMapper(RecordMapper.PayloadMode.JSON, "nested", false).map(rec, 0, rec.length, m);
        assertThat(m.payloadString()).isEqualTo("{\"a\":[1,\"b\"]}");
        new RecordMapper(RecordMapper.PayloadMode.MSGPACK, "absent", false).map(rec, 0, rec.length, m);
        assertThat(java.util.Arrays.copyOf(m.payload(), m.length())).isEqualTo(rec);
    }
}
