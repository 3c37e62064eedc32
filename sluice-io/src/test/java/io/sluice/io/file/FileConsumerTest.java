package io.sluice.io.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileConsumerTest {
    @TempDir
    Path dir;

    private static void append(Path p, String prefix, int from, int to) throws Exception {
        StringBuilder b = new StringBuilder();
        for (int i = from; i < to; i++) {
            b.append(prefix).append(i).append('\n');
        }
        Files.writeString(p, b, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private String tail(String file, String extra) {
        return "In:\n  Type: consumer.File\n  File: " + file + "\n  PollingDelayMs: 5\n  RotateWaitMs: 300\n"
                + "  DirScanIntervalSec: 1\n  Streams: s\n" + extra
                + "Out:\n  Type: test.Collect\n  Streams: s\n  Channel: 1024\n";
    }

    @Test
    void followsRotationByRenameAndByCopytruncateWhileTailing() throws Exception {
        Path log = dir.resolve("app.log");
        append(log, "old-", 0, 1000);
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), "  DefaultOffset: oldest\n")).start()) {
            p.await("the first 1000 lines", () -> p.collect("Out").size() == 1000);

            // Rotation by rename: late writes to the renamed file are still read, the new file from its start.
            Files.move(log, dir.resolve("app.log.1"));
            append(dir.resolve("app.log.1"), "late-", 0, 10);
            append(log, "new-", 0, 500);
            p.await("the renamed file's tail and the new file", () -> p.collect("Out").size() == 1510);

            // copytruncate: copy away, truncate in place, keep writing (shorter than before).
            Files.copy(log, dir.resolve("app.log.2"), StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
                ch.truncate(0);
            }
            PipelineHarness.await("the truncation to be seen", 10_000, () -> p.logText().contains("was truncated"));
            append(log, "t-", 0, 300);
            p.await("the lines after truncation", () -> p.collect("Out").size() == 1810);

            List<String> got = p.payloads("Out");
            assertThat(new HashSet<>(got)).hasSize(1810);
            assertThat(got).contains("old-999", "late-9", "new-0", "new-499", "t-0", "t-299");
            assertThat(got.indexOf("late-9")).isLessThan(got.indexOf("new-499"));
        }
    }

    @Test
    void restartInTheMiddleReadsEveryLineExactlyOnce() throws Exception {
        Path log = dir.resolve("big.log");
        append(log, "line-", 0, 20_000);
        String config = tail(log.toString(), "  DefaultOffset: oldest\n  ReadBufferKB: 4\n  OffsetFilePath: " + dir.resolve("offsets") + "\n");

        List<String> first;
        PipelineHarness p1 = PipelineHarness.builder().log(new MemoryLog()).yaml(config).build();
        Collect held = p1.collect("Out");
        held.holdAfter(2_000);
        p1.start();
        try {
            p1.await("2000 lines, then the producer holds", () -> held.size() >= 2_000);
            // Stop while the consumer is blocked mid-file, then let the producer drain what was queued.
            Thread stopper = new Thread(p1::close);
            stopper.start();
            PipelineHarness.await("stop to begin", 5_000, () -> !p1.pipeline().isActive());
            held.open();
            stopper.join(20_000);
        } finally {
            held.open();
        }
        first = new ArrayList<>(held.payloads);
        assertThat(first.size()).as("stopped in the middle of the file; log:\n%s", p1.logText()).isLessThan(20_000);
        String checkpoint = Files.readString(dir.resolve("offsets/big.log.offset"));
        assertThat(Long.parseLong(checkpoint.split("\n")[0])).isLessThan(Files.size(log));

        try (PipelineHarness p2 = PipelineHarness.builder().log(new MemoryLog()).yaml(config).start()) {
            p2.await("the rest of the file", () -> first.size() + p2.collect("Out").size() >= 20_000);
            List<String> all = new ArrayList<>(first);
            all.addAll(p2.payloads("Out"));
            assertThat(all).hasSize(20_000).doesNotHaveDuplicates();
            assertThat(all.get(0)).isEqualTo("line-0");
            assertThat(all.get(first.size())).isEqualTo("line-" + first.size());
        }
    }

    @Test
    void badInputLongLinesInvalidUtf8AndAHalfWrittenLastLine() throws Exception {
        Path log = dir.resolve("bad.log");
        try (OutputStream out = Files.newOutputStream(log)) {
            out.write("first\n".getBytes(StandardCharsets.UTF_8));
            out.write(("y".repeat(100) + "\n").getBytes(StandardCharsets.UTF_8));
            out.write(new byte[] {(byte) 0xFF, (byte) 0xFE, 'z', '\n'});
            out.write("half-wri".getBytes(StandardCharsets.UTF_8));
        }
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log.toString(), "  DefaultOffset: oldest\n  MaxLineSize: 16\n  SetMetadata: true\n")).start()) {
            p.await("three whole lines", () -> p.collect("Out").size() == 3);
            List<String> got = p.payloads("Out");
            assertThat(got.get(0)).isEqualTo("first");
            assertThat(got.get(1)).isEqualTo("y".repeat(16));
            assertThat(p.captured("Out").get(1).fields()).containsEntry("truncated", "true").containsEntry("file", "bad.log");
            assertThat(got.get(2).getBytes(StandardCharsets.UTF_8)).hasSizeGreaterThan(1);
            // The half-written line is held back until it is complete.
            Files.writeString(log, "tten\n", StandardOpenOption.APPEND);
            p.await("the completed line", () -> p.collect("Out").size() == 4);
            assertThat(p.payloads("Out").get(3)).isEqualTo("half-written");
        }
    }

    @Test
    void newFilesMatchingTheGlobArePickedUpAndMultilineRecordsJoined() throws Exception {
        Files.createDirectories(dir.resolve("logs"));
        append(dir.resolve("logs/a.log"), "a-", 0, 3);
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(dir.resolve("logs/*.log").toString(),
                "  DefaultOffset: oldest\n  MultilineStart: \"^[a-z]-|^20\"\n  MultilineTimeoutMs: 50\n")).start()) {
            p.await("a.log", () -> p.collect("Out").size() == 3);
            Files.writeString(dir.resolve("logs/b.log"), "2024 boom\n  at x\n  at y\n2024 next\n");
            Files.writeString(dir.resolve("logs/c.txt"), "not matched\n");
            p.await("b.log's two records", () -> p.collect("Out").size() == 5);
            List<String> got = p.payloads("Out");
            assertThat(got.subList(3, 5)).containsExactly("2024 boom\n  at x\n  at y", "2024 next");
            Set<String> all = new HashSet<>(got);
            assertThat(all).doesNotContain("not matched");
        }
    }
}
