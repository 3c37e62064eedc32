package io.sluice.forward.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

class MsgPackReaderTest {

    @Test
    void decodesWhatMsgpackCoreEncodes() throws Exception {
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packMapHeader(9);
        p.packString("i").packInt(-5);
        p.packString("big").packBigInteger(new BigInteger("18446744073709551615"));
        p.packString("d").packDouble(0.25);
        p.packString("f").packFloat(0.5f);
        p.packString("s").packString("日本");
        p.packString("b").packBinaryHeader(2).writePayload(new byte[] {9, 8});
        p.packString("a").packArrayHeader(2).packNil().packBoolean(false);
        p.packString("t").packExtensionTypeHeader((byte) 0, 8).writePayload(new byte[] {0, 0, 0, 1, 0, 0, 0, 2});
        p.packInt(42).packString("non-string key");
        byte[] bytes = p.toByteArray();

        Map<String, Object> m = new MsgPackReader().reset(bytes, 0, bytes.length, 0).readMap();

        assertThat(m).containsEntry("i", -5L)
                .containsEntry("big", new BigInteger("18446744073709551615"))
                .containsEntry("d", 0.25)
                .containsEntry("f", 0.5f)
                .containsEntry("s", "日本")
                .containsEntry("a", Arrays.asList(null, false))
                .containsEntry("t", new EventTime(1, 2))
                .containsEntry("42", "non-string key");
        assertThat((byte[]) m.get("b")).containsExactly(9, 8);
    }

    @Test
    void skipValueIsIterativeForDeepNesting() throws Exception {
        MsgPackWriter w = new MsgPackWriter();
        for (int i = 0; i < 100_000; i++) {
            w.writeArrayHeader(1);
        }
        w.writeNil();
        MsgPackReader r = new MsgPackReader().reset(w.array(), 0, w.size(), 0);
        r.skipValue();
        assertThat(r.hasRemaining()).isFalse();
        MsgPackReader deep = new MsgPackReader().reset(w.array(), 0, w.size(), 0);
        assertThatThrownBy(deep::readValue).isInstanceOf(ForwardProtocolException.class)
                .hasMessageContaining("nested deeper");
    }

    @Test
    void errorsCarryTheOffset() {
        byte[] b = {(byte) 0x92, 0x01, (byte) 0xd9, 0x05, 'a'};
        MsgPackReader r = new MsgPackReader().reset(b, 0, b.length, 100);
        assertThatThrownBy(r::readValue).isInstanceOfSatisfying(ForwardProtocolException.class,
                e -> assertThat(e.offset()).isEqualTo(104)).hasMessageContaining("truncated");
    }

    @Test
    void readsLists() throws Exception {
        MsgPackWriter w = new MsgPackWriter();
        w.writeValue(List.of(1, "two", List.of(3.0)), new KeyCache());
        Object v = new MsgPackReader().reset(w.array(), 0, w.size(), 0).readValue();
        assertThat(v).isEqualTo(List.of(1L, "two", List.of(3.0)));
    }
}
