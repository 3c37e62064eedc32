package io.sluice.forward.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.Captured;
import io.sluice.forward.codec.EventSink;
import io.sluice.forward.codec.ForwardDecoder;
import io.sluice.forward.codec.FrameScanner;
import io.sluice.forward.codec.RecordView;
import io.sluice.forward.testutil.Vectors;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fluent Bit 5.1.1's own bytes through consumer.Forward's Netty pipeline, split at every byte offset and fed one
 * byte at a time: each split yields exactly the two events Fluent Bit sent, and the compressed capture's chunk is
 * acknowledged exactly once, after the events were published.
 */
class FluentBitVectorsTest {
    private static final String RECORD_JSON = "{\"message\":\"hello forward\",\"level\":\"info\",\"n\":7}";

    @ParameterizedTest
    @ValueSource(strings = {"forward-mode-eventtime-meta.bin", "compressed-packed-forward-ack.bin",
            "forward-mode-int-time-compat.bin"})
    void everySplitDecodesBothEventsAndAcksTheChunk(String file) throws Exception {
        byte[] bytes = Vectors.read("fluent-bit/forward/" + file);
        List<String> chunks = chunksIn(bytes);
        for (int split = 0; split <= bytes.length; split++) {
            EmbeddedForward h = new EmbeddedForward();
            if (split > 0) {
                h.feed(bytes, 0, split);
            }
            if (split < bytes.length) {
                h.feed(bytes, split, bytes.length - split);
            }
            check(h, chunks, "split at " + split);
        }
        EmbeddedForward oneByOne = new EmbeddedForward();
        for (int i = 0; i < bytes.length; i++) {
            oneByOne.feed(bytes, i, 1);
        }
        check(oneByOne, chunks, "one byte per read");
    }

    private static void check(EmbeddedForward h, List<String> chunks, String how) {
        assertThat(h.ctx.events()).as(how).hasSize(2);
        for (Captured e : h.ctx.events()) {
            assertThat(e.tag()).as(how).isEqualTo("dummy.fwd");
            assertThat(e.stream()).as(how).isEqualTo("dummy.fwd");
            assertThat(e.payload()).as(how).isEqualTo(RECORD_JSON);
            java.util.LinkedHashMap<String, String> expected = new java.util.LinkedHashMap<>();
            expected.put("message", "hello forward");
            expected.put("level", "info");
            expected.put("n", "7");
            assertThat(e.fields()).as(how).containsExactlyEntriesOf(expected);
            assertThat(e.timestamp()).as(how).isGreaterThan(1_600_000_000L * 1_000_000_000L);
        }
        assertThat(h.outbound()).as(how).isEqualTo(acks(chunks));
        assertThat(h.ctx.pool().outstanding()).as(how + ": every batch back in the pool").isZero();
        h.channel.finishAndReleaseAll();
    }

    /** The chunk ids the capture asks to be acknowledged, read with the client's decoder. */
    static List<String> chunksIn(byte[] bytes) throws Exception {
        List<String> chunks = new ArrayList<>();
        ForwardDecoder d = new ForwardDecoder();
        int at = 0;
        while (at < bytes.length) {
            int len = new FrameScanner(1 << 20).scan(bytes, at, bytes.length - at);
            d.decode(bytes, at, len, new EventSink() {
                @Override
                public void onOptions(String chunk, long size, String compressed) {
                    if (chunk != null) {
                        chunks.add(chunk);
                    }
                }

                @Override
                public void onEvent(String tag, long s, int n, RecordView r) {
                }
            });
            at += len;
        }
        return chunks;
    }

    static byte[] acks(List<String> chunks) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String c : chunks) {
            byte[] id = c.getBytes(StandardCharsets.UTF_8);
            out.writeBytes(new byte[] {(byte) 0x81, (byte) 0xa3, 'a', 'c', 'k'});
            out.write(id.length < 32 ? 0xa0 | id.length : 0xd9);
            if (id.length >= 32) {
                out.write(id.length);
            }
            out.writeBytes(id);
        }
        return out.toByteArray();
    }
}
