package io.sluice.forward.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.forward.codec.Digests;
import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.codec.ForwardEncoder;
import io.sluice.forward.codec.Gzip;
import io.sluice.forward.codec.MsgPackWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * consumer.Forward against a small memory budget, on embedded channels (deterministic: publishing on the test's
 * thread, the retry timer advanced by the test): what the budget can never hold is refused as too large, what it
 * cannot hold now waits (reading stopped, acks withheld) and is then delivered exactly once, and every byte
 * reserved goes back.
 */
class MemoryBudgetTest {
    private static byte[] packed(String chunk, int firstId, int events, int pad) {
        EventBatch b = new EventBatch();
        for (int i = firstId; i < firstId + events; i++) {
            b.add(1_700_000_000L + i, 0, Map.of("id", i, "pad", "p".repeat(pad)));
        }
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().packed(out, "mem.tag", b, chunk);
        return out.toByteArray();
    }

    /** Feeds {@code bytes} in reads of at most 16 KiB, as a socket would. */
    private static void feedInReads(EmbeddedForward h, EmbeddedChannel ch, byte[] bytes) {
        for (int at = 0; at < bytes.length && ch.isOpen(); at += 16 << 10) {
            h.feed(ch, bytes, at, Math.min(16 << 10, bytes.length - at));
        }
    }

    private static List<Integer> ids(EmbeddedForward h) {
        return h.ctx.events().stream().map(e -> Integer.parseInt(e.fields().get("id"))).toList();
    }

    /** Lets the connection's retry timer run (it fires every RETRY_MILLIS). */
    private static void tick(EmbeddedChannel ch) {
        ch.advanceTimeBy(ForwardConnection.RETRY_MILLIS, TimeUnit.MILLISECONDS);
        ch.runPendingTasks();
    }

    @Test
    void aFrameTheBudgetCanNeverHoldIsRefusedAsTooLargeAndTheNextClientIsServed() {
        EmbeddedForward h = new EmbeddedForward();
        h.ctx.memory(new MemoryBudget(100_000));
        byte[] big = packed("big", 0, 2000, 100); // about 250 KB: more than the whole budget
        feedInReads(h, h.channel, big);
        assertThat(h.channel.isActive()).as("closed").isFalse();
        assertThat(h.ctx.stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        assertThat(h.ctx.events()).isEmpty();
        assertThat(h.ctx.memory().used()).as("everything reserved went back").isZero();

        EmbeddedChannel second = h.connect();
        byte[] small = packed("small", 0, 3, 10);
        h.feed(second, small, 0, small.length);
        assertThat(h.outbound(second)).isEqualTo(FluentBitVectorsTest.acks(List.of("small")));
        assertThat(ids(h)).containsExactly(0, 1, 2);
        assertThat(h.ctx.memory().used()).as("only the open connection's small frame buffer").isLessThanOrEqualTo(64 << 10);
        second.close();
        assertThat(h.ctx.memory().used()).isZero();
    }

    @Test
    void aRecordWhoseDecodedFormTheBudgetCanNeverHoldIsRefused() {
        // The frame (120 KB) fits, but with its JSON and its copy in the message it would not: the 30 MiB record
        // of a 77 MB budget, scaled down.
        EmbeddedForward h = new EmbeddedForward();
        h.ctx.memory(new MemoryBudget(300_000));
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().message(out, "big.record", 1_700_000_000L, 0, Map.of("log", "L".repeat(120_000)), "c1");
        byte[] frame = out.toByteArray();
        feedInReads(h, h.channel, frame);
        assertThat(h.channel.isActive()).isFalse();
        assertThat(h.ctx.stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        assertThat(h.ctx.stats().rejected(Rejection.BUSY)).isZero();
        assertThat(h.ctx.events()).isEmpty();
        assertThat(h.ctx.memory().used()).isZero();
    }

    @Test
    void aGzipPayloadInflatingPastTheCapIsRefused() {
        EmbeddedForward h = new EmbeddedForward(); // MaxDecompressedSize 1 MiB
        byte[] frame = compressedZeros(3 << 20);
        h.feed(frame, 0, frame.length);
        assertThat(h.channel.isActive()).isFalse();
        assertThat(h.ctx.stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        assertThat(h.ctx.memory().used()).isZero();
    }

    @Test
    void aGzipPayloadUnderTheCapButOverTheBudgetIsRefused() {
        EmbeddedForward h = new EmbeddedForward(); // MaxDecompressedSize 1 MiB
        h.ctx.memory(new MemoryBudget(400_000));
        byte[] frame = compressedZeros(900_000);
        h.feed(frame, 0, frame.length);
        assertThat(h.channel.isActive()).isFalse();
        assertThat(h.ctx.stats().rejected(Rejection.TOO_LARGE)).isEqualTo(1);
        assertThat(h.ctx.memory().used()).isZero();
    }

    /** A CompressedPackedForward frame whose payload inflates to {@code n} zero bytes. */
    static byte[] compressedZeros(int n) {
        MsgPackWriter gz = new MsgPackWriter();
        new Gzip().compress(new byte[n], 0, n, gz);
        MsgPackWriter w = new MsgPackWriter();
        w.writeArrayHeader(3);
        w.writeString("bomb");
        w.writeBin(gz.array(), 0, gz.size());
        w.writeMapHeader(2);
        w.writeString("compressed");
        w.writeString("gzip");
        w.writeString("chunk");
        w.writeString("bomb-chunk");
        return w.toByteArray();
    }

    @Test
    void aFrameBiggerThanTheBudgetWhenDecodedGoesThroughInPartsAndIsAckedOnceAllWereDelivered() {
        EmbeddedForward h = new EmbeddedForward();
        h.ctx.memory(new MemoryBudget(200_000)); // 1,000 events need about 800 KB decoded
        h.ctx.hold(true); // the producers keep what they are given until the test releases it
        byte[] frame = packed("whole", 0, 1000, 20);
        feedInReads(h, h.channel, frame);
        assertThat(h.ctx.stats().rejected(Rejection.BUSY)).as("one pause counted").isEqualTo(1);
        assertThat(h.channel.config().isAutoRead()).as("reading stopped").isFalse();
        int first = h.ctx.events().size();
        assertThat(first).as("part of the frame handed off").isBetween(1, 999);
        tick(h.channel);
        tick(h.channel);
        assertThat(h.ctx.events()).as("nothing more while nothing was delivered").hasSize(first);
        assertThat(h.ctx.stats().rejected(Rejection.BUSY)).as("retries are not counted again").isEqualTo(1);

        int rounds = 0;
        while (h.ctx.events().size() < 1000 && rounds++ < 1000) {
            assertThat(h.outbound()).as("no ack before every part was delivered").isEmpty();
            h.releaseHeld();
            tick(h.channel);
        }
        assertThat(ids(h)).as("every event once, in order").containsExactlyElementsOf(range(0, 1000));
        assertThat(h.outbound()).isEmpty();
        h.releaseHeld();
        assertThat(h.outbound()).isEqualTo(FluentBitVectorsTest.acks(List.of("whole")));
        assertThat(h.channel.config().isAutoRead()).as("reading again").isTrue();
        assertThat(h.ctx.pool().outstanding()).isZero();
        assertThat(h.ctx.memory().used()).as("only the connection's frame buffer").isLessThanOrEqualTo(64 << 10);
        h.channel.close();
        assertThat(h.ctx.memory().used()).isZero();
    }

    @Test
    void whenTheBudgetIsSpentReadsWaitAndEverythingIsDeliveredOnceAfterwards() {
        EmbeddedForward h = new EmbeddedForward();
        h.ctx.memory(new MemoryBudget(150_000));
        h.ctx.hold(true);
        List<String> chunks = new ArrayList<>();
        for (int f = 0; f < 12; f++) {
            chunks.add("chunk-" + f);
            byte[] frame = packed("chunk-" + f, f * 100, 100, 100);
            feedInReads(h, h.channel, frame);
        }
        assertThat(h.ctx.stats().rejected(Rejection.BUSY)).isEqualTo(1);
        assertThat(h.channel.config().isAutoRead()).isFalse();
        assertThat(h.ctx.events().size()).isLessThan(1200);
        assertThat(h.ctx.memory().used()).as("never more than the budget").isLessThanOrEqualTo(150_000);

        int rounds = 0;
        while (h.ctx.events().size() < 1200 && rounds++ < 1000) {
            h.releaseHeld();
            tick(h.channel);
            assertThat(h.ctx.memory().used()).isLessThanOrEqualTo(150_000);
        }
        h.releaseHeld();
        assertThat(ids(h)).containsExactlyElementsOf(range(0, 1200));
        assertThat(h.outbound()).as("every chunk acked once, in order").isEqualTo(FluentBitVectorsTest.acks(chunks));
        assertThat(h.channel.config().isAutoRead()).isTrue();
        assertThat(h.ctx.memory().used()).as("only the connection's frame buffer").isLessThanOrEqualTo(64 << 10);
        h.channel.close();
        assertThat(h.ctx.memory().used()).isZero();
    }

    @Test
    void aMillionTinyRecordsInOnePackedForwardAreChargedPerEventAndDeliveredInParts() {
        EmbeddedForward h = new EmbeddedForward(16 << 20, RecordMapper.PayloadMode.JSON, "", null, Map.of(), PipelineHarness.quietLog());
        h.ctx.memory(new MemoryBudget(16 << 20)); // the frame is 7 MB; a million events cost about 760 MB decoded
        byte[] frame = millionEmptyRecords();
        h.ctx.countOnly(true);
        h.ctx.hold(true);
        feedInReads(h, h.channel, frame);
        long peak = h.ctx.memory().used();
        int rounds = 0;
        while (h.ctx.counted() < 1_000_000 && rounds++ < 10_000) {
            peak = Math.max(peak, h.ctx.memory().used());
            h.releaseHeld();
            tick(h.channel);
        }
        h.releaseHeld();
        assertThat(h.ctx.counted()).isEqualTo(1_000_000);
        assertThat(peak).isLessThanOrEqualTo(16 << 20);
        assertThat(h.ctx.stats().rejected(Rejection.BUSY)).isEqualTo(1);
        assertThat(h.outbound()).isEqualTo(FluentBitVectorsTest.acks(List.of("million")));
        h.channel.close();
        assertThat(h.ctx.memory().used()).isZero();
    }

    @Test
    void aFailedDeliveryIsNeverAcked() {
        EmbeddedForward h = new EmbeddedForward();
        h.ctx.hold(true);
        byte[] frame = packed("lost", 0, 3, 10);
        h.feed(frame, 0, frame.length);
        h.ctx.failHeld(); // refused by a closed queue, say
        assertThat(h.outbound()).isEmpty();
        assertThat(h.ctx.memory().used()).as("only the connection's frame buffer").isLessThanOrEqualTo(64 << 10);
        // Its chunk is not remembered as accepted: a resend is delivered again and acked.
        h.ctx.hold(false);
        EmbeddedChannel second = h.connect();
        h.feed(second, frame, 0, frame.length);
        assertThat(h.outbound(second)).isEqualTo(FluentBitVectorsTest.acks(List.of("lost")));
        assertThat(h.ctx.events()).hasSize(6);
        h.channel.close();
        second.close();
        assertThat(h.ctx.memory().used()).isZero();
    }

    @Test
    void anUnauthenticatedConnectionMayBufferOnlyAFewKilobytes() {
        EmbeddedForward h = new EmbeddedForward(1 << 20, RecordMapper.PayloadMode.JSON, "", "s3cret", Map.of(), PipelineHarness.quietLog());
        h.outbound(); // HELO
        byte[] big = packed("early", 0, 200, 100); // a frame instead of PING: tens of KB
        h.feed(big, 0, 4096); // as much as is allowed: still waiting for the rest
        assertThat(h.channel.isActive()).isTrue();
        h.feed(big, 4096, 100);
        assertThat(h.channel.isActive()).isFalse();
        assertThat(h.ctx.stats().rejected(Rejection.AUTH)).isEqualTo(1);
        assertThat(h.ctx.events()).isEmpty();
        assertThat(h.ctx.memory().used()).isZero();
    }

    /**
     * Before its PING is accepted a connection's socket is read 4 KiB at a time and no more than that is reserved;
     * after it, reads are sized as usual.
     */
    @Test
    void unauthenticatedReadsAreCappedAndReserveAtMostTheLimit() throws Exception {
        EmbeddedForward h = new EmbeddedForward(1 << 20, RecordMapper.PayloadMode.JSON, "", "s3cret", Map.of(), PipelineHarness.quietLog());
        h.ctx.memory(new MemoryBudget(64 << 20));
        ForwardConnection c = h.channel.pipeline().get(ForwardConnection.class);
        io.netty.channel.RecvByteBufAllocator.Handle reads =
                c.preAuthReads(new io.netty.channel.FixedRecvByteBufAllocator(64 << 10)).newHandle();
        assertThat(reads.guess()).isEqualTo(ForwardConnection.UNAUTHENTICATED_BYTES);
        byte[] helo = h.outbound();
        io.sluice.forward.codec.MsgPackReader r = new io.sluice.forward.codec.MsgPackReader().reset(helo, 0, helo.length, 0);
        r.readArrayHeader();
        r.skipValue();
        r.readMapHeader();
        r.readString();
        byte[] nonce = r.readBytes();
        MsgPackWriter ping = new MsgPackWriter();
        byte[] salt = new byte[16];
        ping.writeArrayHeader(6);
        ping.writeString("PING");
        ping.writeString("client");
        ping.writeBin(salt, 0, salt.length);
        ping.writeString(Digests.sharedKey(salt, "client", nonce, "s3cret"));
        ping.writeString("");
        ping.writeString("");
        byte[] bytes = Arrays.copyOf(ping.array(), ping.size());
        h.feed(bytes, 0, bytes.length - 1);
        assertThat(h.ctx.memory().used()).isLessThanOrEqualTo(ForwardConnection.UNAUTHENTICATED_BYTES);
        h.feed(bytes, bytes.length - 1, 1);
        assertThat(h.outbound()).as("the PONG").isNotEmpty();
        assertThat(h.channel.isActive()).isTrue();
        assertThat(reads.guess()).as("authenticated: reads as usual").isEqualTo(64 << 10);
    }

    @Test
    void aBufferThatGrewForOneLargeFrameShrinksBack() {
        EmbeddedForward h = new EmbeddedForward(16 << 20, RecordMapper.PayloadMode.JSON, "", null, Map.of(), PipelineHarness.quietLog());
        h.ctx.memory(new MemoryBudget(64 << 20));
        MsgPackWriter out = new MsgPackWriter();
        new ForwardEncoder().message(out, "big", 1_700_000_000L, 0, Map.of("log", "x".repeat(3 << 20)), null);
        byte[] big = out.toByteArray();
        byte[] small = packed(null, 0, 2, 10);
        // The big frame and the start of a small one in the same read, then the rest of the small one.
        byte[] both = Arrays.copyOf(big, big.length + 10);
        System.arraycopy(small, 0, both, big.length, 10);
        h.feed(both, 0, both.length);
        assertThat(h.ctx.events()).hasSize(1);
        assertThat(h.ctx.memory().used()).as("frame buffer and scratch let go after the large frame").isLessThan(1 << 20);
        h.feed(small, 10, small.length - 10);
        assertThat(h.ctx.events()).hasSize(3);
        assertThat(h.ctx.memory().used()).isLessThan(1 << 20);
        h.channel.close();
        assertThat(h.ctx.memory().used()).isZero();
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> l = new ArrayList<>();
        for (int i = from; i < to; i++) {
            l.add(i);
        }
        return l;
    }

    @Test
    void aRecordWhoseJsonOutgrowsItIsChargedForThePayloadAndTheMetadataCopyAndGivenBackOnDelivery() {
        EmbeddedForward h = new EmbeddedForward();
        h.ctx.memory(new MemoryBudget(64 << 20));
        h.ctx.hold(true);
        // One record whose JSON is five times its msgpack (a nil is 1 byte, "null," 5): the payload and the
        // metadata's copy of that JSON are both charged, not the record's size.
        MsgPackWriter w = new MsgPackWriter();
        w.writeArrayHeader(3);
        w.writeString("nils");
        w.writeLong(1_700_000_000L);
        w.writeMapHeader(1);
        w.writeString("n");
        w.writeArrayHeader(20_000);
        for (int i = 0; i < 20_000; i++) {
            w.writeNil();
        }
        byte[] frame = w.toByteArray();
        h.feed(frame, 0, frame.length);
        assertThat(h.ctx.events()).hasSize(1);
        int json = h.ctx.events().get(0).payload().length();
        assertThat(json).isGreaterThan(4 * frame.length);
        long held = h.ctx.memory().used();
        h.releaseHeld();
        // The connection keeps its frame buffer, and the mapper's scratch up to RecordMapper.KEEP_BYTES for reuse.
        long kept = h.ctx.memory().used();
        assertThat(kept).as("the connection's buffers only").isLessThanOrEqualTo((64 << 10) + RecordMapper.KEEP_BYTES);
        assertThat(held - kept).as("what the event held: its JSON payload and the metadata's copy of it")
                .isGreaterThanOrEqualTo(2L * json);
        h.channel.close();
        assertThat(h.ctx.memory().used()).isZero();
    }

    /**
     * A PackedForward frame of a million empty records (tag "tiny", chunk "million"): 7 MB on the wire, about 760 MB
     * once decoded, the input that must be decoded in parts within the memory budget. ResourceLimitsTest sends it too.
     */
    static byte[] millionEmptyRecords() {
        MsgPackWriter entries = new MsgPackWriter(8 << 20);
        for (int i = 0; i < 1_000_000; i++) {
            entries.writeArrayHeader(2);
            entries.writeLong(1_700_000_000L);
            entries.writeMapHeader(0);
        }
        MsgPackWriter w = new MsgPackWriter(8 << 20);
        w.writeArrayHeader(3);
        w.writeString("tiny");
        w.writeBin(entries.array(), 0, entries.size());
        w.writeMapHeader(1);
        w.writeString("chunk");
        w.writeString("million");
        return w.toByteArray();
    }
}
