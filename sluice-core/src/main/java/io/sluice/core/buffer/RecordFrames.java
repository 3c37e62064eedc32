package io.sluice.core.buffer;

import io.sluice.core.message.Batch;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * How records lie in segment files: {@code [magic "SLB1"][length][crc32c of the body][body]}, the body written by
 * {@link RecordCodec}. Encoding runs on the putting threads, each with its own reused buffer, codec and checksum,
 * so that a batch is framed outside the buffer's lock and without allocating.
 */
final class RecordFrames {
    static final int MAGIC = 0x534C4231; // "SLB1"
    static final int HEADER = 12;
    static final int MAX_RECORD = 64 << 20;

    private final ThreadLocal<ByteBuffer> encodeBuffers = ThreadLocal.withInitial(() -> ByteBuffer.allocate(256 * 1024));
    private final ThreadLocal<RecordCodec> codecs = ThreadLocal.withInitial(RecordCodec::new);
    private final ThreadLocal<CRC32C> crcs = ThreadLocal.withInitial(CRC32C::new);

    /** Whether a header's magic and length can start a record (its checksum still to be checked). */
    static boolean plausible(int magic, int length) {
        return magic == MAGIC && length > 0 && length <= MAX_RECORD;
    }

    /** The batch's messages as framed records, in this thread's buffer (valid until its next call), ready to write. */
    ByteBuffer encode(Batch batch) {
        ByteBuffer buf = encodeBuffers.get();
        buf.clear();
        RecordCodec codec = codecs.get();
        CRC32C crc = crcs.get();
        for (int i = 0; i < batch.size(); i++) {
            int need = HEADER + RecordCodec.maxSize(batch.get(i));
            if (buf.remaining() < need) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + need));
                buf.flip();
                bigger.put(buf);
                buf = bigger;
                encodeBuffers.set(buf);
            }
            int start = buf.position();
            buf.position(start + HEADER);
            codec.encode(batch.get(i), buf);
            int len = buf.position() - start - HEADER;
            crc.reset();
            crc.update(buf.array(), start + HEADER, len);
            buf.putInt(start, MAGIC).putInt(start + 4, len).putInt(start + 8, (int) crc.getValue());
        }
        buf.flip();
        return buf;
    }
}
