package io.sluice.hec.receiver;

import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Inflates a gzip request body into a reused buffer, with one reused {@link Inflater}: the header is read by
 * hand (so no stream objects per request), concatenated members are accepted, and a truncated or corrupt body
 * or a wrong CRC is an error, never a partial result. Output is capped (gzip bombs get 413, not an OOM).
 */
final class GzipBody {
    /** Result of {@link #inflate}: ok, bad data, or larger than the cap. */
    enum Result { OK, CORRUPT, TOO_LARGE }

    private final Inflater inflater = new Inflater(true);
    private final CRC32 crc = new CRC32();
    private byte[] out = new byte[64 * 1024];
    private int length;
    private String error;

    byte[] output() {
        return out;
    }

    int length() {
        return length;
    }

    String error() {
        return error;
    }

    private Result corrupt(String why) {
        error = why;
        return Result.CORRUPT;
    }

    Result inflate(byte[] in, int off, int len, int max) {
        length = 0;
        int p = off;
        int end = off + len;
        if (len == 0) {
            return corrupt("empty gzip body");
        }
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
                        if (out.length >= max) {
                            return Result.TOO_LARGE;
                        }
                        out = java.util.Arrays.copyOf(out, (int) Math.min((long) max + 1, out.length * 2L));
                    }
                    int n = inflater.inflate(out, length, out.length - length);
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

    void close() {
        inflater.end();
    }
}
