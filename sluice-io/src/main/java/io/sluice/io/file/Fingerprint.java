package io.sluice.io.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * The identity of a file's content, as Vector checks it: a CRC32C of its first {@value #BYTES} bytes (fewer while
 * the file is shorter). A file copied and truncated in place keeps its device and inode, and when the writer puts
 * back at least as many bytes as were read before the reader looks again, its size never goes down either; only
 * its first bytes tell that the content was replaced from the start.
 *
 * <p>A fingerprint is one {@code long}, so it is written and read atomically and costs no allocation: the number
 * of bytes it covers in the high 32 bits, their CRC32C in the low 32. {@link #NONE} covers no byte and matches any
 * content. One instance belongs to one reader thread: it reuses its buffer and checksum.
 */
final class Fingerprint {
    /** How many leading bytes identify a file: a first line's timestamp and more, and little to read per check. */
    static final int BYTES = 256;
    /** Covers nothing yet: matches every file. */
    static final long NONE = 0;
    /** What {@link #verify} answers when the first bytes are not the ones fingerprinted. */
    static final long MISMATCH = -1;

    private final ByteBuffer head = ByteBuffer.allocate(BYTES);
    private final CRC32C crc = new CRC32C();

    /**
     * Reads the first bytes of {@code ch} (without moving its position) and checks them against {@code known}.
     *
     * @return {@link #MISMATCH} when the file no longer starts with the bytes {@code known} covers (replaced, or
     *         shorter than they were); else the fingerprint of all the first bytes there now, which extends
     *         {@code known} while the file is shorter than {@value #BYTES} bytes
     */
    long verify(FileChannel ch, long known) throws IOException {
        int have = readHead(ch);
        int covered = length(known);
        if (have < covered) {
            return MISMATCH;
        }
        crc.reset();
        crc.update(head.array(), 0, covered);
        if (covered > 0 && (int) crc.getValue() != (int) known) {
            return MISMATCH;
        }
        if (have == covered) {
            return known;
        }
        crc.update(head.array(), covered, have - covered);
        return of(have, crc.getValue());
    }

    private int readHead(FileChannel ch) throws IOException {
        head.clear();
        long at = 0;
        int n;
        while (head.hasRemaining() && (n = ch.read(head, at)) > 0) {
            at += n;
        }
        return head.position();
    }

    private static long of(int length, long crc32c) {
        return ((long) length << 32) | (crc32c & 0xFFFF_FFFFL);
    }

    /** How many leading bytes {@code fingerprint} covers. */
    static int length(long fingerprint) {
        return (int) (fingerprint >>> 32);
    }

    /** {@code fingerprint} as a checkpoint holds it: {@code LENGTH:CRC32C} (hexadecimal). */
    static String format(long fingerprint) {
        return length(fingerprint) + ":" + Integer.toHexString((int) fingerprint);
    }

    /** The fingerprint {@link #format} wrote; {@link #NONE} for anything else (a checkpoint of an older version). */
    static long parse(String text) {
        int colon = text.indexOf(':');
        try {
            int length = Integer.parseInt(text.substring(0, colon));
            long crc32c = Long.parseLong(text.substring(colon + 1), 16);
            return length > 0 && length <= BYTES && crc32c >= 0 && crc32c <= 0xFFFF_FFFFL ? of(length, crc32c) : NONE;
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return NONE;
        }
    }
}
