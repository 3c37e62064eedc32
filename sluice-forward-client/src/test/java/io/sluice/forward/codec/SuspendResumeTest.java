package io.sluice.forward.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.forward.testutil.CollectingSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A sink (or the inflate buffer's allowance) that cannot take more now suspends the frame; {@link
 * ForwardDecoder#resume} continues with the event refused, so every event arrives once, in order.
 */
class SuspendResumeTest {
    /** Refuses the events whose index (counted over accepted ones) is in {@code refuseAt}, once each. */
    private static final class Refusing implements EventSink {
        final CollectingSink inner = new CollectingSink();
        final Set<Integer> refuseAt;
        final List<Integer> refused = new ArrayList<>();

        Refusing(Set<Integer> refuseAt) {
            this.refuseAt = refuseAt;
        }

        @Override
        public void onOptions(String chunk, long size, String compressed) {
            inner.onOptions(chunk, size, compressed);
        }

        @Override
        public void onEvent(String tag, long epochSeconds, int nanos, RecordView record) {
            int i = inner.events.size();
            if (refuseAt.contains(i) && !refused.contains(i)) {
                refused.add(i);
                throw DecodeSuspendedException.INSTANCE;
            }
            inner.onEvent(tag, epochSeconds, nanos, record);
        }
    }

    private static EventBatch events(int n) {
        EventBatch b = new EventBatch();
        for (int i = 0; i < n; i++) {
            b.add(1_700_000_000L + i, i, Map.of("id", i));
        }
        return b;
    }

    private static List<Object> ids(CollectingSink s) {
        return s.records().stream().map(r -> r.get("id")).toList();
    }

    /** Decodes with refusals at event 0, 3 and 9, resuming until done; returns the sink. */
    private static Refusing decodeWithRefusals(byte[] frame, int expectedSuspensions) throws Exception {
        ForwardDecoder d = new ForwardDecoder();
        Refusing sink = new Refusing(Set.of(0, 3, 9));
        int suspensions = 0;
        try {
            d.decode(frame, 0, frame.length, sink);
        } catch (DecodeSuspendedException e) {
            suspensions++;
        }
        while (d.suspended()) {
            try {
                d.resume(sink);
            } catch (DecodeSuspendedException e) {
                suspensions++;
            }
        }
        assertThat(suspensions).isEqualTo(expectedSuspensions);
        return sink;
    }

    @Test
    void packedForwardResumesAtTheRefusedEvent() throws Exception {
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().packed(out, "t", events(12), "c1");
        Refusing sink = decodeWithRefusals(out.toByteArray(), 3);
        assertThat(ids(sink.inner)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);
        assertThat(sink.inner.options).hasSize(1);
    }

    @Test
    void forwardModeResumesAtTheRefusedEvent() throws Exception {
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().forward(out, "t", events(10), "c2");
        Refusing sink = decodeWithRefusals(out.toByteArray(), 3);
        assertThat(ids(sink.inner)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    }

    @Test
    void compressedResumesAtTheRefusedEvent() throws Exception {
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().compressed(out, "t", events(11), "c3");
        Refusing sink = decodeWithRefusals(out.toByteArray(), 3);
        assertThat(ids(sink.inner)).hasSize(11).doesNotHaveDuplicates();
        assertThat(sink.inner.events.get(10).record().get("id")).isEqualTo(10L);
    }

    @Test
    void messageModeResumes() throws Exception {
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().message(out, "t", 1_700_000_000L, 5, Map.of("id", 0), "c4");
        Refusing sink = decodeWithRefusals(out.toByteArray(), 1);
        assertThat(ids(sink.inner)).containsExactly(0L);
        assertThat(sink.inner.events.get(0).nanos()).isEqualTo(5);
    }

    @Test
    void inflatingAsksTheAllowanceAndStartsOverUnseenWhenRefused() throws Exception {
        EventBatch b = new EventBatch();
        for (int i = 0; i < 2000; i++) {
            b.add(1_700_000_000L, 0, Map.of("id", i, "pad", "x".repeat(50)));
        }
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().compressed(out, "t", b, "c5");
        byte[] frame = out.toByteArray();
        long[] granted = {0};
        boolean[] refuse = {true};
        ForwardDecoder d = new ForwardDecoder();
        d.allowance(new BufferAllowance() {
            @Override
            public void grow(long bytes) {
                if (refuse[0]) {
                    throw DecodeSuspendedException.INSTANCE;
                }
                granted[0] += bytes;
            }

            @Override
            public void shrink(long bytes) {
                granted[0] -= bytes;
            }
        });
        CollectingSink sink = new CollectingSink();
        assertThatThrownBy(() -> d.decode(frame, 0, frame.length, sink)).isSameAs(DecodeSuspendedException.INSTANCE);
        assertThat(sink.options).as("the sink heard nothing of the refused frame").isEmpty();
        assertThat(d.suspended()).isTrue();
        refuse[0] = false;
        assertThat(d.resume(sink)).isEqualTo(2000);
        assertThat(sink.options).hasSize(1);
        assertThat(sink.events).hasSize(2000);
        assertThat(granted[0]).as("every growth was asked for").isEqualTo(d.inflateCapacity() - 4096);
        d.trim();
        assertThat(granted[0]).as("kept: below the trim size").isEqualTo(d.inflateCapacity() - 4096);
    }

    @Test
    void theInflateBufferIsSizedFromTheGzipTrailerAtOnce() throws Exception {
        EventBatch b = new EventBatch();
        for (int i = 0; i < 5000; i++) {
            b.add(1_700_000_000L, 0, Map.of("id", i, "pad", "z".repeat(100)));
        }
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().compressed(out, "t", b, null);
        byte[] frame = out.toByteArray();
        List<Long> grows = new ArrayList<>();
        ForwardDecoder d = new ForwardDecoder();
        d.allowance(new BufferAllowance() {
            @Override
            public void grow(long bytes) {
                grows.add(bytes);
            }

            @Override
            public void shrink(long bytes) {
            }
        });
        CollectingSink sink = new CollectingSink();
        d.decode(frame, 0, frame.length, sink);
        assertThat(sink.events).hasSize(5000);
        assertThat(grows).as("one growth, to the inflated size").hasSize(1);
        assertThat(grows.get(0) + 4096).isEqualTo(d.inflateCapacity());
    }

    @Test
    void aBigInflateBufferIsTrimmedAndItsGrowthGivenBack() throws Exception {
        EventBatch b = new EventBatch();
        for (int i = 0; i < 40; i++) {
            b.add(1_700_000_000L, 0, Map.of("pad", "y".repeat(100_000)));
        }
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().compressed(out, "t", b, null);
        byte[] frame = out.toByteArray();
        long[] granted = {0};
        ForwardDecoder d = new ForwardDecoder(64L << 20);
        d.allowance(new BufferAllowance() {
            @Override
            public void grow(long bytes) {
                granted[0] += bytes;
            }

            @Override
            public void shrink(long bytes) {
                granted[0] -= bytes;
            }
        });
        d.decode(frame, 0, frame.length, new CollectingSink());
        assertThat(granted[0]).isGreaterThan(ForwardDecoder.INFLATE_KEEP);
        d.trim();
        assertThat(granted[0]).isZero();
        assertThat(d.inflateCapacity()).isEqualTo(4096);
    }

    @Test
    void inflatingBeyondTheLimitIsPayloadTooLarge() {
        byte[] zeros = new byte[1 << 20];
        MsgPackWriter gz = new MsgPackWriter();
        new Gzip().compress(zeros, 0, zeros.length, gz);
        MsgPackWriter w = new MsgPackWriter();
        w.writeArrayHeader(3);
        w.writeString("t");
        w.writeBin(gz.array(), 0, gz.size());
        w.writeMapHeader(1);
        w.writeString("compressed");
        w.writeString("gzip");
        byte[] frame = w.toByteArray();
        assertThatThrownBy(() -> new ForwardDecoder(65536).decode(frame, 0, frame.length, new CollectingSink()))
                .isInstanceOf(PayloadTooLargeException.class)
                .hasMessageContaining("inflates to more than 65536 bytes")
                .satisfies(e -> assertThat(((PayloadTooLargeException) e).maxBytes()).isEqualTo(65536));
    }

    @Test
    void theScannerTellsWhatAFrameNeedsFromItsHeaders() throws Exception {
        // [ "t", bin32 of 300,000 bytes ...: the first 9 bytes say the frame needs at least 300,009 bytes.
        byte[] head = {(byte) 0x92, (byte) 0xa1, 't', (byte) 0xc6, 0x00, 0x04, (byte) 0x93, (byte) 0xe0};
        FrameScanner s = new FrameScanner(1 << 20);
        assertThat(s.minFrameBytes()).isZero();
        assertThat(s.scan(head, 0, head.length)).isEqualTo(-1);
        assertThat(s.minFrameBytes()).isEqualTo(3 + 5 + 300_000);
        s.reset();
        assertThat(s.minFrameBytes()).isZero();
    }
}
