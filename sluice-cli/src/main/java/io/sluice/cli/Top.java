package io.sluice.cli;

import io.sluice.core.Daemon;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code sluice top}: one row per plugin with rates in and out, queue fill and errors, refreshed every
 * interval from {@code /api/plugins}. On a terminal it redraws in place and reads keys (q quits; i, o, n sort);
 * otherwise it prints plain blocks of lines, one per refresh.
 */
final class Top {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI uri;
    /** Bearer token for an admin endpoint that requires one, or null. */
    private final String token;
    private final PrintStream out;
    private final boolean terminal;
    private final Map<String, long[]> last = new HashMap<>();
    private volatile char sort = 'n';
    private volatile boolean quit;
    private long lastNanos;

    Top(String url, String token, PrintStream out, boolean terminal) {
        this.uri = URI.create(url.replaceAll("/+$", "") + "/api/plugins");
        this.token = token;
        this.out = out;
        this.terminal = terminal;
    }

    /** Runs {@code iterations} refreshes (0: until q or Ctrl-C). */
    int run(long intervalMillis, int iterations) throws Exception {
        Thread keys = terminal ? startKeyReader() : null;
        try {
            for (int n = 0; (iterations == 0 || n < iterations) && !quit; n++) {
                if (n > 0) {
                    waitFor(intervalMillis);
                }
                HttpResponse<String> r;
                try {
                    r = http.send(request(), HttpResponse.BodyHandlers.ofString());
                } catch (IOException e) {
                    out.println("sluice top: cannot reach " + uri + ": " + e.getMessage());
                    return 1;
                }
                if (r.statusCode() != 200) {
                    out.print("sluice top: " + uri + " answered " + r.statusCode() + ": " + r.body());
                    return 1;
                }
                render(r.body());
            }
            return 0;
        } finally {
            if (keys != null) {
                Terminal.restore();
            }
        }
    }

    private HttpRequest request() {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5));
        return (token == null ? b : b.header("Authorization", "Bearer " + token)).build();
    }

    private void waitFor(long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (!quit && System.nanoTime() < end) {
            Thread.sleep(Math.min(50, millis));
        }
    }

    @SuppressWarnings("unchecked")
    void render(String json) {
        Map<String, Object> root = (Map<String, Object>) MiniJson.parse(json);
        List<Map<String, Object>> plugins = new ArrayList<>((List<Map<String, Object>>) root.get("plugins"));
        long now = System.nanoTime();
        double secs = lastNanos == 0 ? 0 : (now - lastNanos) / 1e9;
        lastNanos = now;
        List<String[]> rows = new ArrayList<>();
        for (Map<String, Object> p : plugins) {
            String id = (String) p.get("id");
            long in = num(p, "in");
            long outCount = num(p, "out");
            long[] prev = last.put(id, new long[] {in, outCount});
            double rin = prev == null || secs == 0 ? 0 : (in - prev[0]) / secs;
            double rout = prev == null || secs == 0 ? 0 : (outCount - prev[1]) / secs;
            String queue = p.containsKey("queueCapacity")
                    ? (num(p, "queueDepth") * 100 / Math.max(1, num(p, "queueCapacity"))) + "%" : "-";
            long errors = num(p, "failed") + num(p, "discarded");
            rows.add(new String[] {id, (String) p.get("type"), StatsLine.rate(rin), StatsLine.rate(rout), queue,
                Long.toString(num(p, "dropped")), Long.toString(errors), Boolean.TRUE.equals(p.get("ready")) ? "yes" : "NO",
                Double.toString(rin), Double.toString(rout)});
        }
        Comparator<String[]> order = sort == 'i' ? Comparator.comparingDouble((String[] r) -> -Double.parseDouble(r[8]))
                : sort == 'o' ? Comparator.comparingDouble((String[] r) -> -Double.parseDouble(r[9]))
                : Comparator.comparing((String[] r) -> r[0]);
        rows.sort(order);
        StringBuilder b = new StringBuilder();
        if (terminal) {
            b.append("\033[H\033[2J");
        }
        b.append(String.format(Locale.ROOT, "sluice top  %s  ready=%s  (q quit, i/o/n sort)%n", uri.getAuthority(), root.get("ready")));
        b.append(String.format(Locale.ROOT, "%-20s %-22s %10s %10s %6s %9s %9s %5s%n", "PLUGIN", "TYPE", "IN/s", "OUT/s", "QUEUE", "DROPPED", "ERRORS", "READY"));
        for (String[] r : rows) {
            b.append(String.format(Locale.ROOT, "%-20s %-22s %10s %10s %6s %9s %9s %5s%n", r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]));
        }
        out.print(b);
        out.flush();
    }

    private static long num(Map<String, Object> p, String key) {
        Object v = p.get(key);
        return v instanceof Number ? ((Number) v).longValue() : 0;
    }

    private Thread startKeyReader() {
        Terminal.raw();
        return Daemon.start("top-keys", () -> {
            try {
                int c;
                while (!quit && (c = System.in.read()) >= 0) {
                    if (c == 'q' || c == 3) {
                        quit = true;
                    } else if (c == 'i' || c == 'o' || c == 'n') {
                        sort = (char) c;
                    }
                }
            } catch (IOException ignored) {
                // stdin closed: keep refreshing until Ctrl-C.
            }
        });
    }

    /** Switches the terminal to single-key input with stty, and back. */
    static final class Terminal {
        private Terminal() {
        }

        static void raw() {
            stty("-icanon -echo min 1");
        }

        static void restore() {
            stty("icanon echo");
        }

        private static void stty(String args) {
            try {
                new ProcessBuilder("sh", "-c", "stty " + args + " < /dev/tty").inheritIO().start().waitFor();
            } catch (IOException e) {
                // No stty: keys need Enter, q still works.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
