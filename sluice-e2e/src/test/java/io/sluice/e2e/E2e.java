package io.sluice.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

/** Sizes of the runs (system properties, see the README) and the two pipelines every test builds on. */
final class E2e {
    /** Events fluency sends in the crash test (the full run: 1000000). */
    static final int EVENTS = Integer.getInteger("e2e.events", 200_000);
    /** SIGKILLs of process A during the crash test. */
    static final int KILLS = Integer.getInteger("e2e.kills", 3);
    /** Seconds the HEC receiver is down in the overload test (the issue: 30). */
    static final int DOWN_SECONDS = Integer.getInteger("e2e.downSeconds", 10);
    /** Events per second offered (crash test: by fluency; overload test: by fluency and an HEC client together). */
    static final int RATE = Integer.getInteger("e2e.rate", 20_000);
    /** Bound of process A's resident set: its heap is -Xmx256m, plus 256 MB for metaspace, code, stacks and direct buffers. */
    static final int MAX_RSS_MB = Integer.getInteger("e2e.maxRssMb", 512);
    /** Seed of the kill moments; printed, so a failing run can be repeated. */
    static final long SEED = Long.getLong("e2e.seed", System.nanoTime());

    /** producer.SplunkHEC's requests in flight (MaxConnections), each one pipeline batch at most. */
    static final int HEC_CONNECTIONS = 4;
    /** Messages in one pipeline batch (BatchPool.DEFAULT_BATCH_SIZE): what a disk buffer hands a worker at once. */
    static final int BATCH = 512;

    private E2e() {
    }

    static int freePort() throws IOException {
        // A port is chosen here and bound later by a Sluice process: the kernel may hand the same free port to
        // the next bind(0) meanwhile (another test's port, or a process's admin endpoint), so never give one out twice.
        while (true) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                if (HANDED_OUT.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            }
        }
    }

    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Process B: a HEC receiver writing every event's payload as one NDJSON line. It answers a request only
     * once producer.File took its events, so an HTTP 200 to A means "in B's file".
     */
    static String receiver(int hecPort, Path out) {
        return "\"HecIn\":\n"
                + "    Type: \"consumer.HEC\"\n"
                + "    Address: \"127.0.0.1:" + hecPort + "\"\n"
                + "    Streams: \"events\"\n"
                + "\"Out\":\n"
                + "    Type: \"producer.File\"\n"
                + "    Streams: \"events\"\n"
                + "    File: \"" + out + "\"\n";
    }

    /**
     * Process A's producer: producer.SplunkHEC to B, with {@code buffer} lines (Buffer/...) as given. Retries
     * are capped at 1 s so that the test does not wait for a long backoff once B is back.
     */
    static String hecProducer(int hecPort, String buffer) {
        return "\"ToHec\":\n"
                + "    Type: \"producer.SplunkHEC\"\n"
                + "    Streams: \"events\"\n"
                + "    Endpoint: \"http://127.0.0.1:" + hecPort + "\"\n"
                + "    Token: \"e2e\"\n"
                + "    Gzip: false\n"
                + "    HealthCheck: false\n"
                + "    MaxConnections: " + HEC_CONNECTIONS + "\n"
                + "    Retry/BackoffMs: 100\n"
                + "    Retry/MaxBackoffMs: 1000\n"
                + "    ShutdownTimeoutMs: 2000\n"
                + buffer;
    }

    /** Process A's Forward front: fluency's records as JSON payloads, on stream "events". */
    static String forwardConsumer(int port) {
        return "\"In\":\n"
                + "    Type: \"consumer.Forward\"\n"
                + "    Address: \"127.0.0.1:" + port + "\"\n"
                + "    Metadata: false\n"
                + "    Streams: \"events\"\n";
    }

    static String diskBuffer(Path dir, String extra) {
        return "    Buffer/Type: \"disk\"\n"
                + "    Buffer/Path: \"" + dir + "\"\n"
                + extra;
    }
}
