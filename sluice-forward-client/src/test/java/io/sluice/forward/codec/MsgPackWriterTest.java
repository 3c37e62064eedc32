package io.sluice.forward.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

class MsgPackWriterTest {

    private static String hex(Consumer<MsgPackWriter> write) {
        MsgPackWriter w = new MsgPackWriter(16);
        write.accept(w);
        return HexFormat.of().formatHex(w.toByteArray());
    }

    @ParameterizedTest
    @CsvSource({
        "0, 00", "127, 7f", "128, cc80", "255, ccff", "256, cd0100", "65535, cdffff",
        "65536, ce00010000", "4294967295, ceffffffff", "4294967296, cf0000000100000000",
        "-1, ff", "-32, e0", "-33, d0df", "-128, d080", "-129, d1ff7f", "-32768, d18000",
        "-32769, d2ffff7fff", "-2147483648, d280000000", "-2147483649, d3ffffffff7fffffff",
        "9223372036854775807, cf7fffffffffffffff"
    })
    void integersUseTheShortestForm(long v, String expected) {
        assertThat(hex(w -> w.writeLong(v))).isEqualTo(expected);
    }

    @Test
    void scalars() {
        assertThat(hex(MsgPackWriter::writeNil)).isEqualTo("c0");
        assertThat(hex(w -> w.writeBoolean(true))).isEqualTo("c3");
        assertThat(hex(w -> w.writeBoolean(false))).isEqualTo("c2");
        assertThat(hex(w -> w.writeDouble(1.5))).isEqualTo("cb3ff8000000000000");
        assertThat(hex(w -> w.writeFloat(1.5f))).isEqualTo("ca3fc00000");
        assertThat(hex(w -> w.writeEventTime(1, 2))).isEqualTo("d7000000000100000002");
        assertThat(hex(w -> w.writeEventTime(0xffffffffL, 999_999_999)))
                .isEqualTo("d700ffffffff3b9ac9ff");
    }

    @Test
    void strings() {
        assertThat(hex(w -> w.writeString(""))).isEqualTo("a0");
        assertThat(hex(w -> w.writeString("abc"))).isEqualTo("a3616263");
        assertThat(hex(w -> w.writeString("é"))).isEqualTo("a2c3a9");
        assertThat(hex(w -> w.writeString("€"))).isEqualTo("a3e282ac");
        // U+0141's low byte is 'A': a writer that looked only at low bytes would take it for ASCII.
        assertThat(hex(w -> w.writeString("Ł"))).isEqualTo("a2c581");
        assertThat(hex(w -> w.writeString("ab\u00ff"))).isEqualTo("a46162c3bf");
        assertThat(hex(w -> w.writeString("\uD83D\uDE00"))).isEqualTo("a4f09f9880");
        assertThat(hex(w -> w.writeString("\uD800x"))).isEqualTo("a23f78"); // lone surrogate
        assertThat(hex(w -> w.writeString("a".repeat(31)))).startsWith("bf61");
        assertThat(hex(w -> w.writeString("a".repeat(32)))).startsWith("d92061");
        assertThat(hex(w -> w.writeString("a".repeat(256)))).startsWith("da010061");
        assertThat(hex(w -> w.writeString("a".repeat(65536)))).startsWith("db0001000061");
    }

    @Test
    void containersAndBinary() {
        assertThat(hex(w -> w.writeArrayHeader(15))).isEqualTo("9f");
        assertThat(hex(w -> w.writeArrayHeader(16))).isEqualTo("dc0010");
        assertThat(hex(w -> w.writeArrayHeader(65536))).isEqualTo("dd00010000");
        assertThat(hex(w -> w.writeMapHeader(15))).isEqualTo("8f");
        assertThat(hex(w -> w.writeMapHeader(16))).isEqualTo("de0010");
        assertThat(hex(w -> w.writeBin(new byte[] {1, 2, 3}, 0, 3))).isEqualTo("c403010203");
        assertThat(hex(w -> w.writeBinHeader(256))).isEqualTo("c50100");
        assertThat(hex(w -> w.writeBinHeader(65536))).isEqualTo("c600010000");
        assertThat(hex(w -> w.writeExtHeader(5, 3))).isEqualTo("c70305");
        assertThat(hex(w -> w.writeExtHeader(5, 16))).isEqualTo("d805");
    }

    @Test
    void recordKeysComeFromTheCacheAndMatchDirectEncoding() {
        KeyCache keys = new KeyCache();
        Map<String, Object> rec = new LinkedHashMap<>();
        rec.put("message", "hi");
        rec.put("n", 7);
        String first = hex(w -> w.writeRecord(rec, keys));
        String second = hex(w -> w.writeRecord(rec, keys));
        assertThat(first).isEqualTo("82a76d657373616765a26869a16e07").isEqualTo(second);
        assertThat(keys.lookup("message")).isEqualTo(KeyCache.encode("message"));
    }

    @Test
    void keyCacheIsBounded() {
        KeyCache keys = new KeyCache(2);
        keys.lookup("a");
        keys.lookup("b");
        assertThat(keys.lookup("c")).isNull();
        assertThat(hex(w -> w.writeString("c", keys))).isEqualTo("a163");
    }

    @Test
    void growsAndTruncates() {
        MsgPackWriter w = new MsgPackWriter(16);
        for (int i = 0; i < 1000; i++) {
            w.writeString("x");
        }
        assertThat(w.size()).isEqualTo(2000);
        w.truncate(10);
        assertThat(w.size()).isEqualTo(10);
        w.clear();
        assertThat(w.size()).isZero();
        assertThat(w.capacity()).isGreaterThanOrEqualTo(2000);
    }

    /** msgpack-core is an independent encoder: our bytes must equal its bytes for the same values. */
    @Test
    void matchesMsgpackCoreForManyValues() throws Exception {
        List<Object> values = new ArrayList<>();
        long[] ints = {0, 1, 31, 127, 128, 255, 256, 65535, 65536, (1L << 32) - 1, 1L << 32, Long.MAX_VALUE,
                -1, -32, -33, -128, -129, -32768, -32769, Integer.MIN_VALUE, Integer.MIN_VALUE - 1L, Long.MIN_VALUE};
        for (long v : ints) {
            values.add(v);
        }
        for (int len : new int[] {0, 1, 31, 32, 255, 256, 65535, 65536}) {
            values.add("é".repeat(len / 2) + "a".repeat(len % 2));
            values.add("x".repeat(len));
            values.add("x".repeat(len) + "Ł"); // ASCII up to the last char: written as ASCII, then redone
        }
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        MsgPackWriter w = new MsgPackWriter();
        for (Object v : values) {
            if (v instanceof Long l) {
                p.packLong(l);
                w.writeLong(l);
            } else {
                p.packString((String) v);
                w.writeString((String) v);
            }
        }
        for (int n : new int[] {0, 15, 16, 65535, 65536}) {
            p.packArrayHeader(n).packMapHeader(n).packBinaryHeader(n);
            w.writeArrayHeader(n);
            w.writeMapHeader(n);
            w.writeBinHeader(n);
        }
        p.packDouble(Math.PI).packFloat(2.5f).packNil().packBoolean(true);
        w.writeDouble(Math.PI);
        w.writeFloat(2.5f);
        w.writeNil();
        w.writeBoolean(true);
        p.packBigInteger(new BigInteger("18446744073709551615"));
        w.writeValue(new BigInteger("18446744073709551615"), new KeyCache());
        assertThat(Arrays.equals(w.toByteArray(), p.toByteArray())).isTrue();
    }
}
