package io.sluice.otlp.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

class ProtoReaderTest {
    @Test
    void readsWhatProtobufWrites() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeUInt64(1, -1L);
        out.writeInt64(2, Long.MIN_VALUE);
        out.writeFixed64(3, 0x0102030405060708L);
        out.writeFixed32(4, 0xCAFEBABE);
        out.writeDouble(5, -2.5);
        out.writeString(6, "héllo");
        out.writeSInt32(7, -3);
        out.writeUInt32(536_870_911, 300); // the largest field number
        out.flush();
        byte[] b = bytes.toByteArray();
        ProtoReader r = new ProtoReader().reset(b, 0, b.length);
        assertThat(r.readTag()).isEqualTo(1 << 3);
        assertThat(r.readVarint()).isEqualTo(-1L);
        r.readTag();
        assertThat(r.readVarint()).isEqualTo(Long.MIN_VALUE);
        assertThat(ProtoReader.wireType(r.readTag())).isEqualTo(ProtoReader.I64);
        assertThat(r.readFixed64()).isEqualTo(0x0102030405060708L);
        assertThat(ProtoReader.wireType(r.readTag())).isEqualTo(ProtoReader.I32);
        assertThat(r.readFixed32()).isEqualTo(0xCAFEBABE);
        assertThat(r.double64(r.readTag())).isEqualTo(-2.5);
        assertThat(ProtoReader.field(r.readTag())).isEqualTo(6);
        int len = r.readLength();
        assertThat(new String(b, r.position(), len, java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("héllo");
        r.skipBytes(len);
        int t = r.readTag();
        r.skip(t);
        int last = r.readTag();
        assertThat(ProtoReader.field(last)).isEqualTo(536_870_911);
        assertThat(r.readVarint()).isEqualTo(300);
        assertThat(r.hasMore()).isFalse();
    }

    @Test
    void nestedLimitsBoundEveryRead() throws Exception {
        // A message of 2 bytes holding a varint that claims to continue past it.
        byte[] b = {0x0A, 0x02, 0x08, (byte) 0x80, 0x01};
        ProtoReader r = new ProtoReader().reset(b, 0, b.length);
        int old = r.enterMessage(r.readTag());
        r.readTag();
        assertThatThrownBy(r::readVarint).isInstanceOf(OtlpFormatException.class).hasMessage("truncated at byte 4");
        r.leave(old);
        assertThat(r.position()).isEqualTo(4);
        // Fixed-width values past the limit.
        ProtoReader s = new ProtoReader().reset(new byte[] {1, 2, 3}, 0, 3);
        assertThatThrownBy(s::readFixed32).isInstanceOf(OtlpFormatException.class).hasMessageContaining("truncated");
        assertThatThrownBy(s::readFixed64).isInstanceOf(OtlpFormatException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> s.skip(5 /* field 0, I32 */)).isInstanceOf(OtlpFormatException.class);
    }

    @Test
    void errorPositionsCountFromTheStartOfTheRequest() {
        byte[] b = {9, 9, 9, 0x0A, 0x05};
        ProtoReader r = new ProtoReader().reset(b, 3, 2);
        assertThatThrownBy(() -> r.skip(r.readTag())).isInstanceOf(OtlpFormatException.class)
                .hasMessageContaining("length 5 at byte 1 runs past the end");
    }
}
