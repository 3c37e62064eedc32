package io.sluice.forward.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.forward.testutil.CollectingSink;
import io.sluice.forward.testutil.Vectors;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Real Fluent Bit 5.1.1 captures (test resources, vectors/README.md): each must decode to exactly the two
 * dummy events {@code {"message":"hello forward","level":"info","n":7}} tagged {@code dummy.fwd}.
 */
class FluentBitVectorsTest {
    private static final Map<String, Object> RECORD =
            Map.of("message", "hello forward", "level", "info", "n", 7L);

    private static CollectingSink decode(String file, ForwardMode expectedMode) throws Exception {
        byte[] stream = Vectors.read("fluent-bit/forward/" + file);
        CollectingSink sink = new CollectingSink();
        try (ForwardStreamDecoder dec = new ForwardStreamDecoder(1 << 20)) {
            assertThat(dec.feed(stream, 0, stream.length, sink)).isEqualTo(1);
            assertThat(dec.buffered()).isZero();
            assertThat(dec.decoder().lastMode()).isEqualTo(expectedMode);
        }
        assertThat(sink.events).hasSize(2);
        for (CollectingSink.Event e : sink.events) {
            assertThat(e.tag()).isEqualTo("dummy.fwd");
            assertThat(e.record()).isEqualTo(RECORD);
        }
        return sink;
    }

    @Test
    void forwardModeWithEventTimeAndMetadata() throws Exception {
        CollectingSink sink = decode("forward-mode-eventtime-meta.bin", ForwardMode.FORWARD);
        assertThat(sink.options).containsExactly(new CollectingSink.Options(null, -1, null));
        CollectingSink.Event first = sink.events.get(0);
        assertThat(first.seconds()).isEqualTo(0x6b0cd713L);
        assertThat(first.nanos()).isEqualTo(0x09b21190);
        assertThat(first.metadata()).isEmpty();
        assertThat(sink.events.get(1).seconds()).isEqualTo(0x6b0cd713L);
        assertThat(sink.events.get(1).nanos()).isEqualTo(0x09b2a10f);
        assertThat(sink.events.get(1).metadata()).isNotNull();
    }

    @Test
    void compressedPackedForwardWithAckChunk() throws Exception {
        CollectingSink sink = decode("compressed-packed-forward-ack.bin",
                ForwardMode.COMPRESSED_PACKED_FORWARD);
        assertThat(sink.options).containsExactly(
                new CollectingSink.Options("0zvGZLNAvJTrwdxiF0ASaw==", 2, "gzip"));
        assertThat(sink.events).allSatisfy(e -> assertThat(e.chunk()).isEqualTo("0zvGZLNAvJTrwdxiF0ASaw=="));
    }

    @Test
    void forwardModeWithIntegerTimeAndOptions() throws Exception {
        CollectingSink sink = decode("forward-mode-int-time-compat.bin", ForwardMode.FORWARD);
        assertThat(sink.options).containsExactly(new CollectingSink.Options(null, 2, null));
        assertThat(sink.events).allSatisfy(e -> {
            assertThat(e.seconds()).isEqualTo(0x6b0cd71dL);
            assertThat(e.nanos()).isZero();
            assertThat(e.metadata()).isNull();
        });
    }
}
