package io.sluice.io.file;

import io.sluice.core.message.Clock;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Joins lines into records for {@link FileConsumer}'s {@code MultilineStart}: a line the pattern finds starts a
 * record, the lines after it that it does not find are joined to it with {@code \n}. A record is passed on when the
 * next one starts, when no line was added to it for {@code MultilineTimeoutMs}, or when its file is released. A
 * record longer than {@code MaxLineSize} is cut there and flagged. The record being assembled lives in its
 * {@link TailedFile}; the pattern runs over the bytes (as Latin-1), without decoding to a String.
 */
final class MultilineAssembler {
    private static final byte[] NEWLINE = {'\n'};

    private final ByteChars chars = new ByteChars();
    private final Matcher matcher;
    private final int maxLine;
    private final long timeoutNanos;
    private final AtomicLong truncatedLines;
    private LinePublisher out;

    /**
     * @param start          the pattern of a record's first line
     * @param maxLine        longest record; a longer one is cut
     * @param timeoutNanos   how long a record waits for another line
     * @param truncatedLines counts the records cut
     */
    MultilineAssembler(Pattern start, int maxLine, long timeoutNanos, AtomicLong truncatedLines) {
        this.matcher = start.matcher(chars);
        this.maxLine = maxLine;
        this.timeoutNanos = timeoutNanos;
        this.truncatedLines = truncatedLines;
    }

    /** Where records are passed on; set when reading starts. */
    void publishTo(LinePublisher publisher) {
        this.out = publisher;
    }

    /** A complete line (or a cut one) of {@code f}, ending at file offset {@code endOffset}. */
    void line(TailedFile f, byte[] b, int off, int len, long endOffset, boolean cut, long stamp)
            throws InterruptedException {
        chars.wrap(b, off, len);
        boolean starts = matcher.reset(chars).find();
        if (starts || f.recordLen == 0) {
            if (f.recordLen > 0) {
                out.emit(f, f.record, 0, f.recordLen, f.recordEnd, f.recordCut, stamp);
            }
            f.recordLen = 0;
            f.recordCut = false;
            append(f, b, off, len);
        } else {
            append(f, NEWLINE, 0, 1);
            append(f, b, off, len);
        }
        f.recordCut |= cut;
        f.recordEnd = endOffset;
        f.recordSinceNanos = System.nanoTime();
    }

    private void append(TailedFile f, byte[] b, int off, int len) {
        int room = maxLine - f.recordLen;
        if (len > room) {
            len = Math.max(0, room);
            if (!f.recordCut) {
                truncatedLines.incrementAndGet();
            }
            f.recordCut = true;
        }
        if (f.recordLen + len > f.record.length) {
            f.record = Arrays.copyOf(f.record, Math.max(f.recordLen + len, f.record.length * 2 + 64));
        }
        System.arraycopy(b, off, f.record, f.recordLen, len);
        f.recordLen += len;
    }

    /** Passes on the records that waited long enough (all of them when {@code all}), then publishes. */
    void flush(Collection<TailedFile> files, boolean all) throws InterruptedException {
        long t = System.nanoTime();
        for (TailedFile f : files) {
            if (f.recordLen > 0 && (all || t - f.recordSinceNanos >= timeoutNanos)) {
                pass(f);
            }
        }
        out.publish();
    }

    /** Passes on {@code f}'s record, if it has one (its file is released: no line will be added to it). */
    void pass(TailedFile f) throws InterruptedException {
        if (f.recordLen > 0) {
            out.emit(f, f.record, 0, f.recordLen, f.recordEnd, f.recordCut, Clock.epochNanos());
            f.recordLen = 0;
            f.recordCut = false;
        }
    }

    /** Whether no file has a record waiting. */
    static boolean nonePending(Collection<TailedFile> files) {
        for (TailedFile f : files) {
            if (f.recordLen > 0) {
                return false;
            }
        }
        return true;
    }

    /** A CharSequence over bytes (Latin-1) so the pattern runs without decoding to a String. */
    private static final class ByteChars implements CharSequence {
        private byte[] b;
        private int off;
        private int len;

        void wrap(byte[] bytes, int offset, int length) {
            b = bytes;
            off = offset;
            len = length;
        }

        @Override
        public int length() {
            return len;
        }

        @Override
        public char charAt(int index) {
            return (char) (b[off + index] & 0xFF);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new String(b, off + start, end - start, StandardCharsets.ISO_8859_1);
        }

        @Override
        public String toString() {
            return new String(b, off, len, StandardCharsets.ISO_8859_1);
        }
    }
}
