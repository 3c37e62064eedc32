package io.sluice.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.forward.codec.ForwardProtocolException;
import io.sluice.forward.codec.FrameTooLargeException;
import io.sluice.forward.codec.MsgPackWriter;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {

    /** Copies each frame it is given (the decoder reuses its buffer) and releases it, as the real handlers do. */
    private static final class Frames extends ChannelInboundHandlerAdapter {
        final List<byte[]> frames = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();
        int refCntSeen;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            refCntSeen = b.refCnt();
            byte[] copy = new byte[b.readableBytes()];
            b.getBytes(b.readerIndex(), copy);
            frames.add(copy);
            b.release();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
        }
    }

    /** A msgpack array frame [str of {@code n} bytes, i] with distinct content. */
    private static byte[] frame(int n, int i) {
        MsgPackWriter w = new MsgPackWriter(n + 16);
        w.writeArrayHeader(2);
        byte[] body = new byte[n];
        Arrays.fill(body, (byte) ('a' + i % 26));
        w.writeBin(body, 0, n);
        w.writeLong(i);
        return w.toByteArray();
    }

    @Test
    void everyFrameComesOutWhole_howeverTheReadsSplitTheStream() {
        Random rnd = new Random(42);
        List<byte[]> sent = new ArrayList<>();
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (int i = 0; i < 300; i++) {
            // mostly small frames, some spanning many reads, one bigger than KEEP_BYTES
            int size = i == 150 ? FrameDecoder.KEEP_BYTES + 5000 : rnd.nextInt(10) == 0 ? rnd.nextInt(300_000) : rnd.nextInt(400);
            byte[] f = frame(size, i);
            sent.add(f);
            stream.writeBytes(f);
        }
        byte[] all = stream.toByteArray();
        Frames out = new Frames();
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(4 << 20), out);
        for (int at = 0; at < all.length; ) {
            int n = Math.min(all.length - at, 1 + rnd.nextInt(rnd.nextBoolean() ? 70_000 : 50));
            ch.writeInbound(Unpooled.wrappedBuffer(all, at, n));
            at += n;
        }
        assertThat(out.errors).isEmpty();
        assertThat(out.frames).hasSize(sent.size());
        for (int i = 0; i < sent.size(); i++) {
            assertThat(out.frames.get(i)).as("frame %d", i).isEqualTo(sent.get(i));
        }
        assertThat(out.refCntSeen).as("the frame is retained for the handler, which releases it").isEqualTo(2);
        ch.finishAndReleaseAll();
    }

    @Test
    void aConnectionThatEmptiesKeepsItsBufferUnlessItGrewPastTheLimit() {
        FrameDecoder decoder = new FrameDecoder(4 << 20);
        Frames out = new Frames();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, out);
        ch.writeInbound(Unpooled.wrappedBuffer(frame(200_000, 1)));
        assertThat(decoder.capacity()).isGreaterThanOrEqualTo(200_000);
        ch.writeInbound(Unpooled.wrappedBuffer(frame(100_000, 2)));
        assertThat(decoder.capacity()).as("reused, not regrown").isGreaterThanOrEqualTo(200_000);
        byte[] big = frame(FrameDecoder.KEEP_BYTES + 1, 3);
        ch.writeInbound(Unpooled.wrappedBuffer(big, 0, 1000));
        ch.writeInbound(Unpooled.wrappedBuffer(big, 1000, big.length - 1000));
        assertThat(out.frames).hasSize(3);
        assertThat(out.frames.get(2)).isEqualTo(big);
        assertThat(decoder.capacity()).as("dropped once empty").isZero();
        ch.finishAndReleaseAll();
    }

    @Test
    void aMalformedStreamFailsOnceAndWhatFollowsIsIgnored() {
        Frames out = new Frames();
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20), out);
        byte[] good = frame(10, 1);
        byte[] bytes = Arrays.copyOf(good, good.length + 1);
        bytes[good.length] = (byte) 0xa3; // a str where a frame (array or map) must start
        ch.writeInbound(Unpooled.wrappedBuffer(bytes));
        ch.writeInbound(Unpooled.wrappedBuffer(frame(10, 2)));
        assertThat(out.frames).hasSize(1);
        assertThat(out.errors).hasSize(1);
        assertThat(out.errors.get(0)).isInstanceOf(ForwardProtocolException.class)
                .hasMessageContaining("must be a msgpack array or map");
        ch.finishAndReleaseAll();
    }

    @Test
    void aFrameDeclaringMoreThanTheLimitIsRefusedAtItsHeader() {
        Frames out = new Frames();
        FrameDecoder decoder = new FrameDecoder(1 << 20);
        EmbeddedChannel ch = new EmbeddedChannel(decoder, out);
        byte[] header = {(byte) 0x92, (byte) 0xc6, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}; // [bin of 2 GB, ...
        ch.writeInbound(Unpooled.wrappedBuffer(header));
        assertThat(out.errors).hasSize(1);
        assertThat(out.errors.get(0)).isInstanceOf(FrameTooLargeException.class);
        assertThat(decoder.capacity()).isLessThan(64);
        ch.finishAndReleaseAll();
    }

    /** A budget for one decoder: counts what it holds, and can be made to refuse. */
    private static final class Budget implements FrameDecoder.Memory {
        final long limit;
        long used;
        boolean refuse;
        int starved;

        Budget(long limit) {
            this.limit = limit;
        }

        @Override
        public boolean fits(long bytes) {
            return bytes <= limit;
        }

        @Override
        public boolean tryReserve(long bytes) {
            if (refuse || used + bytes > limit) {
                return false;
            }
            used += bytes;
            return true;
        }

        @Override
        public void release(long bytes) {
            used -= bytes;
        }

        @Override
        public boolean tight() {
            return false;
        }

        @Override
        public void starved() {
            starved++;
        }
    }

    @Test
    void withABudgetTheBufferIsReservedBeforeItGrowsAndReadsWaitWhenItIsSpent() {
        Budget budget = new Budget(8 << 20);
        FrameDecoder decoder = new FrameDecoder(4 << 20, budget);
        Frames out = new Frames();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, out);
        byte[] a = frame(300_000, 1);
        byte[] b = frame(2_000_000, 2);
        byte[] c = frame(10, 3);
        ch.writeInbound(Unpooled.wrappedBuffer(a, 0, 100_000));
        assertThat(budget.used).as("reserved what it holds").isEqualTo(decoder.capacity()).isEqualTo(decoder.reserved());
        ch.writeInbound(Unpooled.wrappedBuffer(a, 100_000, a.length - 100_000));
        assertThat(out.frames).hasSize(1);
        budget.refuse = true; // spent: the next read that needs a bigger buffer waits, and so do the ones after it
        ch.writeInbound(Unpooled.wrappedBuffer(b, 0, 400_000));
        ch.writeInbound(Unpooled.wrappedBuffer(b, 400_000, b.length - 400_000));
        ch.writeInbound(Unpooled.wrappedBuffer(c));
        assertThat(budget.starved).isEqualTo(1);
        assertThat(decoder.buffered()).isEqualTo(b.length + c.length);
        assertThat(out.frames).hasSize(1);
        budget.refuse = false;
        decoder.proceed();
        assertThat(out.frames).hasSize(3);
        assertThat(out.frames.get(1)).isEqualTo(b);
        assertThat(out.frames.get(2)).isEqualTo(c);
        assertThat(budget.used).isEqualTo(decoder.capacity());
        ch.finishAndReleaseAll();
        assertThat(budget.used).as("all returned at close").isZero();
    }

    @Test
    void withABudgetAFrameItCouldNeverHoldIsRefusedAtItsHeader() {
        Budget budget = new Budget(100_000);
        FrameDecoder decoder = new FrameDecoder(4 << 20, budget);
        Frames out = new Frames();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, out);
        byte[] big = frame(200_000, 1);
        ch.writeInbound(Unpooled.wrappedBuffer(big, 0, 1000));
        assertThat(out.errors).hasSize(1);
        assertThat(out.errors.get(0)).isInstanceOf(io.sluice.forward.OverBudgetException.class)
                .hasMessageContaining("more than the memory budget can hold");
        assertThat(budget.used).isZero();
        ch.finishAndReleaseAll();
    }

    @Test
    void aHeldFrameKeepsItsBytesUntilProceed() {
        FrameDecoder decoder = new FrameDecoder(1 << 20);
        List<byte[]> seen = new ArrayList<>();
        ChannelInboundHandlerAdapter holder = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                byte[] copy = new byte[b.readableBytes()];
                b.getBytes(b.readerIndex(), copy);
                seen.add(copy);
                b.release();
                if (seen.size() == 1) {
                    decoder.hold();
                }
            }
        };
        EmbeddedChannel ch = new EmbeddedChannel(decoder, holder);
        byte[] one = frame(100, 1);
        byte[] two = frame(100, 2);
        byte[] both = Arrays.copyOf(one, one.length + two.length);
        System.arraycopy(two, 0, both, one.length, two.length);
        ch.writeInbound(Unpooled.wrappedBuffer(both));
        ch.writeInbound(Unpooled.wrappedBuffer(frame(5, 3)));
        assertThat(seen).hasSize(1);
        decoder.proceed();
        assertThat(seen).hasSize(3);
        assertThat(seen.get(1)).isEqualTo(two);
        ch.finishAndReleaseAll();
    }

    @Test
    void anUnauthenticatedLimitFailsTheConnection() {
        FrameDecoder decoder = new FrameDecoder(1 << 20);
        decoder.limitBuffered(4096);
        Frames out = new Frames();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, out);
        byte[] big = frame(10_000, 1);
        ch.writeInbound(Unpooled.wrappedBuffer(big, 0, 4000));
        assertThat(out.errors).isEmpty();
        ch.writeInbound(Unpooled.wrappedBuffer(big, 4000, 200));
        assertThat(out.errors).hasSize(1);
        assertThat(out.errors.get(0)).isInstanceOf(FrameDecoder.BufferLimitException.class);
        ch.finishAndReleaseAll();
    }

    /** Reads kept while the budget is spent count against the unauthenticated limit too: they are not queued on. */
    @Test
    void readsKeptWhileStarvedCountAgainstTheUnauthenticatedLimit() {
        Budget budget = new Budget(1 << 20);
        budget.refuse = true;
        FrameDecoder decoder = new FrameDecoder(1 << 20, budget);
        decoder.limitBuffered(4096);
        Frames out = new Frames();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, out);
        byte[] big = frame(10_000, 1);
        ch.writeInbound(Unpooled.wrappedBuffer(big, 0, 3000));
        assertThat(budget.starved).as("no room for the first read").isEqualTo(1);
        ch.writeInbound(Unpooled.wrappedBuffer(big, 3000, 1000));
        assertThat(out.errors).isEmpty();
        assertThat(decoder.buffered()).isEqualTo(4000);
        ch.writeInbound(Unpooled.wrappedBuffer(big, 4000, 200));
        assertThat(out.errors).hasSize(1);
        assertThat(out.errors.get(0)).isInstanceOf(FrameDecoder.BufferLimitException.class);
        assertThat(decoder.buffered()).as("all let go").isZero();
        ch.finishAndReleaseAll();
    }
}
