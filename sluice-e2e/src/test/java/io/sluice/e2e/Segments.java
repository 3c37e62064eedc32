package io.sluice.e2e;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads a disk buffer's segment files the way DiskBuffer writes them ({@code [magic "SLB1"][length][crc32c][body]}
 * per record), to find record boundaries to damage and the event numbers each record holds.
 */
final class Segments {
    static final int MAGIC = 0x534C4231;
    static final int HEADER = 12;
    private static final Pattern NUMBER = Pattern.compile("\"n\":(\\d+),\"s\":\"\\w\"");

    /** One record: its segment, offset, total length (header included) and the event numbers in its body. */
    static final class Record {
        final Path segment;
        final long offset;
        final int length;
        final List<Integer> numbers;

        Record(Path segment, long offset, int length, List<Integer> numbers) {
            this.segment = segment;
            this.offset = offset;
            this.length = length;
            this.numbers = numbers;
        }
    }

    private Segments() {
    }

    /** The segment files of a buffer directory, oldest first. */
    static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".seg")).sorted().toList();
        }
    }

    /** Every record of one (undamaged) segment. */
    static List<Record> records(Path segment) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(segment));
        List<Record> out = new ArrayList<>();
        while (b.remaining() >= HEADER) {
            int at = b.position();
            int magic = b.getInt();
            int len = b.getInt();
            b.getInt();
            if (magic != MAGIC || len <= 0 || len > b.remaining()) {
                throw new IllegalStateException(segment + ": no record at " + at);
            }
            String body = new String(b.array(), at + HEADER, len, StandardCharsets.ISO_8859_1);
            List<Integer> numbers = new ArrayList<>();
            Matcher m = NUMBER.matcher(body);
            while (m.find()) {
                numbers.add(Integer.parseInt(m.group(1)));
            }
            out.add(new Record(segment, at, HEADER + len, numbers));
            b.position(at + HEADER + len);
        }
        if (b.hasRemaining()) {
            throw new IllegalStateException(segment + ": " + b.remaining() + " bytes after the last record");
        }
        return out;
    }

    /** XORs one byte of a file with 0xFF. */
    static void flip(Path file, long offset) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[(int) offset] ^= (byte) 0xFF;
        Files.write(file, bytes);
    }

    /** Cuts a file to {@code size} bytes, as a crash in the middle of a write would. */
    static void truncate(Path file, long size) throws IOException {
        try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(size);
        }
    }
}
