package io.sluice.io.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.buffer.FailingChannel;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.testing.DirectProducerContext;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.core.pipeline.StartException;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import io.sluice.io.Lines;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
        PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(profiler(20_000)
                + "Plain:\n  Type: producer.File\n  File: " + dir.resolve("out/*.ndjson") + "\n  Streams: logs\n"
                + "Gz:\n  Type: producer.File\n  File: " + gz + "\n  BufferSizeKB: 64\n  Streams: logs\n"
                + "Zst:\n  Type: producer.File\n  File: " + zst + "\n  Streams: logs\n").start();
        // The background flush writes while running: a live .gz decompresses up to the last flush.
        p.await("the plain file", () -> Files.exists(plain) && lineCount(plain) == 20_000);
        PipelineHarness.await("a readable live gzip", 10_000, () -> liveGzipLines(gz) > 0);
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
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(profiler(20_000)
                + "Out:\n  Type: producer.File\n  File: " + base + "\n  BufferSizeKB: 16\n  Streams: logs\n"
                + "  Rotation:\n    Enable: true\n    SizeMB: 0\n    Timestamp: \"2006\"\n  Prune:\n    Count: 3\n").start()) {
            p.await("rotations", () -> p.logText().contains("pruned"));
        }
        try (Stream<Path> s = Files.list(dir.resolve("rot"))) {
            List<String> names = s.map(x -> x.getFileName().toString()).sorted().collect(Collectors.toList());
            assertThat(names).contains("app_current.log");
            // Three kept by Prune/Count plus the one open at shutdown, plus the symlink.
            assertThat(names.stream().filter(n -> n.matches("app_\\d{4}(_\\d+)?\\.log"))).hasSizeBetween(2, 4);
        }
        assertThat(Files.isSymbolicLink(dir.resolve("rot/app_current.log"))).isTrue();
    }

    // --- an output that cannot be written -------------------------------------------------------------------

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final Log log = new Log(new PrintStream(logBytes, true, StandardCharsets.UTF_8), Log.INFO);
    private final ProducerContext context = DirectProducerContext.of("Out", "producer.File", log);
    private final PluginStats stats = context.stats();
    private final BatchPool pool = new BatchPool(64);

    private FileProducer producer(Path file, Object... more) {
        Map<String, Object> settings = new HashMap<>();
        settings.put("File", file.toString());
        for (int i = 0; i < more.length; i += 2) {
            settings.put((String) more[i], more[i + 1]);
        }
        return new FileProducer(PluginConfig.of("Out", "producer.File", settings));
    }

    private ProducerContext context() {
        return context;
    }

    private Batch batch(String... payloads) {
        Batch b = pool.acquire();
        for (String p : payloads) {
            b.add().setPayload(p);
        }
        return b;
    }

    private static String[] numbered(int from, int to) {
        String[] out = new String[to - from];
        for (int i = from; i < to; i++) {
            out[i - from] = "{\"n\":" + i + ",\"pad\":\"" + "x".repeat(200) + "\"}";
        }
        return out;
    }

    @Test
    void aPathUnderARegularFileStopsTheStartNamingThePath() throws Exception {
        Path blocker = Files.writeString(dir.resolve("blocked"), "a file where the folder should be");
        Path target = blocker.resolve("out.ndjson");
        assertThatThrownBy(() -> producer(target).start(context()))
                .isInstanceOf(java.io.IOException.class).hasMessageContaining(target.toString());
        // With a stream name in the path the folder is probed instead of a file opened.
        Path perStream = blocker.resolve("sub/*.ndjson");
        assertThatThrownBy(() -> producer(perStream).start(context()))
                .isInstanceOf(java.io.IOException.class).hasMessageContaining(blocker.resolve("sub").toString());
        // Through the pipeline: a StartException naming the plugin and the path (the command line exits 2 on it),
        // before any input was taken.
        Path input = Files.writeString(dir.resolve("in.ndjson"), "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n");
        assertThatThrownBy(() -> PipelineHarness.builder().log(new MemoryLog())
                .yaml("In:\n  Type: consumer.File\n  File: " + input
                + "\n  DefaultOffset: oldest\n  Streams: logs\n"
                + "Out:\n  Type: producer.File\n  File: " + target + "\n  Streams: logs\n").start())
                .isInstanceOf(StartException.class).hasMessageStartingWith("Out: ").hasMessageContaining(target.toString());
    }

    @Test
    void aReadOnlyFolderStopsTheStart() throws Exception {
        Path ro = Files.createDirectory(dir.resolve("ro"));
        Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            org.junit.jupiter.api.Assumptions.assumeFalse(Files.isWritable(ro), "running as root: permissions do not bind");
            assertThatThrownBy(() -> producer(ro.resolve("out.log")).start(context()))
                    .hasMessageContaining(ro.resolve("out.log").toString()).hasMessageContaining("ermission denied");
            assertThatThrownBy(() -> producer(ro.resolve("*.log")).start(context())).hasMessageContaining(ro.toString());
        } finally {
            Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    /** A full disk for real: the path is a symlink to /dev/full (every write fails with ENOSPC), then to a file. */
    @Test
    void aFullDiskFailsTheDeliveryReportsNotReadyAndRecovers() throws Exception {
        Path devFull = Path.of("/dev/full");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isWritable(devFull), "needs /dev/full");
        Path link = Files.createSymbolicLink(dir.resolve("out.ndjson"), devFull);
        FileProducer out = producer(link);
        out.start(context()); // opening /dev/full works; writing does not
        assertThat(out.isReady()).isTrue();
        Batch b = batch(numbered(0, 3));
        assertThatThrownBy(() -> out.deliver(b)).isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("cannot write").hasMessageContaining(link.toString());
        assertThat(out.isReady()).as("ready while the disk is full").isFalse();
        assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("ERROR").contains("cannot write " + link);
        // Retried (as the pipeline does): fails again, logged once per streak.
        assertThatThrownBy(() -> out.deliver(b)).isInstanceOf(java.io.IOException.class);
        assertThat(logBytes.toString(StandardCharsets.UTF_8).split("cannot write " + link, -1)).hasSize(2);

        Path real = dir.resolve("real.ndjson");
        Files.delete(link);
        Files.createSymbolicLink(link, real);
        out.deliver(b);
        assertThat(out.isReady()).as("ready once a write succeeded").isTrue();
        assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("works again");
        out.deliver(batch(numbered(3, 5)));
        out.close();
        assertThat(Files.readAllLines(real)).containsExactly(numbered(0, 5));
    }

    @Test
    void inAPipelineAFailedWriteIsNeverCountedOutAndFallsBackAfterRetries() throws Exception {
        Path devFull = Path.of("/dev/full");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isWritable(devFull), "needs /dev/full");
        Path link = Files.createSymbolicLink(dir.resolve("full.ndjson"), devFull);
        Path input = Files.writeString(dir.resolve("in.ndjson"), "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n");
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml("In:\n  Type: consumer.File\n  File: " + input
                + "\n  DefaultOffset: oldest\n  Streams: logs\n"
                + "Out:\n  Type: producer.File\n  File: " + link + "\n  Streams: logs\n"
                + "  Retry/Max: 2\n  Retry/BackoffMs: 1\n  FallbackStream: dead\n"
                + "Dead:\n  Type: test.Collect\n  Streams: dead\n").start()) {
            PluginStats out = p.pipeline().stats().stream().filter(s -> s.id().equals("Out")).findFirst().orElseThrow();
            p.await("the three messages in the fallback stream", () -> p.collect("Dead").size() == 3);
            assertThat(out.out()).as("messages counted out by producer.File").isZero();
            assertThat(out.failed()).isEqualTo(3);
            assertThat(out.retried()).isEqualTo(6);
            assertThat(p.pipeline().plugins()).filteredOn(i -> i.id().equals("Out")).singleElement()
                    .satisfies(i -> assertThat(i.ready()).as("Out ready").isFalse());
            assertThat(p.logText()).contains("cannot write " + link);
        }
    }

    /**
     * A write that runs out of space halfway: the file is cut back to where the batch began (a compressed stream
     * ended there), so after recovery every line is in the file exactly once and the file decompresses cleanly.
     */
    @ParameterizedTest
    @ValueSource(strings = {"out.ndjson", "out.ndjson.gz", "out.ndjson.zst"})
    void aWriteFailingHalfwayLeavesNoPartialLineAndNoDuplicate(String name) throws Exception {
        Path file = dir.resolve(name);
        AtomicLong space = new AtomicLong(Long.MAX_VALUE);
        FileProducer out = producer(file);
        out.opener((path, options, attributes) -> new FailingChannel(FileChannel.open(path, options, attributes), space));
        out.start(context());
        out.deliver(batch(numbered(0, 50)));
        // Room for part of the next batch's bytes only (compressed, they are fewer: a little room then).
        space.set(name.endsWith("ndjson") ? 3000 : 20);
        Batch failing = batch(numbered(50, 100));
        assertThatThrownBy(() -> out.deliver(failing)).isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("No space left on device");
        assertThat(out.isReady()).isFalse();
        assertThat(logBytes.toString(StandardCharsets.UTF_8)).doesNotContain("could not cut");
        assertThatThrownBy(() -> out.deliver(failing)).isInstanceOf(java.io.IOException.class);
        space.set(Long.MAX_VALUE);
        out.deliver(failing);
        out.deliver(batch(numbered(100, 120)));
        assertThat(out.isReady()).isTrue();
        out.close();
        byte[] content;
        try (InputStream in = name.endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(file))
                : name.endsWith(".zst") ? new com.github.luben.zstd.ZstdInputStream(Files.newInputStream(file))
                : Files.newInputStream(file)) {
            content = in.readAllBytes();
        }
        assertThat(lines(content)).containsExactly(numbered(0, 120));
        if (name.endsWith(".gz")) {
            Process gzipT = new ProcessBuilder("gzip", "-t", file.toString()).redirectErrorStream(true).start();
            String said = new String(gzipT.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(gzipT.waitFor()).as("gzip -t: %s", said).isZero();
        }
    }

    // --- one record per line --------------------------------------------------------------------------------

    /** Payloads that try to break their line: plain text, JSON objects with raw control bytes, invalid UTF-8. */
    static final String[] HOSTILE = {
        "a\n{\"forged\":true}", "crlf\r\ninside", "nul\0byte", "esc\u001b[31mred", "del\u007f", "tab\tkept",
        "C:\\new\\x", "ends with a newline\n", "bell\u0007\r",
    };

    private static byte[] invalidUtf8Json() {
        byte[] head = "{\"msg\":\"bad ".getBytes(StandardCharsets.UTF_8);
        byte[] bad = {(byte) 0xff, 'x', (byte) 0xc3, '"', '}'};
        byte[] b = Arrays.copyOf(head, head.length + bad.length);
        System.arraycopy(bad, 0, b, head.length, bad.length);
        return b;
    }

    @ParameterizedTest
    @ValueSource(strings = {"lines.log", "lines.log.gz", "lines.log.zst"})
    void everyRecordIsOneLineThatReadsBackToItsText(String name) throws Exception {
        Path file = dir.resolve(name);
        FileProducer out = producer(file);
        out.start(context());
        Batch b = batch(HOSTILE);
        for (String h : HOSTILE) {
            // The same text inside a JSON string, quotes escaped but control bytes raw (invalid JSON as it comes).
            b.add().setPayload("{\"msg\":\"" + h.replace("\\", "\\\\").replace("\"", "\\\"") + "\",\n \"ok\":true}");
        }
        b.add().setPayload(invalidUtf8Json());
        out.deliver(b);
        out.close();
        byte[] content;
        try (InputStream in = name.endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(file))
                : name.endsWith(".zst") ? new com.github.luben.zstd.ZstdInputStream(Files.newInputStream(file))
                : Files.newInputStream(file)) {
            content = in.readAllBytes();
        }
        List<byte[]> lines = Lines.split(content);
        assertThat(lines).hasSize(2 * HOSTILE.length + 1);
        for (int i = 0; i < HOSTILE.length; i++) {
            String want = HOSTILE[i].endsWith("\n") ? HOSTILE[i].substring(0, HOSTILE[i].length() - 1) : HOSTILE[i];
            assertThat(new String(Lines.unescapeText(lines.get(i)), StandardCharsets.UTF_8)).isEqualTo(want);
            assertThat(Lines.jsonField(lines.get(HOSTILE.length + i), "msg")).isEqualTo(HOSTILE[i]);
        }
        assertThat(Lines.jsonField(lines.get(2 * HOSTILE.length), "msg")).isEqualTo("bad \ufffdx\ufffd");
        assertThat(stats.counters()).anySatisfy(c -> {
            assertThat(c.name()).isEqualTo("sluice_invalid_utf8_total");
            assertThat(c.value().get()).isEqualTo(2);
        });
    }

    @Test
    void theHecForgeryReportedAgainstProducerFileStaysOneLine() throws Exception {
        // consumer.HEC -> producer.File: {"event":"a\n{\"forged\":true}"} arrives as the text a<LF>{"forged":true}.
        Path file = dir.resolve("hec.ndjson");
        FileProducer out = producer(file);
        out.start(context());
        out.deliver(batch("a\n{\"forged\":true}", "{\"event\":\"a\\n{\\\"forged\\\":true}\"}"));
        out.close();
        assertThat(Files.readAllLines(file)).containsExactly("a\\n{\"forged\":true}", "{\"event\":\"a\\n{\\\"forged\\\":true}\"}");
    }
}
