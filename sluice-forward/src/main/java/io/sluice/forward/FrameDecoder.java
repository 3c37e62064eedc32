package io.sluice.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.forward.codec.FrameScanner;

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
 * {@link #KEEP_BYTES}, so an idle connection holds at most that much.
 *
 * <p>The frame passed on is one reused buffer, valid only during the call: the handler after this one must
 * decode or copy it before returning, and release it (as any inbound message).
 */
public final class FrameDecoder extends ChannelInboundHandlerAdapter {
    /** Buffer capacity an emptied connection keeps; a bigger one is dropped and regrown when needed. */
    static final int KEEP_BYTES = 1 << 20;
    private static final byte[] EMPTY = new byte[0];

    private final FrameScanner scanner;
    private byte[] buf = EMPTY;
    /** Wraps {@link #buf}; its indexes are set to each frame in turn. */
    private ByteBuf frame = Unpooled.wrappedBuffer(EMPTY);
    private int start;
    private int end;
    private boolean failed;

    /** @param maxFrameBytes largest frame accepted; a bigger one fails the connection at its header */
    public FrameDecoder(long maxFrameBytes) {
        this.scanner = new FrameScanner(maxFrameBytes);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (failed) {
                return; // the connection is being closed after an error; what still arrives is not looked at
            }
            append(in);
        } finally {
            in.release();
        }
        try {
            while (start < end) {
                int len = scanner.scan(buf, start, end - start);
                if (len < 0) {
                    break;
                }
                int at = start;
                start += len;
                frame.setIndex(at, at + len);
                ctx.fireChannelRead(frame.retain());
            }
        } catch (Exception e) {
            failed = true;
            start = end = 0;
            ctx.fireExceptionCaught(e);
        }
        if (start == end) {
            start = end = 0;
            if (buf.length > KEEP_BYTES) {
                setBuffer(EMPTY);
            }
        }
    }

    /** Copies {@code in} after the unconsumed bytes, compacting or growing the buffer first when it must. */
    private void append(ByteBuf in) {
        int n = in.readableBytes();
        if (buf.length - end < n) {
            int kept = end - start;
            if (buf.length - kept >= n) {
                System.arraycopy(buf, start, buf, 0, kept);
            } else {
                // The scanner refuses a frame above maxFrameBytes at its header, so this stays within a frame and a read.
                byte[] bigger = new byte[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(kept + (long) n, 2L * buf.length))];
                System.arraycopy(buf, start, bigger, 0, kept);
                setBuffer(bigger);
            }
            start = 0;
            end = kept;
        }
        in.readBytes(buf, end, n);
        end += n;
    }

    private void setBuffer(byte[] b) {
        frame.release();
        buf = b;
        frame = Unpooled.wrappedBuffer(b);
    }

    /** @return the buffer's capacity, for tests */
    int capacity() {
        return buf.length;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // A partial frame at close is dropped: its sender never finished it, so nothing of it was acked.
        start = end = 0;
        setBuffer(EMPTY);
        ctx.fireChannelInactive();
    }
}
