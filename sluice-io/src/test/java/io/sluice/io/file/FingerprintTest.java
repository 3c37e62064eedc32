package io.sluice.io.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The first-bytes fingerprint on a real file, driven step by step: no reader thread, nothing timed. */
class FingerprintTest {
    @TempDir
    Path dir;

    private final Fingerprint fingerprints = new Fingerprint();

    private static void write(FileChannel ch, String text) throws Exception {
        ch.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
    }

    private FileChannel open(Path p) throws Exception {
        return FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    @Test
    void growsWithAShortFileAndStaysOnceItCoversItsBytes() throws Exception {
        try (FileChannel ch = open(dir.resolve("a.log"))) {
            assertThat(fingerprints.verify(ch, Fingerprint.NONE)).isEqualTo(Fingerprint.NONE);
            write(ch, "short\n");
            long first = fingerprints.verify(ch, Fingerprint.NONE);
            assertThat(Fingerprint.length(first)).isEqualTo(6);
            write(ch, "x".repeat(1000) + "\n");
            long full = fingerprints.verify(ch, first);
            assertThat(Fingerprint.length(full)).isEqualTo(Fingerprint.BYTES);
            write(ch, "more\n");
            assertThat(fingerprints.verify(ch, full)).isEqualTo(full);
            assertThat(ch.position()).as("the reader's position is not moved").isEqualTo(1012);
        }
    }

    @Test
    void contentReplacedAtTheSameSizeOrLargerOrSmallerIsAMismatch() throws Exception {
        try (FileChannel ch = open(dir.resolve("b.log"))) {
            write(ch, "old-line-1\nold-line-2\n");
            long known = fingerprints.verify(ch, Fingerprint.NONE);

            ch.truncate(0).position(0);
            write(ch, "new-line-1\nnew-line-2\n"); // the same byte count
            assertThat(fingerprints.verify(ch, known)).isEqualTo(Fingerprint.MISMATCH);

            write(ch, "new-line-3\n"); // larger than what was fingerprinted
            assertThat(fingerprints.verify(ch, known)).isEqualTo(Fingerprint.MISMATCH);

            ch.truncate(0).position(0);
            write(ch, "old-line-1\n"); // the same first bytes, but fewer than were fingerprinted
            assertThat(fingerprints.verify(ch, known)).isEqualTo(Fingerprint.MISMATCH);

            ch.truncate(0).position(0);
            assertThat(fingerprints.verify(ch, known)).as("emptied").isEqualTo(Fingerprint.MISMATCH);
        }
    }

    @Test
    void aCheckpointHoldsItAsTextAndAnythingElseReadsAsNone() throws Exception {
        Path p = dir.resolve("d.log");
        Files.writeString(p, "some content\n");
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            long known = fingerprints.verify(ch, Fingerprint.NONE);
            assertThat(Fingerprint.parse(Fingerprint.format(known))).isEqualTo(known);
        }
        assertThat(Fingerprint.parse("")).isEqualTo(Fingerprint.NONE);
        assertThat(Fingerprint.parse("13")).isEqualTo(Fingerprint.NONE);
        assertThat(Fingerprint.parse("13:zz")).isEqualTo(Fingerprint.NONE);
        assertThat(Fingerprint.parse("0:0")).isEqualTo(Fingerprint.NONE);
        assertThat(Fingerprint.parse("99999:1")).as("more bytes than a fingerprint covers").isEqualTo(Fingerprint.NONE);
        assertThat(Fingerprint.parse("4:-1")).isEqualTo(Fingerprint.NONE);
    }
}
