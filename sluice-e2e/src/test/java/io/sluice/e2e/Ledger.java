package io.sluice.e2e;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the numbered events in an NDJSON file as it grows: lines like {@code {"n":123,"s":"f",...}} (the
 * {@code s} source tag tells senders apart). Reads only what was appended since the last call and only whole
 * lines, so it can follow producer.File while it writes.
 */
final class Ledger {
    private static final Pattern EVENT = Pattern.compile("\"n\":(\\d+),\"s\":\"(\\w)\"");

    private final Path file;
    private long offset;
    private final BitSet[] seen = new BitSet[128];
    private long lines;
    private long duplicates;
    private long unparsable;

    Ledger(Path file) {
        this.file = file;
    }

    /** Reads the lines appended since the last call. */
    synchronized Ledger refresh() throws IOException {
        if (!Files.exists(file)) {
            return this;
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long size = f.length();
            if (size <= offset) {
                return this;
            }
            byte[] bytes = new byte[(int) Math.min(size - offset, 64 << 20)];
            f.seek(offset);
            f.readFully(bytes);
            int lineStart = 0;
            for (int i = 0; i < bytes.length; i++) {
                if (bytes[i] == '\n') {
                    line(new String(bytes, lineStart, i - lineStart, StandardCharsets.UTF_8));
                    lineStart = i + 1;
                }
            }
            offset += lineStart;
        }
        return this;
    }

    private void line(String line) {
        lines++;
        Matcher m = EVENT.matcher(line);
        if (!m.find()) {
            unparsable++;
            return;
        }
        int n = Integer.parseInt(m.group(1));
        BitSet s = set(m.group(2).charAt(0));
        if (s.get(n)) {
            duplicates++;
        } else {
            s.set(n);
        }
    }

    private BitSet set(char source) {
        if (seen[source] == null) {
            seen[source] = new BitSet();
        }
        return seen[source];
    }

    /** Distinct numbers seen from a source. */
    synchronized int distinct(char source) {
        return set(source).cardinality();
    }

    /** Whether every number in [0, n) arrived from the source. */
    synchronized boolean hasAll(char source, int n) {
        return set(source).nextClearBit(0) >= n;
    }

    /** Numbers in [0, n) that did not arrive, at most {@code limit} of them. */
    synchronized String missing(char source, int n, int limit) {
        StringBuilder b = new StringBuilder();
        BitSet s = set(source);
        int count = 0;
        for (int i = s.nextClearBit(0); i < n && count < limit; i = s.nextClearBit(i + 1), count++) {
            b.append(i).append(' ');
        }
        return b.toString();
    }

    synchronized BitSet copy(char source) {
        return (BitSet) set(source).clone();
    }

    synchronized long lines() {
        return lines;
    }

    synchronized long duplicates() {
        return duplicates;
    }

    synchronized long unparsable() {
        return unparsable;
    }

    @Override
    public synchronized String toString() {
        return file.getFileName() + ": " + lines + " lines, " + duplicates + " duplicates, " + unparsable + " unparsable";
    }
}
