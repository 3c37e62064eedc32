package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The correctness cases Vector publishes for log agents (vectordotdev/vector's "correctness" tests), run against
 * the whole process: every line written is counted out of producer.File, none may be missing and none doubled.
 * <ul>
 *   <li>file_rotate_create: the log is renamed away and a new one created while lines keep coming;</li>
 *   <li>file_rotate_truncate: the log is copied and truncated (logrotate's copytruncate);</li>
 *   <li>file_truncate: the log is truncated in place and written again;</li>
 *   <li>disk_buffer_persistence: acknowledged events wait in a disk buffer for a down receiver, the process is
 *       killed with SIGKILL, and the restarted one delivers them all;</li>
 *   <li>wrapped_json: JSON inside a JSON string field is decoded once, exactly;</li>
 *   <li>sighup: the config is reloaded by SIGHUP while lines keep coming, its input's and its output's settings
 *       changed in turn (the tailer is replaced and goes on from its checkpoint).</li>
 * </ul>
 */
@Timeout(300)
class VectorCasesTest extends ProcessTest {
    private static final int LINES = 60_000;
    private static final int ROTATIONS = 5;
    private static final String PAD = "p".repeat(60);

    @Test
    void fileRotateCreate() throws Exception {
        Path log = dir.resolve("app.log");
        Path out = dir.resolve("out.ndjson");
        start("rotate-create", tail(log, out));
        Ledger ledger = new Ledger(out);
        int perFile = LINES / ROTATIONS;
        int n = 0;
        for (int r = 0; r < ROTATIONS; r++) {
            try (OutputStream o = Files.newOutputStream(log, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                // A tailer can only follow a file it has found: its first line is awaited, the rest written at once,
                // and the file renamed away (and a new one created) with most of it still unread. The reader must
                // finish the renamed file through its open handle and find the new one.
                int first = n;
                n = writeLines(o, n, 1);
                Await.until("the first line of file " + r, 120, () -> ledger.refresh().hasAll('f', first + 1));
                n = writeLines(o, n, perFile - 1);
            }
            Files.move(log, dir.resolve("app.log." + r));
        }
        assertExactlyOnce(out, LINES);
    }

    @Test
    void fileRotateTruncate() throws Exception {
        Path log = dir.resolve("app.log");
        Path out = dir.resolve("out.ndjson");
        start("rotate-truncate", tail(log, out));
        Ledger ledger = new Ledger(out);
        int perFile = LINES / ROTATIONS;
        int n = 0;
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            OutputStream o = java.nio.channels.Channels.newOutputStream(ch);
            for (int r = 0; r < ROTATIONS; r++) {
                n = writeLines(o, n, perFile);
                // copytruncate loses the lines written between the copy and the truncation by design (logrotate
                // says so); the case is about what comes after: the reader must notice the truncation and read the
                // new lines from offset 0. So the copy is taken once the reader has caught up. The writer goes on at
                // once and puts back more bytes than were read: a reader that looks late sees no shrink, only other
                // first bytes (consumer.File's fingerprint); which of the two it sees varies from run to run.
                int written = n;
                Await.until("the reader caught up with " + written + " lines before copytruncate " + r, 120,
                        () -> ledger.refresh().hasAll('f', written));
                Files.copy(log, dir.resolve("app.log." + r), StandardCopyOption.REPLACE_EXISTING);
                ch.truncate(0);
            }
            n = writeLines(o, n, perFile);
        }
        assertExactlyOnce(out, n);
    }

    @Test
    void fileTruncate() throws Exception {
        Path log = dir.resolve("app.log");
        Path out = dir.resolve("out.ndjson");
        start("truncate", tail(log, out));
        Ledger ledger = new Ledger(out);
        int n = 0;
        for (int r = 0; r < ROTATIONS; r++) {
            // Truncated and rewritten by a fresh writer each time (as "> app.log" in a shell does), with fewer bytes
            // than before, so only a reader that notices the shrink reads the new lines.
            int count = LINES / ROTATIONS / (r + 1);
            try (OutputStream o = Files.newOutputStream(log, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                n = writeLines(o, n, count);
            }
            int written = n;
            Await.until(written + " lines read after truncation " + r, 120, () -> ledger.refresh().hasAll('f', written));
        }
        assertExactlyOnce(out, n);
    }

    @Test
    void diskBufferPersistsAcknowledgedEventsAcrossSigkill() throws Exception {
        int forwardPort = E2e.freePort();
        int hecPort = E2e.freePort();
        Path out = dir.resolve("received.ndjson");
        String configA = E2e.forwardConsumer(forwardPort) + E2e.hecProducer(hecPort,
                E2e.diskBuffer(dir.resolve("buffer"), "    Buffer/Fsync: \"always\"\n"));
        SluiceProcess a = start("persist-A", configA, forwardPort);
        FluencySender fluency = open(new FluencySender(forwardPort, 64L << 20));
        // B is not running: every acknowledged event can only be in A's disk buffer.
        fluency.start(0, LINES, 0);
        fluency.awaitEmitted(120);
        fluency.finishAllAcked();
        a.kill();
        start("persist-A", configA, forwardPort);
        start("persist-B", E2e.receiver(hecPort, out), hecPort);
        assertExactlyOnce(out, LINES);
    }

    @Test
    void wrappedJsonIsDecodedOnceExactly() throws Exception {
        Path log = dir.resolve("wrapped.log");
        Path out = dir.resolve("out.ndjson");
        int n = 20_000;
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < n; i++) {
            text.append("{\"message\":\"").append(jsonString(inner(i))).append("\",\"host\":\"h1\"}\n");
        }
        Files.writeString(log, text);
        start("wrapped", tail(log, out, "    Modulators:\n      - format.ExtractJSON:\n          Field: \"message\"\n"));
        assertExactlyOnce(out, n);
        Pattern quoted = Pattern.compile("\"q\":\"(.*)\"}$");
        int checked = 0;
        for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
            Matcher m = Pattern.compile("\"n\":(\\d+)").matcher(line);
            assertThat(m.find()).as(line).isTrue();
            // Byte for byte the inner document: decoded once, so its own escapes are still there (a second decoding
            // would have turned \" into " and \\ into \).
            assertThat(line).isEqualTo(inner(Integer.parseInt(m.group(1))));
            assertThat(quoted.matcher(line).find()).isTrue();
            checked++;
        }
        assertThat(checked).isEqualTo(n);
    }

    @Test
    void sighupReloadsWhileLinesKeepComing() throws Exception {
        Path log = dir.resolve("app.log");
        Path out = dir.resolve("out.ndjson");
        SluiceProcess p = start("sighup", tail(log, out));
        Path conf = dir.resolve("sighup.yaml");
        Ledger ledger = new Ledger(out);
        int reloads = 6;
        int perStep = LINES / (reloads + 1);
        int n = 0;
        try (OutputStream o = Files.newOutputStream(log, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            n = writeLines(o, n, 1);
            Await.until("the first line", 120, () -> ledger.refresh().hasAll('f', 1));
            for (int r = 0; r < reloads; r++) {
                // The input's settings change on even reloads (the tailer is replaced), the output's on odd ones.
                String changed = r % 2 == 0
                        ? tail(log, out).replace("PollingDelayMs: 20", "PollingDelayMs: " + (21 + r))
                        : tail(log, out) + "    FlushIntervalMs: " + (101 + r) + "\n";
                Files.writeString(conf, changed);
                n = writeLines(o, n, perStep / 2);
                p.hangup();
                n = writeLines(o, n, perStep - perStep / 2);
                int applied = r + 1;
                Await.until("reload " + r + " applied", 60,
                        () -> p.globalMetric("sluice_config_reloads_total", "result=\"applied\"") == applied);
            }
            n = writeLines(o, n, perStep);
        }
        assertExactlyOnce(out, n);
        assertThat(p.globalMetric("sluice_config_reloads_total", "result=\"failed\"")).isZero();
    }

    /** The inner document of wrapped_json: escapes of its own (a quote, a backslash, a tab, a non-ASCII letter). */
    private static String inner(int i) {
        return "{\"n\":" + i + ",\"s\":\"f\",\"q\":\"say \\\"hi\\\" to C:\\\\temp\\tnaïve " + i + "\"}";
    }

    /** {@code s} as the inside of a JSON string. */
    private static String jsonString(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /** consumer.File on {@code log} from its start, with checkpoints, into producer.File at {@code out}. */
    private String tail(Path log, Path out) {
        return tail(log, out, "");
    }

    /** The same with {@code modulators} (YAML lines) on the consumer. */
    private String tail(Path log, Path out, String modulators) {
        return "\"Tail\":\n"
                + "    Type: \"consumer.File\"\n"
                + "    Streams: \"logs\"\n"
                + modulators
                + "    File: \"" + log + "\"\n"
                + "    DefaultOffset: \"oldest\"\n"
                + "    OffsetFilePath: \"" + dir.resolve("offsets") + "\"\n"
                + "    PollingDelayMs: 20\n"
                + "    DirScanIntervalSec: 1\n"
                + "\"Out\":\n"
                + "    Type: \"producer.File\"\n"
                + "    Streams: \"logs\"\n"
                + "    File: \"" + out + "\"\n";
    }

    /** Appends lines {@code from}…{@code from+count-1} and returns the next number. */
    private static int writeLines(OutputStream o, int from, int count) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int i = from; i < from + count; i++) {
            b.append("{\"n\":").append(i).append(",\"s\":\"f\",\"pad\":\"").append(PAD).append("\"}\n");
            if (b.length() > 64 << 10) {
                o.write(b.toString().getBytes(StandardCharsets.UTF_8));
                o.flush();
                b.setLength(0);
            }
        }
        o.write(b.toString().getBytes(StandardCharsets.UTF_8));
        o.flush();
        return from + count;
    }

    private static void assertExactlyOnce(Path out, int n) throws IOException {
        Ledger ledger = new Ledger(out);
        try {
            Await.until("all " + n + " lines in " + out.getFileName(), 180, () -> ledger.refresh().hasAll('f', n));
        } catch (AssertionError timedOut) {
            throw new AssertionError(timedOut.getMessage() + "; missing: " + ledger.missing('f', n, 20)
                    + "; duplicates: " + ledger.duplicates(), timedOut);
        }
        ledger.refresh();
        assertThat(ledger.missing('f', n, 20)).as("lines that did not arrive").isEmpty();
        assertThat(ledger.duplicates()).as("lines that arrived twice").isZero();
        assertThat(ledger.unparsable()).as("lines that are not a written line").isZero();
        assertThat(ledger.lines()).isEqualTo(n);
    }
}
