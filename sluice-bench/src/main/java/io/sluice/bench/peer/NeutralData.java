package io.sluice.bench.peer;

import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.codec.ForwardEncoder;
import io.sluice.forward.codec.ForwardMode;
import io.sluice.forward.codec.MsgPackWriter;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Pre-encoded input for scripts/bench-peers.sh, so that Sluice and a peer (Fluent Bit) are fed the same bytes by a
 * sender that is neither of them. Writes {@code events} records (all different, about 180 bytes as JSON, five fields:
 * level, service, n, user, message) three ways into DIR:
 * <ul>
 *   <li>{@code forward.bin}: Forward protocol PackedForward frames of 1,000 events, tag {@code bench}, no chunk
 *   option (no ack asked), EventTime timestamps;</li>
 *   <li>{@code lines.ndjson}: the same records, one JSON object per line;</li>
 *   <li>{@code syslog.txt}: the same events as RFC 5424 messages, one per line (RFC 6587 non-transparent
 *       framing), the record's message as MSG, its service as APP-NAME, its level as the severity;</li>
 *   <li>{@code hec.bodies}: Splunk HEC /services/collector/event request bodies, one per line, each 1,000
 *   concatenated {@code {"event":{...}}} objects (a body holds no newline, so a line is one request).</li>
 * </ul>
 * With the set {@code otlp} (third argument) it writes OpenTelemetry logs instead (see {@link OtlpData}):
 * <ul>
 *   <li>{@code otlp.bodies}: {@code ExportLogsServiceRequest} protobuf bodies of 1,000 log records each, every
 *   one preceded by its length as a 4-byte big-endian integer (for OTLP/HTTP: POST each body to /v1/logs);</li>
 *   <li>{@code otlp.grpc}: the same bodies, each as one gRPC message (a 0 byte, not compressed, then the 4-byte
 *   big-endian length), one after another: each message is one unary Export call's whole request body;</li>
 *   <li>{@code otlp-one.grpc}: the first of them alone, for a sender that posts one fixed body (h2load).</li>
 * </ul>
 * The records are a fixed function of their index (seeded), so every run of the generator writes the same files.
 * <pre>java -cp benchmarks.jar io.sluice.bench.peer.NeutralData DIR [EVENTS=2000000] [SETS=classic]</pre>
 * SETS is a comma-separated list of {@code classic} (the four files above) and {@code otlp}.
 */
public final class NeutralData {
    static final int PER_FRAME = 1000;
    /** The words records are made of; also HecReceiveBenchmark's, whose body has these records' shape. */
    public static final String[] LEVELS = {"info", "info", "info", "info", "warn", "error", "debug"};
    public static final String[] SERVICES = {"checkout", "payments", "search", "inventory", "auth", "shipping",
        "catalog", "recommendations"};
    private static final String[] VERBS = {"GET", "POST", "PUT", "DELETE"};
    private static final String[] PATHS = {"/api/v1/orders", "/api/v1/carts", "/api/v2/items", "/api/v1/users",
        "/api/v1/sessions", "/healthz", "/api/v3/search"};
    public static final String[] WORDS = {"upstream", "cache", "miss", "hit", "retry", "timeout", "slow", "query",
        "pool", "handler", "queue", "shard", "replica", "tenant", "region", "token"};

    /** Always with milliseconds: Fluent Bit's syslog-rfc5424 parser expects them. */
    private static final java.time.format.DateTimeFormatter SYSLOG_TIME = java.time.format.DateTimeFormatter
            .ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSX").withZone(java.time.ZoneOffset.UTC);

    private NeutralData() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        long events = args.length > 1 ? Long.parseLong(args[1]) : 2_000_000L;
        if (events % PER_FRAME != 0) {
            throw new IllegalArgumentException("EVENTS must be a multiple of " + PER_FRAME);
        }
        java.util.List<String> sets = java.util.List.of((args.length > 2 ? args[2] : "classic").split(","));
        Files.createDirectories(dir);
        if (sets.contains("otlp")) {
            OtlpData.write(dir, events);
        }
        if (sets.contains("classic")) {
            classic(dir, events);
        }
    }

    private static void classic(Path dir, long events) throws IOException {
        SplittableRandom random = new SplittableRandom(17);
        ForwardEncoder encoder = new ForwardEncoder();
        MsgPackWriter frame = new MsgPackWriter(1 << 20);
        long epoch = 1_767_225_600L; // 2026-01-01T00:00:00Z: a fixed base time, so the files do not depend on the day
        long jsonBytes = 0;
        try (OutputStream forward = out(dir.resolve("forward.bin"));
             OutputStream lines = out(dir.resolve("lines.ndjson"));
             OutputStream hec = out(dir.resolve("hec.bodies"));
             OutputStream syslog = out(dir.resolve("syslog.txt"))) {
            for (long first = 0; first < events; first += PER_FRAME) {
                EventBatch batch = new EventBatch();
                StringBuilder body = new StringBuilder(PER_FRAME * 200);
                for (long n = first; n < first + PER_FRAME; n++) {
                    Map<String, Object> record = record(n, random);
                    batch.add(epoch + n / 1000, (int) (n % 1000) * 1_000_000, record);
                    String json = json(record);
                    jsonBytes += json.length();
                    lines.write((json + "\n").getBytes(StandardCharsets.UTF_8));
                    body.append("{\"event\":").append(json).append('}');
                    syslog.write(syslog(record, epoch + n / 1000, (int) (n % 1000)).getBytes(StandardCharsets.UTF_8));
                }
                frame.clear();
                encoder.frame(ForwardMode.PACKED_FORWARD, frame, "bench", batch, null);
                forward.write(frame.array(), 0, frame.size());
                hec.write(body.append('\n').toString().getBytes(StandardCharsets.UTF_8));
            }
        }
        System.out.printf("wrote %,d events (%.0f bytes per record as JSON) to %s: forward.bin lines.ndjson hec.bodies syslog.txt%n",
                events, (double) jsonBytes / events, dir);
    }

    /** The record as one RFC 5424 line: facility local0, severity from the level, a millisecond timestamp. */
    static String syslog(Map<String, Object> record, long epochSeconds, int millis) {
        int severity = switch ((String) record.get("level")) {
            case "error" -> 3;
            case "warn" -> 4;
            case "debug" -> 7;
            default -> 6;
        };
        String time = SYSLOG_TIME.format(java.time.Instant.ofEpochSecond(epochSeconds, millis * 1_000_000L));
        return "<" + (16 * 8 + severity) + ">1 " + time + " host-" + ((Long) record.get("n") % 50) + " "
                + record.get("service") + " " + (1000 + (Long) record.get("n") % 30000) + " - - " + record.get("message")
                + " user=" + record.get("user") + "\n";
    }

    private static OutputStream out(Path p) throws IOException {
        return new BufferedOutputStream(Files.newOutputStream(p), 1 << 20);
    }

    /** Record number {@code n}: level, service, n, user, message; the message holds n, so no two are equal. */
    static Map<String, Object> record(long n, SplittableRandom random) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("level", LEVELS[random.nextInt(LEVELS.length)]);
        r.put("service", SERVICES[random.nextInt(SERVICES.length)]);
        r.put("n", n);
        r.put("user", "user-" + (10000 + random.nextInt(90000)));
        StringBuilder m = new StringBuilder(110);
        m.append(VERBS[random.nextInt(VERBS.length)]).append(' ').append(PATHS[random.nextInt(PATHS.length)])
                .append('/').append(n).append(" status=").append(random.nextInt(10) < 9 ? 200 : 503)
                .append(" took=").append(1 + random.nextInt(900)).append("ms");
        // Words until the message is about 95 characters: records come out at about 180 bytes as JSON.
        int target = 85 + random.nextInt(21);
        while (m.length() < target) {
            m.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
        }
        r.put("message", m.toString());
        return r;
    }

    /** The record as a JSON object, fields in order. Values are plain ASCII with nothing to escape. */
    static String json(Map<String, Object> record) {
        StringBuilder b = new StringBuilder(200).append('{');
        for (Map.Entry<String, Object> e : record.entrySet()) {
            if (b.length() > 1) {
                b.append(',');
            }
            b.append('"').append(e.getKey()).append("\":");
            if (e.getValue() instanceof Number) {
                b.append(e.getValue());
            } else {
                b.append('"').append(e.getValue()).append('"');
            }
        }
        return b.append('}').toString();
    }
}
