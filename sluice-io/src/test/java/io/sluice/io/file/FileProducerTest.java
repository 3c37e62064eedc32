package io.sluice.io.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.io.TestPipeline;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileProducerTest {
    @TempDir
    Path dir;

    private static String profiler(int runs) {
        return "Gen:\n  Type: consumer.Profiler\n  Runs: " + runs + "\n  Batches: 1\n  DelayMs: 0\n"
                + "  Message: \"{\\\"n\\\":%d,\\\"msg\\\":\\\"%40s\\\"}\"\n  KeepRunning: true\n  Streams: logs\n";
    }

    private static List<String> lines(byte[] b) {
        return new String(b, StandardCharsets.UTF_8).lines().collect(Collectors.toList());
    }

    private static byte[] gunzip(Path p) throws Exception {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(p))) {
            return in.readAllBytes();
        }
    }

    @Test
    void plainGzipAndZstdFilesHoldEveryLineAndGzipPassesGzipT() throws Exception {
        Path plain = dir.resolve("out/logs.ndjson");
        Path gz = dir.resolve("out/logs.ndjson.gz");
        Path zst = dir.resolve("out/logs.ndjson.zst");
        TestPipeline p = TestPipeline.start(profiler(20_000)
                + "Plain:\n  Type: producer.File\n  File: " + dir.resolve("out/*.ndjson") + "\n  Streams: logs\n"
                + "Gz:\n  Type: producer.File\n  File: " + gz + "\n  BufferSizeKB: 64\n  Streams: logs\n"
                + "Zst:\n  Type: producer.File\n  File: " + zst + "\n  Streams: logs\n");
        // The background flush writes while running: a live .gz decompresses up to the last flush.
        p.await("the plain file", () -> Files.exists(plain) && lineCount(plain) == 20_000);
        TestPipeline.awaitUntil("a readable live gzip", () -> liveGzipLines(gz) > 0, 10_000, p);
        p.close();

        List<String> a = lines(Files.readAllBytes(plain));
        assertThat(a).hasSize(20_000);
        assertThat(a.get(0)).startsWith("{\"n\":");
        assertThat(lines(gunzip(gz))).isEqualTo(a);
        try (InputStream in = new com.github.luben.zstd.ZstdInputStream(Files.newInputStream(zst))) {
            assertThat(lines(in.readAllBytes())).isEqualTo(a);
        }
        Process gzipT = new ProcessBuilder("gzip", "-t", gz.toString()).redirectErrorStream(true).start();
        String out = new String(gzipT.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(gzipT.waitFor()).as("gzip -t: %s", out).isZero();
        assertThat(Files.size(gz)).isLessThan(Files.size(plain) / 3);
    }

    private static long lineCount(Path p) {
        try (Stream<String> s = Files.lines(p)) {
            return s.count();
        } catch (Exception e) {
            return -1;
        }
    }

    /** Decompresses what is there (no trailer yet) and counts lines; a sync-flushed stream allows that. */
    private static int liveGzipLines(Path p) {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(p))) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    b.write(buf, 0, n);
                }
            } catch (java.io.EOFException expected) {
                // No trailer while the file is open.
            }
            return lines(b.toByteArray()).size();
        } catch (Exception e) {
            return 0;
        }
    }

    @Test
    void rotatesBySizeAndPrunesToTheCount() throws Exception {
        Path base = dir.resolve("rot/app.log");
        try (TestPipeline p = TestPipeline.start(profiler(20_000)
                + "Out:\n  Type: producer.File\n  File: " + base + "\n  BufferSizeKB: 16\n  Streams: logs\n"
                + "  Rotation:\n    Enable: true\n    SizeMB: 0\n    Timestamp: \"2006\"\n  Prune:\n    Count: 3\n")) {
            p.await("rotations", () -> p.log().contains("pruned"));
        }
        try (Stream<Path> s = Files.list(dir.resolve("rot"))) {
            List<String> names = s.map(x -> x.getFileName().toString()).sorted().collect(Collectors.toList());
            assertThat(names).contains("app_current.log");
            // Three kept by Prune/Count plus the one open at shutdown, plus the symlink.
            assertThat(names.stream().filter(n -> n.matches("app_\\d{4}(_\\d+)?\\.log"))).hasSizeBetween(2, 4);
        }
        assertThat(Files.isSymbolicLink(dir.resolve("rot/app_current.log"))).isTrue();
    }

    @Test
    void aFailingWriteIsReportedAndRetriedNotDropped() throws Exception {
        Path blocker = dir.resolve("blocked");
        Files.writeString(blocker, "a file where the folder should be");
        Path target = blocker.resolve("out.ndjson");
        Path input = dir.resolve("in.ndjson");
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 5_000; i++) {
            b.append("{\"n\":").append(i).append("}\n");
        }
        Files.writeString(input, b);
        try (TestPipeline p = TestPipeline.start("In:\n  Type: consumer.File\n  File: " + input
                + "\n  DefaultOffset: oldest\n  Streams: logs\n"
                + "Out:\n  Type: producer.File\n  File: " + target + "\n  BufferSizeKB: 8\n  Streams: logs\n")) {
            p.await("the error to be reported", () -> p.log().contains("cannot write"));
            assertThat(p.log()).contains("retried");
            Files.delete(blocker);
            p.await("every line after recovery", () -> Files.exists(target) && lineCount(target) == 5_000);
            assertThat(p.log()).contains("works again");
        }
        List<String> got = Files.readAllLines(target);
        assertThat(got).hasSize(5_000).doesNotHaveDuplicates().startsWith("{\"n\":0}").endsWith("{\"n\":4999}");
    }
}
