package io.sluice.core.message;

import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Inflates a gzip request body into a reused buffer, with one reused {@link Inflater}: the header is read by
 * hand (so no stream objects per request), concatenated members are accepted, and a truncated or corrupt body
 * or a wrong CRC is an error, never a partial result. Output is capped (gzip bombs get 413, not an OOM) and
 * reserved from the request's memory before it is produced: in steps (one step when the gzip trailer's size is
 * honest), and each larger buffer before it is allocated. A buffer that grew for one large body is dropped by
 * {@link #done()}, so a thread keeps at most {@value #RETAIN} bytes. One per thread (it is not thread-safe).
 *
 * <p>It also compresses a body whole ({@link #deflate}, with a {@link GzipWriter}) into the same kind of reused
 * buffer, for clients that send gzip requests: nothing is allocated per request.
 */
public final class GzipBody {
    /** Result of {@link #inflate}: ok, bad data, larger than the cap, or no memory reserved for more output. */
    public enum Result { OK, CORRUPT, TOO_LARGE, REFUSED }

    static final int INITIAL = 64 * 1024;
    /** Largest output buffer kept between requests. */
    static final int RETAIN = 1024 * 1024;
    /** Output reserved at a time when the trailer's size is no help. */
    static final int STEP = 256 * 1024;

    private final Inflater inflater = new Inflater(true);
    private GzipWriter writer;
    private final CRC32 crc = new CRC32();
    private byte[] out = new byte[INITIAL];
    private int length;
    private String error;
    private RequestMemory memory;
    private long charged;
    /** {@link #out} as {@link #deflate} writes it. */
    private final GzipWriter.Out sink = new GzipWriter.Out() {
        @Override
        public byte[] ensure(int n) {
            if (out.length < length + n) {
                out = Arrays.copyOf(out, Math.max(length + n, out.length * 2));
            }
            return out;
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public void setLength(int newLength) {
            length = newLength;
        }
    };

    /** The inflated bytes, {@code [0, length())}; valid until the next {@link #inflate} or {@link #done()}. */
    public byte[] output() {
        return out;
    }

    /** Bytes inflated. */
    public int length() {
        return length;
    }

    /** Why the body was {@link Result#CORRUPT}, in words. */
    public String error() {
        return error;
    }

    /** Bytes reserved from the request's memory for the output (given back by the caller). */
    public long charged() {
        return charged;
    }

    /** The request is done with the output: forgets the charge and drops a buffer that grew beyond {@link #RETAIN}. */
    public void done() {
        charged = 0;
        memory = null;
        length = 0;
        if (out.length > RETAIN) {
            out = new byte[INITIAL];
        }
    }

    /** Makes the charge cover {@code bytes}: false when the request's memory refused. */
    private boolean cover(long bytes) {
        if (bytes <= charged || memory == null) {
            return true;
        }
        if (!memory.take(bytes - charged)) {
            return false;
        }
        charged = bytes;
        return true;
    }

    private Result corrupt(String why) {
        error = why;
        return Result.CORRUPT;
    }

    /**
     * Inflates {@code in[off, off+len)} into {@link #output()}, at most {@code max} bytes, reserving the output from
     * {@code memory} (null: no reservation) as it goes; {@link #charged()} tells how much it reserved.
     */
    public Result inflate(byte[] in, int off, int len, int max, RequestMemory memory) {
        this.memory = memory;
        charged = 0;
        length = 0;
        int p = off;
        int end = off + len;
        if (len == 0) {
            return corrupt("empty gzip body");
        }
        long cap = Math.min((long) max + 1, Integer.MAX_VALUE - 16);
        // The last member's size (mod 2^32) ends the body: a hint for one reservation and one buffer, never trusted
        // as a limit (a bomb can lie; more output is reserved step by step).
        long isize = len >= 18 ? (in[end - 4] & 0xFFL) | (in[end - 3] & 0xFFL) << 8 | (in[end - 2] & 0xFFL) << 16
                | (in[end - 1] & 0xFFL) << 24 : 0;
        long want = isize <= max ? isize : 0;
        while (p < end) {
            if (end - p < 18 || (in[p] & 0xFF) != 0x1f || (in[p + 1] & 0xFF) != 0x8b || in[p + 2] != 8) {
                return corrupt(p == off ? "not gzip data" : "trailing garbage after gzip data");
            }
            int flags = in[p + 3] & 0xFF;
            p += 10;
            if ((flags & 4) != 0) { // FEXTRA
                if (p + 2 > end) {
                    return corrupt("truncated gzip header");
                }
                p += 2 + ((in[p] & 0xFF) | (in[p + 1] & 0xFF) << 8);
            }
            if ((flags & 8) != 0) { // FNAME
                while (p < end && in[p] != 0) {
                    p++;
                }
                p++;
            }
            if ((flags & 16) != 0) { // FCOMMENT
                while (p < end && in[p] != 0) {
                    p++;
                }
                p++;
            }
            if ((flags & 2) != 0) { // FHCRC
                p += 2;
            }
            if (p >= end) {
                return corrupt("truncated gzip header");
            }
            inflater.reset();
            crc.reset();
            inflater.setInput(in, p, end - p);
            int memberStart = length;
            try {
                while (!inflater.finished()) {
                    if (length == out.length) {
                        if (out.length >= cap) {
                            return Result.TOO_LARGE;
                        }
                        int grown = (int) Math.min(cap, Math.max(out.length * 2L, want + 1));
                        // The old buffer's bytes and the new buffer live together during the copy.
                        if (!cover((long) length + grown)) {
                            return Result.REFUSED;
                        }
                        out = Arrays.copyOf(out, grown);
                        if (memory != null && charged > grown) {
                            memory.give(charged - grown);
                            charged = grown;
                        }
                    }
                    int room = out.length - length;
                    long step = Math.max(STEP, want + 1 - length);
                    if (room > step) {
                        room = (int) step;
                    }
                    if (!cover((long) length + room)) {
                        return Result.REFUSED;
                    }
                    int n = inflater.inflate(out, length, room);
                    length += n;
                    if (length > max) {
                        return Result.TOO_LARGE;
                    }
                    if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                        return corrupt("truncated gzip data");
                    }
                }
            } catch (DataFormatException e) {
                return corrupt("corrupt gzip data: " + e.getMessage());
            }
            p = end - inflater.getRemaining();
            if (end - p < 8) {
                return corrupt("truncated gzip trailer");
            }
            crc.update(out, memberStart, length - memberStart);
            int c = (in[p] & 0xFF) | (in[p + 1] & 0xFF) << 8 | (in[p + 2] & 0xFF) << 16 | (in[p + 3] & 0xFF) << 24;
            if (c != (int) crc.getValue()) {
                return corrupt("gzip CRC mismatch");
            }
            p += 8;
        }
        return Result.OK;
    }

    /**
     * Compresses {@code src[off, off+len)} as one gzip member (RFC 1952) at {@code level} (1 fastest to 9 smallest)
     * into {@link #output()}; returns the compressed length, also {@link #length()}. The first call makes the
     * {@link GzipWriter}, later ones reuse it.
     */
    public int deflate(byte[] src, int off, int len, int level) {
        if (writer == null) {
            writer = new GzipWriter(level);
        }
        writer.setLevel(level);
        length = 0;
        writer.begin(sink);
        writer.feed(sink, src, off, len);
        writer.finish(sink);
        return length;
    }

    /** Frees the native inflater (and deflater). */
    public void close() {
        inflater.end();
        if (writer != null) {
            writer.close();
        }
    }
}
