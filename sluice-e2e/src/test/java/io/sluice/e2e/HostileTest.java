package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Base of the hostile-input tests: processes run with the launcher's own JVM options (its heap, exit on
 * OutOfMemoryError), and after every attack the same checks: the process is alive, no thread died (no ERROR line),
 * its peak RSS stayed under {@link #MAX_RSS_MB}, and a valid event sent afterwards is delivered.
 */
abstract class HostileTest extends ProcessTest {
    /** The bar: the launcher's heap (192 MiB) plus metaspace, code, thread stacks and direct buffers. */
    static final int MAX_RSS_MB = Integer.getInteger("e2e.hostileMaxRssMb", 300);

    /** The process is up, healthy and within its memory bar; {@code what} names the attack for the messages. */
    static void assertSurvived(SluiceProcess p, String what) throws Exception {
        assertThat(p.isAlive()).as(p.name + " alive after " + what + "; log: " + p.tail()).isTrue();
        List<String> errors = new ArrayList<>();
        for (String line : p.lines()) {
            if (line.contains(" ERROR ") || line.contains("Exception in thread") || line.contains("OutOfMemoryError")) {
                errors.add(line);
            }
        }
        assertThat(errors).as(p.name + ": no thread died, nothing failed, after " + what).isEmpty();
        long peakMb = p.peakRssKb() >> 10;
        System.out.printf("%s: after %s peak RSS %d MB, %d threads%n", p.name, what, peakMb, p.threads());
        assertThat(peakMb).as(p.name + " peak RSS in MB after " + what).isLessThanOrEqualTo(MAX_RSS_MB);
    }

    /** Lines of {@code file} (empty if it does not exist yet). */
    static List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    }

    /** Lines of {@code file} containing {@code contains}, streamed (files of a few hundred MB); 0 before it exists. */
    static long countLines(Path file, String contains) throws IOException {
        if (!Files.exists(file)) {
            return 0;
        }
        try (java.util.stream.Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
            return lines.filter(l -> l.contains(contains)).count();
        }
    }

    /** Waits until some line of {@code file} contains {@code marker}. */
    static void awaitLine(Path file, String marker, long seconds) {
        Await.until("a line with " + marker + " in " + file, seconds,
                () -> lines(file).stream().anyMatch(l -> l.contains(marker)));
    }

    /** The total of one rejection reason of plugin {@code id} on /metrics. */
    static long rejected(SluiceProcess p, String id, String reason) throws Exception {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^sluice_rejected_total\\{plugin=\"" + id
                + "\"[^}]*reason=\"" + reason + "\"} (\\d+)$").matcher(p.metrics());
        assertThat(m.find()).as("sluice_rejected_total of " + id + " reason " + reason).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** Opens {@code n} connections to {@code port}, each having sent {@code prefix} (may be empty), kept open. */
    List<Socket> idleConnections(int port, int n, byte[] prefix) throws IOException {
        List<Socket> all = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Socket s = new Socket("127.0.0.1", port);
            if (prefix.length > 0) {
                OutputStream out = s.getOutputStream();
                out.write(prefix);
                out.flush();
            }
            all.add(s);
        }
        open(() -> {
            for (Socket s : all) {
                s.close();
            }
        });
        return all;
    }

    /** Whether the server closed {@code s} (end of stream or reset) within {@code seconds}. */
    static boolean closedByServer(Socket s, int seconds) throws IOException {
        s.setSoTimeout(seconds * 1000);
        try {
            while (s.getInputStream().read() >= 0) {
                // an answer (a 408, an error page) is read through to the close
            }
            return true;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (java.net.SocketException reset) {
            return true;
        }
    }
}
