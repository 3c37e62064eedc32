package io.sluice.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.sluice.forward.codec.FrameScanner;
import java.util.List;

/**
 * Splits a connection's byte stream into whole msgpack frames (Forward frames, or the handshake's PING) and
 * passes each one on as a retained slice of the cumulation buffer, however the reads split it.
 *
 * <p>{@link FrameScanner} walks only headers and is resumable, so a large frame arriving in many small reads
 * costs linear time, and a frame whose header declares more than {@code maxFrameBytes} is refused at that header:
 * the connection is closed before the frame is buffered (a "2 GB" length prefix costs nothing).
 *
 * <p>The scanner reads a {@code byte[]}, so the cumulation is kept on the heap: a direct read buffer is copied
 * into it once (the same single copy a heap read would cost). The handler after this one must release each
 * frame before returning, so the cumulation is not shared when the next read arrives.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    /**
     * Like Netty's merge cumulator, but the result is always array-backed, so frames can be scanned and decoded
     * in place.
     */
    public static final Cumulator HEAP_CUMULATOR = (ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) -> {
        if (!cumulation.isReadable() && in.hasArray() && in.refCnt() == 1 && !in.isReadOnly()) {
            cumulation.release();
            return in;
        }
        try {
            int required = in.readableBytes();
            if (!cumulation.hasArray() || cumulation.refCnt() > 1 || cumulation.isReadOnly()
                    || cumulation.writableBytes() < required) {
                int need = cumulation.readableBytes() + required;
                ByteBuf bigger = alloc.heapBuffer(alloc.calculateNewCapacity(need, Integer.MAX_VALUE));
                bigger.writeBytes(cumulation);
                cumulation.release();
                cumulation = bigger;
            }
            cumulation.writeBytes(in);
            return cumulation;
        } finally {
            in.release();
        }
    };

    private final FrameScanner scanner;
    private boolean failed;

    /** @param maxFrameBytes largest frame accepted; a bigger one fails the connection at its header */
    public FrameDecoder(long maxFrameBytes) {
        this.scanner = new FrameScanner(maxFrameBytes);
        setCumulator(HEAP_CUMULATOR);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (failed) {
            // The connection is being closed after an error; what is still arriving is not looked at.
            in.skipBytes(in.readableBytes());
            return;
        }
        int available = in.readableBytes();
        if (available == 0) {
            return;
        }
        int len;
        try {
            len = scanner.scan(in.array(), in.arrayOffset() + in.readerIndex(), available);
        } catch (Exception e) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        }
        if (len > 0) {
            // One frame per call: ByteToMessageDecoder loops while frames come out and bytes remain.
            out.add(in.readRetainedSlice(len));
        }
    }
}
