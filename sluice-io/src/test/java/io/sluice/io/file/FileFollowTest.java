package io.sluice.io.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * consumer.File on real files: rotation by rename and create, by copytruncate, truncation, and checkpoints across
 * restarts (no line lost or read twice). Every wait polls with a deadline.
 */
class FileFollowTest {
    @TempDir
    Path dir;

    private static List<String> lines(String prefix, int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(prefix + i);
        }
        return out;
    }

    private static void append(Path p, List<String> lines) throws Exception {
        Files.writeString(p, String.join("\n", lines) + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private String tail(String file, String extra) {
        return tail(file, extra, 5);
    }

    private String tail(String file, String extra, int pollMs) {
        return "In:\n  Type: consumer.File\n  File: \"" + file + "\"\n  PollingDelayMs: " + pollMs
                + "\n  RotateWaitMs: 1000\n"
                + "  DirScanIntervalSec: 1\n  CheckpointIntervalMs: 20\n  DefaultOffset: oldest\n  Streams: s\n" + extra
                + "Out:\n  Type: test.Collect\n  Streams: s\n";
    }

    private String offsets() {
        return "  OffsetFilePath: " + dir.resolve("offsets") + "\n";
    }

    /** The offset a checkpoint holds; -1 while there is none (or while it is being replaced). */
    private static long checkpoint(Path p) {
        try {
            return Long.parseLong(Files.readString(p).split("\n")[0]);
        } catch (java.io.IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** How many lines a checkpoint holds; -1 while there is none. */
    private static int checkpointLines(Path p) {
        try {
            return Files.readString(p).split("\n").length;
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    @Test
    void rotationByRenameAndCreateReadsTheOldFileToItsEndThenReleasesIt() throws Exception {
        Path log = dir.resolve("app.log");
        append(log, lines("a-", 0, 100));
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(dir.resolve("app.log").toString(), "")).start()) {
            p.await("the first lines", () -> p.collect("Out").size() == 100);
            Path old = dir.resolve("app.log.1");
            Files.move(log, old);
            append(log, lines("b-", 0, 50));
            append(old, lines("late-", 0, 5)); // a writer still holding the renamed file
            p.await("the new file and the late lines", () -> p.collect("Out").size() == 155);
            PipelineHarness.await("the renamed file to be released", 10_000, () -> p.logText().contains("released " + log));
            assertThat(p.logText()).contains(log + " was rotated or removed; reading it to its end");

            List<String> got = p.payloads("Out");
            List<String> want = new ArrayList<>(lines("a-", 0, 100));
            want.addAll(lines("b-", 0, 50));
            want.addAll(lines("late-", 0, 5));
            assertThat(got).containsExactlyInAnyOrderElementsOf(want);
            assertThat(got.subList(0, 100)).isEqualTo(lines("a-", 0, 100));

            // The name now leads to the new file only: more lines there arrive once, in order.
            append(log, lines("c-", 0, 10));
            p.await("lines of the new file", () -> p.collect("Out").size() == 165);
            assertThat(p.payloads("Out").subList(155, 165)).isEqualTo(lines("c-", 0, 10));
        }
    }

    @Test
    void copytruncateIsReadAgainFromTheStartWithoutRepeatingOldLines() throws Exception {
        Path log = dir.resolve("copy.log");
        append(log, lines("before-with-a-long-line-", 0, 200));
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), "")).start()) {
            p.await("the lines before", () -> p.collect("Out").size() == 200);
            Files.copy(log, dir.resolve("copy.log.1"), StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
                ch.truncate(0);
            }
            PipelineHarness.await("the truncation to be seen", 10_000, () -> p.logText().contains(log + " was truncated"));
            append(log, lines("after-", 0, 20)); // shorter than what was read before
            p.await("the lines after", () -> p.collect("Out").size() == 220);
            assertThat(p.payloads("Out").subList(200, 220)).isEqualTo(lines("after-", 0, 20));
        }
    }

    /**
     * logrotate's copytruncate: the content goes to a copy, the file is truncated in place, and the writer puts
     * {@code lines} back, all before the reader's next poll.
     */
    private void copytruncate(Path log, List<String> lines) throws Exception {
        Files.copy(log, log.resolveSibling(log.getFileName() + ".1"), StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        append(log, lines);
    }

    /**
     * Dates the file's last write an hour back. Linux stamps modification times with a clock of a few milliseconds'
     * resolution, so a rewrite right after the first write could carry the same time; a log rotated a while after
     * its last write does not.
     */
    private static void writtenLongAgo(Path log) throws Exception {
        Files.setLastModifiedTime(log, FileTime.from(Instant.now().minus(1, ChronoUnit.HOURS)));
    }

    /** A last line appended and awaited: whatever would have been read twice was read before it. */
    private static void awaitLastLine(PipelineHarness p, Path log, int total) throws Exception {
        append(log, List.of("last"));
        p.await("the last line", () -> p.collect("Out").size() >= total);
    }

    @Test
    void copytruncateWrittenBackToTheSameSizeBeforeTheNextPollIsReadAgain() throws Exception {
        Path log = dir.resolve("same.log");
        append(log, lines("old-", 0, 100));
        writtenLongAgo(log);
        long size = Files.size(log);
        // A poll a second apart: the copy, the truncation and the rewrite all happen between two of them.
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), "", 1000)).start()) {
            p.await("the old lines", () -> p.collect("Out").size() == 100);
            copytruncate(log, lines("new-", 0, 100));
            assertThat(Files.size(log)).as("as many bytes as were read: the size never went down").isEqualTo(size);
            p.await("the new lines", () -> p.collect("Out").size() >= 200);
            awaitLastLine(p, log, 201);
            List<String> want = new ArrayList<>(lines("old-", 0, 100));
            want.addAll(lines("new-", 0, 100));
            want.add("last");
            assertThat(p.payloads("Out")).isEqualTo(want);
        }
    }

    @Test
    void copytruncateWrittenBackLargerBeforeTheNextPollIsReadAgainFromItsStart() throws Exception {
        Path log = dir.resolve("larger.log");
        append(log, lines("old-", 0, 100));
        long size = Files.size(log);
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), "", 1000)).start()) {
            p.await("the old lines", () -> p.collect("Out").size() == 100);
            copytruncate(log, lines("new-", 0, 150));
            assertThat(Files.size(log)).as("more bytes than were read").isGreaterThan(size);
            p.await("the new lines", () -> p.collect("Out").size() >= 250);
            awaitLastLine(p, log, 251);
            List<String> want = new ArrayList<>(lines("old-", 0, 100));
            want.addAll(lines("new-", 0, 150));
            want.add("last");
            assertThat(p.payloads("Out")).isEqualTo(want);
            assertThat(p.logText()).contains(log + " was truncated");
        }
    }

    @Test
    void copytruncateWhileTheReaderIsBehindReadsNoMiddleOfTheNewContent() throws Exception {
        Path log = dir.resolve("behind.log");
        append(log, lines("old-", 0, 30_000));
        PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), "  ReadBufferKB: 4\n")).build();
        Collect out = p.collect("Out");
        out.holdAfter(2_000);
        try (p) {
            p.start();
            // The producer holds, its queue fills, and the reader waits in the middle of the file: the copytruncate
            // puts more bytes back than it had read, so its next read lands in the middle of the new content.
            p.await("2000 lines, then the producer holds", () -> out.size() >= 2_000);
            PipelineHarness.await("the reader to wait for room in the queue", 10_000, FileFollowTest::readerBlocked);
            copytruncate(log, lines("new-", 0, 40_000));
            out.open();
            p.await("the new content", () -> out.size() >= 2_000 && out.payloads.contains("new-39999"));
            awaitLastLine(p, log, out.size() + 1);
            List<String> got = p.payloads("Out");
            int read = got.indexOf("new-0");
            assertThat(read).as("old lines read before the truncation").isBetween(2_000, 29_999);
            assertThat(got.subList(0, read)).as("the old lines it had read, once, in order")
                    .isEqualTo(lines("old-", 0, read));
            List<String> want = new ArrayList<>(lines("new-", 0, 40_000));
            want.add("last");
            assertThat(got.subList(read, got.size())).as("the new content from its start, once").isEqualTo(want);
            assertThat(p.logText()).as("no shrink seen: the first bytes told")
                    .contains(log + " was truncated and written again");
        }
    }

    /** Whether a reader of consumer.File waits, in the middle of publishing a batch, for room in a full queue. */
    private static boolean readerBlocked() {
        return Thread.getAllStackTraces().entrySet().stream()
                .anyMatch(e -> e.getKey().getState() == Thread.State.WAITING && Arrays.stream(e.getValue())
                        .anyMatch(f -> f.getClassName().equals(LinePublisher.class.getName())));
    }

    @Test
    void aFileCopiedAndTruncatedWhileSluiceWasDownIsReadFromItsStart() throws Exception {
        Path log = dir.resolve("down.log");
        Path offset = dir.resolve("offsets/down.log.offset");
        append(log, lines("old-", 0, 100));
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), offsets())).start()) {
            p.await("the old lines", () -> p.collect("Out").size() == 100);
            long size = Files.size(log);
            PipelineHarness.await("the checkpoint at the end", 10_000, () -> checkpoint(offset) == size);
        }
        copytruncate(log, lines("new-", 0, 150)); // same inode, more bytes than the checkpoint's offset
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), offsets())).start()) {
            p.await("the new content", () -> p.collect("Out").size() >= 150);
            awaitLastLine(p, log, 151);
            List<String> want = new ArrayList<>(lines("new-", 0, 150));
            want.add("last");
            assertThat(p.payloads("Out")).isEqualTo(want);
            assertThat(p.logText()).contains(log + " no longer starts with the bytes its checkpoint was taken of");
        }
    }

    @Test
    void aCheckpointOfAnOlderVersionWithoutFingerprintStillResumes() throws Exception {
        Path log = dir.resolve("older.log");
        Path offset = dir.resolve("offsets/older.log.offset");
        append(log, lines("one-", 0, 50));
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), offsets())).start()) {
            p.await("the first run's lines", () -> p.collect("Out").size() == 50);
            long size = Files.size(log);
            PipelineHarness.await("the checkpoint at the end", 10_000, () -> checkpoint(offset) == size);
        }
        String[] saved = Files.readString(offset).split("\n");
        Files.writeString(offset, saved[0] + "\n" + saved[1] + "\n"); // offset and identity, as before fingerprints
        append(log, lines("two-", 0, 20));
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), offsets())).start()) {
            p.await("the second run's lines", () -> p.collect("Out").size() >= 20);
            awaitLastLine(p, log, 21);
            List<String> want = new ArrayList<>(lines("two-", 0, 20));
            want.add("last");
            assertThat(p.payloads("Out")).isEqualTo(want);
            long size = Files.size(log);
            PipelineHarness.await("the checkpoint with a fingerprint", 10_000, () -> checkpoint(offset) == size
                    && checkpointLines(offset) == 3);
        }
    }

    @Test
    void truncationWhileCheckpointingRestartsTheCheckpointAtTheNewContent() throws Exception {
        Path log = dir.resolve("t.log");
        Path offset = dir.resolve("offsets/t.log.offset");
        append(log, lines("old-", 0, 500));
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), offsets())).start()) {
            p.await("the old lines", () -> p.collect("Out").size() == 500);
            long full = Files.size(log);
            PipelineHarness.await("the checkpoint at the end", 10_000, () -> checkpoint(offset) == full);
            try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
                ch.truncate(0);
            }
            PipelineHarness.await("the truncation to be seen", 10_000, () -> p.logText().contains("was truncated"));
            append(log, lines("new-", 0, 3));
            p.await("the new lines", () -> p.collect("Out").size() == 503);
            long now = Files.size(log);
            PipelineHarness.await("the checkpoint of the new content", 10_000, () -> checkpoint(offset) == now);
        }
        append(log, lines("next-", 0, 2));
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), offsets())).start()) {
            p.await("the lines after the restart", () -> p.collect("Out").size() >= 2);
            assertThat(p.payloads("Out")).isEqualTo(lines("next-", 0, 2));
        }
    }

    @Test
    void aRestartResumesAtTheCheckpointAndAFileRenamedMeanwhileKeepsItsOffset() throws Exception {
        Path log = dir.resolve("svc.log");
        Path offset = dir.resolve("offsets/svc.log.offset");
        append(log, lines("one-", 0, 300));
        String config = tail(dir.resolve("svc.log*").toString(), offsets());
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(config).start()) {
            p.await("the first run's lines", () -> p.collect("Out").size() == 300);
            long size = Files.size(log);
            PipelineHarness.await("the checkpoint at the end", 10_000, () -> checkpoint(offset) == size);
        }
        // The checkpoint names the file's identity (and its first bytes' fingerprint), so it survives the rename
        // while Sluice is down.
        assertThat(Files.readString(offset).split("\n")).hasSize(3);
        Path rotated = dir.resolve("svc.log.1");
        Files.move(log, rotated);
        append(rotated, lines("two-", 0, 40));
        append(log, lines("three-", 0, 25));
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(config).start()) {
            p.await("the second run's lines", () -> p.collect("Out").size() >= 65);
            List<String> want = new ArrayList<>(lines("two-", 0, 40));
            want.addAll(lines("three-", 0, 25));
            assertThat(p.payloads("Out")).containsExactlyInAnyOrderElementsOf(want);
        }
    }

    @Test
    void gollumsOffsetFileHoldsOnlyTheOffsetOfItsOneFile() throws Exception {
        Path log = dir.resolve("g.log");
        append(log, lines("g-", 0, 10));
        Path offsetFile = dir.resolve("g.offset");
        long fifth = String.join("\n", lines("g-", 0, 5)).length() + 1;
        Files.writeString(offsetFile, fifth + "\n", StandardCharsets.UTF_8);
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), "  OffsetFile: " + offsetFile + "\n")).start()) {
            p.await("the lines after the offset", () -> p.collect("Out").size() >= 5);
            assertThat(p.payloads("Out")).isEqualTo(lines("g-", 5, 10));
            long size = Files.size(log);
            PipelineHarness.await("the offset to be written back", 10_000, () -> checkpoint(offsetFile) == size);
        }
    }

    @Test
    void aCheckpointPastTheEndOfItsFileMeansTheFileWasReplaced() throws Exception {
        Path log = dir.resolve("r.log");
        append(log, lines("r-", 0, 3));
        Files.createDirectories(dir.resolve("offsets"));
        Files.writeString(dir.resolve("offsets/r.log.offset"), "999999\n");
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), offsets())).start()) {
            p.await("the whole file", () -> p.collect("Out").size() >= 3);
            assertThat(p.payloads("Out")).isEqualTo(lines("r-", 0, 3));
            assertThat(p.logText()).contains("checkpoint of " + log + " is past its end; the file was replaced, reading from the start");
        }
    }
}
