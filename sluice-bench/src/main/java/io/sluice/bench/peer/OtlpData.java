package io.sluice.bench.peer;

import static io.sluice.bench.otlp.KeyValues.bool;
import static io.sluice.bench.otlp.KeyValues.dbl;
import static io.sluice.bench.otlp.KeyValues.integer;
import static io.sluice.bench.otlp.KeyValues.str;
import static io.sluice.bench.otlp.KeyValues.string;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.resource.v1.Resource;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The OTLP logs of the side-by-side benchmark (scripts/bench-peers.sh, workloads otlp-*), encoded with the official
 * generated classes (opentelemetry-proto), so that neither engine's encoder made them. Each request is one
 * {@code ExportLogsServiceRequest} with one resource (service.name, service.version, host.name,
 * deployment.environment.name, k8s.namespace.name, k8s.pod.name, telemetry.sdk.language; the host and pod vary
 * by request), one scope (io.sluice.bench 1.0.0) and 1,000 log records. A record: time and observed time (ns),
 * severity number and text, a string body of about 100 bytes (an access-log-like line that holds the record's
 * number, so no two are equal), a random 16-byte trace id and 8-byte span id, flags 1, and ten attributes of mixed
 * types that vary per record: http.request.method, url.path, user.id, client.address, peer.service (strings),
 * http.response.status_code, retry.count, thread.id (ints), http.server.request.duration (double, seconds),
 * cache.hit (bool). About 400 bytes per record on the wire. Files: see {@link NeutralData}.
 */
final class OtlpData {
    static final int PER_REQUEST = NeutralData.PER_FRAME;
    private static final String[] VERBS = {"GET", "GET", "GET", "POST", "PUT", "DELETE"};
    private static final String[] PATHS = {"/api/v1/orders", "/api/v1/carts", "/api/v2/items", "/api/v1/users",
        "/api/v1/sessions", "/healthz", "/api/v3/search"};
    private static final String[] SERVICES = {"payments", "search", "inventory", "auth", "shipping", "catalog",
        "recommendations"};

    private OtlpData() {
    }

    static void write(Path dir, long events) throws IOException {
        SplittableRandom random = new SplittableRandom(4317);
        long epochNanos = 1_767_225_600L * 1_000_000_000L; // 2026-01-01T00:00:00Z, as NeutralData's other files
        long bodyBytes = 0;
        long wireBytes = 0;
        byte[] first = null;
        try (DataOutputStream http = out(dir.resolve("otlp.bodies"));
             DataOutputStream grpc = out(dir.resolve("otlp.grpc"))) {
            for (long start = 0; start < events; start += PER_REQUEST) {
                ScopeLogs.Builder scope = ScopeLogs.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("io.sluice.bench").setVersion("1.0.0"));
                for (long n = start; n < start + PER_REQUEST; n++) {
                    LogRecord r = record(n, epochNanos, random);
                    bodyBytes += r.getBody().getStringValue().length();
                    scope.addLogRecords(r);
                }
                long request = start / PER_REQUEST;
                Resource resource = Resource.newBuilder()
                        .addAttributes(string("service.name", "checkout"))
                        .addAttributes(string("service.version", "2.14.3"))
                        .addAttributes(string("host.name", "node-" + (request % 12)))
                        .addAttributes(string("deployment.environment.name", "production"))
                        .addAttributes(string("k8s.namespace.name", "shop"))
                        .addAttributes(string("k8s.pod.name", "checkout-7d9f8b6c5-" + Long.toString(36 * 36 * 36 + request % 40, 36)))
                        .addAttributes(string("telemetry.sdk.language", "java"))
                        .build();
                byte[] body = ExportLogsServiceRequest.newBuilder()
                        .addResourceLogs(ResourceLogs.newBuilder().setResource(resource).addScopeLogs(scope))
                        .build().toByteArray();
                wireBytes += body.length;
                http.writeInt(body.length);
                http.write(body);
                grpc.writeByte(0); // not compressed
                grpc.writeInt(body.length);
                grpc.write(body);
                if (first == null) {
                    first = body;
                }
            }
        }
        try (DataOutputStream one = out(dir.resolve("otlp-one.grpc"))) {
            one.writeByte(0);
            one.writeInt(first.length);
            one.write(first);
        }
        System.out.printf("wrote %,d OTLP log records (%.0f bytes per record as protobuf, bodies of %.0f bytes) in"
                + " requests of %,d to %s: otlp.bodies otlp.grpc otlp-one.grpc%n", events, (double) wireBytes / events,
                (double) bodyBytes / events, PER_REQUEST, dir);
    }

    /** Record number {@code n}. */
    static LogRecord record(long n, long epochNanos, SplittableRandom random) {
        String verb = VERBS[random.nextInt(VERBS.length)];
        String path = PATHS[random.nextInt(PATHS.length)] + "/" + n;
        int status = random.nextInt(20) == 0 ? 503 : random.nextInt(15) == 0 ? 404 : 200;
        double seconds = (1 + random.nextInt(900_000)) / 1e6;
        String user = "user-" + (10000 + random.nextInt(90000));
        String client = "10." + random.nextInt(256) + "." + random.nextInt(256) + "." + (1 + random.nextInt(254));
        StringBuilder m = new StringBuilder(120);
        m.append(verb).append(' ').append(path).append(" status=").append(status).append(" took=")
                .append(Math.round(seconds * 1000)).append("ms user=").append(user);
        int target = 92 + random.nextInt(17); // about 100 bytes
        while (m.length() < target) {
            m.append(' ').append(NeutralData.WORDS[random.nextInt(NeutralData.WORDS.length)]);
        }
        SeverityNumber severity;
        String text;
        if (status == 503) {
            severity = SeverityNumber.SEVERITY_NUMBER_ERROR;
            text = "ERROR";
        } else if (status == 404 || seconds > 0.8) {
            severity = SeverityNumber.SEVERITY_NUMBER_WARN;
            text = "WARN";
        } else {
            severity = SeverityNumber.SEVERITY_NUMBER_INFO;
            text = "INFO";
        }
        byte[] trace = new byte[16];
        byte[] span = new byte[8];
        random.nextBytes(trace);
        random.nextBytes(span);
        long time = epochNanos + n * 1_000_000L + random.nextInt(1_000_000); // a record per ms, sub-ms jitter
        return LogRecord.newBuilder()
                .setTimeUnixNano(time)
                .setObservedTimeUnixNano(time + 200_000 + random.nextInt(5_000_000))
                .setSeverityNumber(severity)
                .setSeverityText(text)
                .setBody(str(m.toString()))
                .addAttributes(string("http.request.method", verb))
                .addAttributes(string("url.path", path))
                .addAttributes(integer("http.response.status_code", status))
                .addAttributes(dbl("http.server.request.duration", seconds))
                .addAttributes(string("user.id", user))
                .addAttributes(string("client.address", client))
                .addAttributes(string("peer.service", SERVICES[random.nextInt(SERVICES.length)]))
                .addAttributes(bool("cache.hit", random.nextInt(3) == 0))
                .addAttributes(integer("retry.count", random.nextInt(10) == 0 ? 1 + random.nextInt(3) : 0))
                .addAttributes(integer("thread.id", 20 + random.nextInt(180)))
                .setTraceId(ByteString.copyFrom(trace))
                .setSpanId(ByteString.copyFrom(span))
                .setFlags(1)
                .build();
    }

    private static DataOutputStream out(Path p) throws IOException {
        return new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(p), 1 << 20));
    }
}
