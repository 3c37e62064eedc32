package io.sluice.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.forward.codec.FrameScanner;
import java.io.IOException;
import java.util.ArrayDeque;

/**
 * Splits a connection's byte stream into whole msgpack frames (Forward frames, or the handshake's PING) and
 * passes each one on as a heap {@link ByteBuf} over the frame's bytes, however the reads split it.
 *
 * <p>{@link FrameScanner} walks only headers and is resumable, so a large frame arriving in many small reads
 * costs linear time, and a frame whose header declares more than {@code maxFrameBytes} is refused at that header:
 * the connection is closed before the frame is buffered (a "2 GB" length prefix costs nothing).
 *
 * <p>Each read is copied once into one array the connection keeps, which grows to its largest frame and is
 * compacted in place. Netty's own cumulation would instead allocate a bigger buffer (zeroed) and copy everything
 * gathered so far each time a frame outgrew it; a PackedForward chunk of 1,000 events spans several reads, so
 * that cost more than decoding the events. A connection whose buffer empties keeps it unless it grew past
 * {@link #KEEP_BYTES} (or, with {@link Memory}, memory is short), so an idle connection holds at most that much;
 * a big buffer left holding only the start of a small frame is traded for a small one.
 *
 * <p><b>Memory.</b> With a {@link Memory}, the array's capacity is reserved before it grows and returned when it
 * shrinks. When the budget is spent the decoder keeps the read it could not copy (and any that follow) and calls
 * {@link Memory#starved()}; the owner stops reading and calls {@link #proceed()} once there may be room. A frame
 * that needs more than the budget could ever grant fails the connection with {@link OverBudgetException}.
 *
 * <p><b>Holding a frame.</b> The handler after this one may call {@link #hold()} while it is given a frame it
 * cannot finish now: the frame's bytes stay where they are and no further frame is passed on until
 * {@link #proceed()}.
 *
 * <p>The frame passed on is one reused buffer, valid only during the call (or until {@link #proceed()} after a
 * {@link #hold()}): the handler after this one must decode or copy it, and release it (as any inbound message).
 */
public final class FrameDecoder extends ChannelInboundHandlerAdapter {
    /** Buffer capacity an emptied connection keeps; a bigger one is dropped and regrown when needed. */
    static final int KEEP_BYTES = 1 << 20;
    /** Buffer capacity an emptied connection keeps while memory is short. */
    static final int KEEP_BYTES_TIGHT = 64 << 10;
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;
    /** Room beyond what a frame's headers declare, for the options map that follows its events. */
    static final int OPTIONS_ROOM = 4096;
    private static final byte[] EMPTY = new byte[0];

    /** The budget the buffer is counted against, and the owner told when it ran out. Event loop only. */
    public interface Memory {
        /** Whether {@code bytes} could ever be granted; false refuses the frame as too large. */
        boolean fits(long bytes);

        /** Reserves {@code bytes} now, or returns false when the budget is spent. */
        boolean tryReserve(long bytes);

        /** Returns {@code bytes} reserved earlier. */
        void release(long bytes);

        /** Whether memory is short: an emptied buffer is then let go even when small. */
        boolean tight();

        /** The decoder holds a read it had no memory for: stop reading, and call {@link #proceed()} later. */
        void starved();
    }

    /** More bytes than {@link #limitBuffered} allows arrived. */
    public static final class BufferLimitException extends IOException {
        private static final long serialVersionUID = 1L;

        BufferLimitException(long limit, long wanted) {
            super(wanted + " bytes sent where at most " + limit + " may be buffered");
        }
    }

    private final FrameScanner scanner;
    private final Memory memory;
    private final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private byte[] buf = EMPTY;
    /** Wraps {@link #buf}; its indexes are set to each frame in turn. */
    private ByteBuf frame = Unpooled.wrappedBuffer(EMPTY);
    private int start;
    private int end;
    private long reserved;
    private long bufferLimit;
    private boolean failed;
    private boolean held;
    private boolean starved;

    /** @param maxFrameBytes largest frame accepted; a bigger one fails the connection at its header */
    public FrameDecoder(long maxFrameBytes) {
        this(maxFrameBytes, null);
    }

    /**
     * @param maxFrameBytes largest frame accepted; a bigger one fails the connection at its header
     * @param memory        what the buffer is counted against, or null
     */
    public FrameDecoder(long maxFrameBytes, Memory memory) {
        this.scanner = new FrameScanner(maxFrameBytes);
        this.memory = memory;
    }

    /**
     * Allows at most {@code bytes} buffered (0: no limit beyond the frame limit): more fails the connection with
     * {@link BufferLimitException}. A connection that has not authenticated needs a few hundred bytes.
     */
    public void limitBuffered(long bytes) {
        bufferLimit = bytes;
    }

    /** Called by the next handler while it is given a frame: pass nothing more on until {@link #proceed()}. */
    public void hold() {
        held = true;
    }

    /**
     * Continues after {@link #hold()} or {@link Memory#starved()}: passes on the frames buffered, then the reads
     * kept. On the event loop.
     */
    public void proceed() {
        if (failed || ctx == null) {
            return;
        }
        held = false;
        starved = false;
        frames();
        ByteBuf in;
        while (!held && !starved && !failed && (in = waiting.poll()) != null) {
            take(in);
        }
    }

    /** Bytes buffered and not yet passed on (part of a frame), plus reads kept while held or starved. */
    public long buffered() {
        long n = end - start;
        for (ByteBuf b : waiting) {
            n += b.readableBytes();
        }
        return n;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (failed) {
            in.release(); // the connection is being closed after an error; what still arrives is not looked at
            return;
        }
        if (held || starved || !waiting.isEmpty()) {
            // Reads kept while starved count against the limit too: memory waited for must not let an
            // unauthenticated peer queue more than it may buffer.
            if (bufferLimit > 0 && buffered() + in.readableBytes() > bufferLimit) {
                long wanted = buffered() + in.readableBytes();
                in.release();
                fail(new BufferLimitException(bufferLimit, wanted));
                return;
            }
            waiting.add(in);
            return;
        }
        take(in);
    }

    private void take(ByteBuf in) {
        try {
            if (!append(in)) {
                waiting.addFirst(in);
                starved = true;
                memory.starved();
                return;
            }
        } catch (Exception e) {
            in.release();
            fail(e);
            return;
        }
        in.release();
        frames();
    }

    /** Passes on every whole frame buffered, unless held. */
    private void frames() {
        try {
            while (start < end && !held) {
                int len = scanner.scan(buf, start, end - start);
                if (len < 0) {
                    long need = scanner.minFrameBytes();
                    if (memory != null && !memory.fits(need)) {
                        throw new OverBudgetException("a frame declaring at least " + need
                                + " bytes, more than the memory budget can hold");
                    }
                    break;
                }
                int at = start;
                start += len;
                frame.setIndex(at, at + len);
                ctx.fireChannelRead(frame.retain());
            }
        } catch (Exception e) {
            fail(e);
            return;
        }
        if (!held) {
            shrink();
        }
    }

    private void fail(Exception e) {
        failed = true;
        start = end = 0;
        releaseWaiting();
        setBuffer(EMPTY); // nothing more is looked at: its memory goes back now
        ctx.fireExceptionCaught(e);
    }

    /** Lets go of a buffer that grew for one large frame, once it no longer holds one. */
    private void shrink() {
        if (start == end) {
            start = end = 0;
            if (buf.length > KEEP_BYTES || buf.length > KEEP_BYTES_TIGHT && memory != null && memory.tight()) {
                setBuffer(EMPTY);
            }
        } else if (buf.length > KEEP_BYTES) {
            int kept = end - start;
            long need = Math.max(kept, scanner.minFrameBytes());
            if (need <= KEEP_BYTES / 2) {
                // The start of a small frame in a big buffer: move it to a small one (smaller, so nothing to reserve).
                byte[] small = new byte[KEEP_BYTES / 2];
                System.arraycopy(buf, start, small, 0, kept);
                setBuffer(small);
                start = 0;
                end = kept;
            }
        }
    }

    /**
     * Copies {@code in} after the unconsumed bytes, compacting or growing the buffer first when it must.
     *
     * @return false when the buffer had to grow and the memory budget had no room (nothing was copied)
     */
    private boolean append(ByteBuf in) throws IOException {
        int n = in.readableBytes();
        int kept = end - start;
        if (bufferLimit > 0 && kept + (long) n > bufferLimit) {
            throw new BufferLimitException(bufferLimit, kept + (long) n);
        }
        if (buf.length - end < n) {
            if (buf.length - kept >= n) {
                System.arraycopy(buf, start, buf, 0, kept);
            } else {
                // The scanner refuses a frame above maxFrameBytes at its header, so this stays within a frame and a read.
                long need = kept + (long) n;
                long known = scanner.minFrameBytes();
                // What the frame's headers say it needs, with room for the small options map they count as one byte.
                long target = known > 0 ? known + OPTIONS_ROOM : 0;
                long doubled = Math.max(2L * buf.length, 4096);
                long cap = target >= need ? Math.min(doubled, target) // no faster than its bytes arrive
                        : Math.min(doubled, need + Math.max(need >> 2, 65536));
                cap = Math.min(MAX_ARRAY, Math.max(need, cap));
                if (memory != null) {
                    if (!memory.fits(need)) {
                        throw new OverBudgetException("a frame of more than " + need
                                + " bytes, more than the memory budget can hold");
                    }
                    // The copy holds the old array and the new one at once: both are reserved, the old one returned
                    // once copied. The first size whose copy the budget could hold: the usual growth, straight to
                    // what the frame needs, or just this read.
                    long jump = Math.min(MAX_ARRAY, Math.max(need, target));
                    long chosen = memory.fits(reserved + cap) ? cap
                            : memory.fits(reserved + jump) ? jump
                            : memory.fits(reserved + need) ? need : -1;
                    if (chosen < 0) {
                        throw new OverBudgetException("a frame of more than " + need + " bytes, whose buffer (with "
                                + reserved + " bytes to copy from) is more than the memory budget can hold");
                    }
                    if (!memory.tryReserve(chosen)) {
                        return false;
                    }
                    cap = chosen;
                }
                byte[] bigger = new byte[(int) cap];
                System.arraycopy(buf, start, bigger, 0, kept);
                setBuffer(bigger);
            }
            start = 0;
            end = kept;
        }
        in.readBytes(buf, end, n);
        end += n;
        return true;
    }

    /**
     * Replaces the buffer. A bigger one was reserved in full by the caller: the old one's reservation is returned.
     * A smaller one keeps that part of the old reservation.
     */
    private void setBuffer(byte[] b) {
        frame.release();
        if (memory != null) {
            memory.release(b.length > buf.length ? reserved : reserved - b.length);
            reserved = b.length;
        }
        buf = b;
        frame = Unpooled.wrappedBuffer(b);
    }

    private void releaseWaiting() {
        ByteBuf b;
        while ((b = waiting.poll()) != null) {
            b.release();
        }
    }

    /** Bytes of the budget the buffer holds now. */
    public long reserved() {
        return reserved;
    }

    /** @return the buffer's capacity, for tests */
    int capacity() {
        return buf.length;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // A partial frame at close is dropped: its sender never finished it, so nothing of it was acked.
        start = end = 0;
        held = false;
        releaseWaiting();
        setBuffer(EMPTY);
        ctx.fireChannelInactive();
    }
}
