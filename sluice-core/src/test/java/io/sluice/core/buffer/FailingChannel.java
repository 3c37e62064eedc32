package io.sluice.core.buffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real file channel on a disk with {@code space} bytes free, shared by every channel of a test: a write takes
 * what fits (as write(2) does when the space runs out mid-buffer) and, with nothing free, throws "No space left
 * on device"; truncating a file gives its bytes back. Set the space to {@code Long.MAX_VALUE} for a disk with room.
 */
public final class FailingChannel extends FileChannel {
    private final FileChannel real;
    private final AtomicLong space;

    /** A channel over {@code real} on a disk whose free bytes are {@code space}. */
    public FailingChannel(FileChannel real, AtomicLong space) {
        this.real = real;
        this.space = space;
    }

    private int limited(ByteBuffer src, WriteOp op) throws IOException {
        long free = space.get();
        if (free <= 0) {
            throw new IOException("No space left on device");
        }
        if (free >= src.remaining()) {
            int n = op.write(src);
            space.addAndGet(-n);
            return n;
        }
        int keep = src.limit();
        src.limit(src.position() + (int) free);
        try {
            int n = op.write(src);
            space.addAndGet(-n);
            return n;
        } finally {
            src.limit(keep);
        }
    }

    private interface WriteOp {
        int write(ByteBuffer b) throws IOException;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return limited(src, real::write);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        return limited(src, b -> real.write(b, position));
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long n = 0;
        for (int i = offset; i < offset + length; i++) {
            n += write(srcs[i]);
            if (srcs[i].hasRemaining()) {
                break;
            }
        }
        return n;
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        long before = real.size();
        real.truncate(size);
        long freed = before - real.size();
        if (freed > 0 && space.get() != Long.MAX_VALUE) {
            space.addAndGet(freed);
        }
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        real.force(metaData);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return real.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return real.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return real.read(dst, position);
    }

    @Override
    public long position() throws IOException {
        return real.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        real.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return real.size();
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return real.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        throw new UnsupportedOperationException("not used by the code under test");
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return real.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return real.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return real.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        real.close();
    }
}
