package io.sluice.io.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** consumer.File's MultilineStart: records from a start line and its continuations, passed on by the next start or a timeout. */
class MultilineTest {
    @TempDir
    Path dir;

    private String tail(Path file, String extra) {
        return "In:\n  Type: consumer.File\n  File: " + file + "\n  PollingDelayMs: 5\n  DefaultOffset: oldest\n"
                + "  MultilineStart: \"^\\\\d{4}-\\\\d{2}-\\\\d{2} \"\n  Streams: s\n" + extra
                + "Out:\n  Type: test.Collect\n  Streams: s\n";
    }

    private static void write(Path p, String text) throws Exception {
        Files.writeString(p, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void continuationLinesJoinTheirRecordAndTheLastRecordLeavesAfterTheTimeout() throws Exception {
        Path log = dir.resolve("java.log");
        write(log, "2024-05-01 12:00:00 ERROR boom\njava.lang.IllegalStateException: x\n\tat a.B.c(B.java:1)\n"
                + "\tat a.B.main(B.java:9)\n2024-05-01 12:00:01 INFO fine\n2024-05-01 12:00:02 WARN last\n  detail\n");
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log, "  MultilineTimeoutMs: 100\n")).start()) {
            // The last record has no start line after it: only the timeout passes it on.
            p.await("three records", () -> p.collect("Out").size() == 3);
            assertThat(p.payloads("Out")).containsExactly(
                    "2024-05-01 12:00:00 ERROR boom\njava.lang.IllegalStateException: x\n\tat a.B.c(B.java:1)\n\tat a.B.main(B.java:9)",
                    "2024-05-01 12:00:01 INFO fine",
                    "2024-05-01 12:00:02 WARN last\n  detail");
            // A continuation arriving after its record left starts a record of its own.
            write(log, "  orphan\n");
            p.await("the orphan", () -> p.collect("Out").size() == 4);
            assertThat(p.payloads("Out").get(3)).isEqualTo("  orphan");
        }
    }

    @Test
    void aRecordWaitsForTheNextStartLineWithinTheTimeoutAndLeavesAtShutdown() throws Exception {
        Path log = dir.resolve("wait.log");
        write(log, "2024-05-01 00:00:00 first\n  more\n2024-05-01 00:00:01 second\n  held\n");
        PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log, "  MultilineTimeoutMs: 600000\n")).start();
        Collect out;
        try {
            // The first record leaves when the second starts, so the reader has read the second's lines by then.
            p.await("the first record", () -> p.collect("Out").size() == 1);
            out = p.collect("Out");
            assertThat(p.payloads("Out")).containsExactly("2024-05-01 00:00:00 first\n  more");
            write(log, "  still held\n");
            write(log, "2024-05-01 00:00:02 third\n");
            p.await("the second record", () -> out.size() == 2);
            assertThat(p.payloads("Out").get(1)).isEqualTo("2024-05-01 00:00:01 second\n  held\n  still held");
        } finally {
            p.close();
        }
        assertThat(p.payloads("Out")).hasSize(3).endsWith("2024-05-01 00:00:02 third");
    }

    @Test
    void aRecordLongerThanMaxLineSizeIsCutAndFlagged() throws Exception {
        Path log = dir.resolve("long.log");
        write(log, "2024-05-01 00:00:00 head\n" + "  continuation line\n".repeat(10) + "2024-05-01 00:00:01 next\n");
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml(tail(log, "  MultilineTimeoutMs: 50\n  MaxLineSize: 64\n  SetMetadata: true\n")).start()) {
            p.await("two records", () -> p.collect("Out").size() == 2);
            String first = p.payloads("Out").get(0);
            assertThat(first).hasSize(64).startsWith("2024-05-01 00:00:00 head\n  continuation line\n");
            assertThat(p.captured("Out").get(0).fields()).containsEntry("truncated", "true").containsEntry("file", "long.log");
            assertThat(p.captured("Out").get(1).fields()).doesNotContainKey("truncated");
        }
    }
}
