package io.sluice.forward.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.codec.ForwardEncoder;
import io.sluice.forward.codec.MsgPackWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A chunk sent again after its ack was lost, on the same or another connection, through consumer.Forward's
 * Netty handlers on embedded channels (publishing on the test's thread): acked again, delivered once.
 */
class DuplicateChunkTest {
    private static byte[] frame(String chunk, int events, int firstId) {
        EventBatch b = new EventBatch();
        for (int i = firstId; i < firstId + events; i++) {
            b.add(1_700_000_000L + i, i, Map.of("id", i));
        }
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().packed(out, "dup.tag", b, chunk);
        return out.toByteArray();
    }

    private static void feed(EmbeddedForward h, EmbeddedChannel ch, byte[] frame) {
        h.feed(ch, frame, 0, frame.length);
    }

    private static byte[] ack(String... chunks) {
        return FluentBitVectorsTest.acks(List.of(chunks));
    }

    private static List<String> ids(EmbeddedForward h) {
        return h.ctx.events().stream().map(e -> e.fields().get("id")).toList();
    }

    @Test
    void aChunkResentOnANewConnectionIsAckedButDeliveredOnce() {
        EmbeddedForward h = new EmbeddedForward();
        byte[] a = frame("chunk-a", 3, 0);
        feed(h, h.channel, a);
        assertThat(h.outbound(h.channel)).isEqualTo(ack("chunk-a"));
        assertThat(ids(h)).containsExactly("0", "1", "2");
        // The client never saw that ack, reconnects and sends the chunk again.
        EmbeddedChannel second = h.connect();
        feed(h, second, a);
        assertThat(h.outbound(second)).as("the copy is acked").isEqualTo(ack("chunk-a"));
        assertThat(ids(h)).as("and not delivered again").containsExactly("0", "1", "2");
        // On the same connection too, and mixed with a new chunk in one read.
        byte[] b = frame("chunk-b", 2, 10);
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        feed(h, second, both);
        assertThat(h.outbound(second)).isEqualTo(ack("chunk-a", "chunk-b"));
        assertThat(ids(h)).containsExactly("0", "1", "2", "10", "11");
        assertThat(h.counter("sluice_forward_duplicate_chunks_total")).isEqualTo(2);
        assertThat(h.counter("sluice_forward_duplicate_events_total")).isEqualTo(6);
        assertThat(h.ctx.pool().outstanding()).isZero();
    }

    @Test
    void aCopyArrivingWhileTheFirstIsStillInTheProducersIsAckedWithTheFirst() {
        EmbeddedForward h = new EmbeddedForward();
        h.ctx.hold(true); // the producers keep the batches: the first copy is in flight
        byte[] a = frame("slow-chunk", 4, 0);
        feed(h, h.channel, a);
        EmbeddedChannel second = h.connect();
        feed(h, second, a);
        assertThat(h.outbound(h.channel)).as("nothing taken yet, nothing acked").isEmpty();
        assertThat(h.outbound(second)).isEmpty();
        assertThat(h.ctx.events()).hasSize(4);
        h.ctx.hold(false);
        h.releaseHeld(); // the producers took the first copy
        assertThat(h.outbound(h.channel)).isEqualTo(ack("slow-chunk"));
        assertThat(h.outbound(second)).as("the copy's connection gets the ack too").isEqualTo(ack("slow-chunk"));
        assertThat(h.ctx.events()).hasSize(4);
        assertThat(h.counter("sluice_forward_duplicate_chunks_total")).isEqualTo(1);
    }

    @Test
    void aChunkWhoseFirstCopyFailedHalfWayIsDeliveredWhenResent() {
        EmbeddedForward h = new EmbeddedForward();
        // A Forward-mode frame whose second entry's record is not a map: the first event is rolled back, the
        // connection closed, and nothing may be remembered as accepted.
        MsgPackWriter w = new MsgPackWriter();
        w.writeArrayHeader(3);
        w.writeString("dup.tag");
        w.writeArrayHeader(2);
        w.writeArrayHeader(2);
        w.writeLong(1_700_000_000L);
        w.writeMapHeader(1);
        w.writeString("id");
        w.writeLong(0);
        w.writeArrayHeader(2);
        w.writeLong(1_700_000_001L);
        w.writeString("not a record");
        w.writeMapHeader(1);
        w.writeString("chunk");
        w.writeString("broken-chunk");
        byte[] bad = w.toByteArray();
        feed(h, h.channel, bad);
        assertThat(h.channel.isActive()).isFalse();
        assertThat(h.ctx.events()).isEmpty();
        EmbeddedChannel second = h.connect();
        feed(h, second, frame("broken-chunk", 2, 0));
        assertThat(h.outbound(second)).isEqualTo(ack("broken-chunk"));
        assertThat(ids(h)).containsExactly("0", "1");
        assertThat(h.counter("sluice_forward_duplicate_chunks_total")).isZero();
    }

    @Test
    void withDedupChunksZeroACopyIsDeliveredAgain() {
        EmbeddedForward h = new EmbeddedForward(1 << 20, RecordMapper.PayloadMode.JSON, "", null, Map.of(), PipelineHarness.quietLog(),
                "_meta.", 0);
        byte[] a = frame("chunk-a", 2, 0);
        feed(h, h.channel, a);
        feed(h, h.channel, a);
        assertThat(h.outbound()).isEqualTo(ack("chunk-a", "chunk-a"));
        assertThat(h.ctx.events()).extracting(Captured::tag).hasSize(4);
        assertThat(h.counter("sluice_forward_duplicate_chunks_total")).isZero();
    }
}
