package io.sluice.io.file;

import io.sluice.core.message.Completion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * One file being tailed by {@link FileConsumer}: its open channel, read buffer and the offsets that matter.
 * A file is known by its identity (device and inode), not its name, so a rename during rotation keeps the
 * reader on the same file, and a new file under the old name is a new {@code TailedFile}.
 *
 * <p>Offsets: {@code bufOffset} is the file offset of {@code buf[0]}; lines are cut from
 * {@code buf[start, end)}; {@link #committed()} is the end of the last line whose batch, and every batch
 * before it, was delivered by every producer. Only that offset is checkpointed.
 */
final class TailedFile {
    final Object key;
    final String keyText;
    Path path;
    byte[] nameBytes;
    byte[] dirBytes;
    FileChannel channel;
    byte[] buf;
    ByteBuffer view;
    int start;
    int end;
    int scanFrom;
    long bufOffset;
    boolean skipping;
    /** Non-zero while the file is gone from its path (renamed away or deleted): when that was noticed. */
    long goneSinceNanos;
    long lastDataNanos;
    /** Bumped when the file is truncated under us: acknowledgements of older generations no longer count. */
    int generation;
    /** When the file was last seen modified at its path; its first bytes are checked again when this changes. */
    FileTime seenModified;

    // Multiline record being assembled.
    byte[] record = new byte[0];
    int recordLen;
    long recordEnd;
    long recordSinceNanos;
    boolean recordCut;

    private final ArrayDeque<Ack> inflight = new ArrayDeque<>();
    private volatile long committed;
    /** The {@link Fingerprint} of the content being read; changes with {@link #committed} under the same lock. */
    private volatile long fingerprint;
    private long checkpointed = -1;

    TailedFile(Object key, Path path, int bufferSize) {
        this.key = key;
        this.keyText = String.valueOf(key);
        this.buf = new byte[bufferSize];
        this.view = ByteBuffer.wrap(buf);
        rename(path);
    }

    /**
     * The identity of the regular file at {@code p}, from its attributes {@code a}: its file key (device and inode)
     * where the file system has one, else its absolute path; null when there is no regular file there.
     */
    static Object keyOf(Path p, BasicFileAttributes a) {
        if (a == null || !a.isRegularFile()) {
            return null;
        }
        Object k = a.fileKey();
        return k != null ? k : p.toAbsolutePath().toString();
    }

    /** The attributes of the file at {@code p}; null when there is none. */
    static BasicFileAttributes attributes(Path p) {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class);
        } catch (IOException e) {
            return null; // gone (NoSuchFileException) or unreadable: no file to follow there
        }
    }

    void rename(Path p) {
        this.path = p;
        this.nameBytes = String.valueOf(p.getFileName()).getBytes(StandardCharsets.UTF_8);
        this.dirBytes = String.valueOf(p.toAbsolutePath().getParent()).getBytes(StandardCharsets.UTF_8);
    }

    /** Positions reading (and the committed offset) at {@code offset}, dropping anything buffered. */
    void seek(long offset) throws IOException {
        channel.position(offset);
        bufOffset = offset;
        start = 0;
        end = 0;
        scanFrom = 0;
        skipping = false;
        recordLen = 0;
        synchronized (inflight) {
            committed = offset;
        }
    }

    /**
     * The buffer to read into, positioned at the free space: when it is full, the unfinished line moves to the
     * front, or (when the line fills it) the buffer doubles, up to {@code growLimit} (the longest line and its
     * delimiter).
     */
    ByteBuffer readTarget(int growLimit) {
        if (end == buf.length) {
            if (start > 0) {
                System.arraycopy(buf, start, buf, 0, end - start);
                bufOffset += start;
                end -= start;
                scanFrom -= start;
                start = 0;
            } else {
                int cap = Math.min(growLimit, buf.length * 2);
                buf = Arrays.copyOf(buf, Math.max(cap, buf.length));
                view = ByteBuffer.wrap(buf);
            }
        }
        view.limit(buf.length).position(end);
        return view;
    }

    /** The file offset after the last byte read. */
    long readPosition() {
        return bufOffset + end;
    }

    /** Tracks one published batch ending at {@code endOffset}; the returned completion goes on the batch. */
    Completion track(long endOffset, Runnable onAck) {
        Ack a = new Ack(this, endOffset, generation, onAck);
        synchronized (inflight) {
            inflight.addLast(a);
        }
        return a;
    }

    /**
     * The file's generation changed (truncation, or content replaced): the committed offset restarts at
     * {@code offset}, and the fingerprint of the old content is forgotten.
     */
    void newGeneration(long offset) {
        synchronized (inflight) {
            generation++;
            committed = offset;
            fingerprint = Fingerprint.NONE;
            // Older batches may still complete; they are dropped from the order when they do.
        }
    }

    private void completed(Ack a) {
        synchronized (inflight) {
            a.done = true;
            while (!inflight.isEmpty() && inflight.peekFirst().done) {
                Ack head = inflight.pollFirst();
                if (head.generation == generation) {
                    committed = head.end;
                }
            }
        }
    }

    /** Whether every batch published from this file has completed. */
    boolean settled() {
        synchronized (inflight) {
            return inflight.isEmpty();
        }
    }

    /** The end of the last line delivered by every producer, with everything before it. */
    long committed() {
        return committed;
    }

    long fingerprint() {
        return fingerprint;
    }

    /** Sets the fingerprint of the content being read: from a checkpoint, or extended while the file is short. */
    void fingerprint(long value) {
        synchronized (inflight) {
            fingerprint = value;
        }
    }

    /**
     * The committed offset and the fingerprint of the content it is in, taken together: a checkpoint written on a
     * producer thread while the reader starts a new generation holds both of the old one or both of the new one.
     */
    Position position() {
        synchronized (inflight) {
            return new Position(committed, fingerprint);
        }
    }

    /** Whether {@link #committed()} moved since the last {@link #markCheckpointed(long)}. */
    boolean checkpointDue() {
        return committed != checkpointed;
    }

    void markCheckpointed(long offset) {
        checkpointed = offset;
    }

    void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Read-only handle; nothing was buffered for writing.
            }
            channel = null;
        }
    }

    /** What a checkpoint holds of a file: its committed offset and the {@link Fingerprint} of its content. */
    record Position(long offset, long fingerprint) {
    }

    /** The acknowledgement of one batch of this file's lines. */
    private static final class Ack extends Completion {
        final TailedFile file;
        final long end;
        final int generation;
        final Runnable onAck;
        boolean done;

        Ack(TailedFile file, long end, int generation, Runnable onAck) {
            this.file = file;
            this.end = end;
            this.generation = generation;
            this.onAck = onAck;
        }

        @Override
        protected void onComplete() {
            file.completed(this);
            onAck.run();
        }
    }
}
