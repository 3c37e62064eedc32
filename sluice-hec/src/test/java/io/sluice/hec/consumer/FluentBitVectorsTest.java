package io.sluice.hec.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.Captured;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.hec.Support;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * Replays the requests Fluent Bit 5.1.1's out_splunk sent (captured byte for byte: request line, headers,
 * body) into consumer.HEC and checks every event comes out exactly: payload, time to the microsecond, metadata.
 */
@org.junit.jupiter.api.Timeout(60)
class FluentBitVectorsTest {
    /** The captures in this module's test resources (vectors/README.md says what each one is). */
    private static final Path DIR = resources("/vectors/fluent-bit/splunk-hec");
    private static final String RECORD = "{\"message\":\"hello splunk\",\"level\":\"info\",\"user\":{\"id\":42,\"name\":\"ann\"}}";
    private static final Pattern TIME = Pattern.compile("\"time\":([0-9.]+)");

    private static Path resources(String name) {
        try {
            return Path.of(FluentBitVectorsTest.class.getResource(name).toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Headers file + body, sent as they were captured (CRLF line ends restored). */
    private static byte[] request(Path dir, int i) throws IOException {
        String head = Files.readString(dir.resolve("req-" + i + ".headers"), StandardCharsets.ISO_8859_1)
                .replace("\r\n", "\n").strip().replace("\n", "\r\n") + "\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
        byte[] body = Files.readAllBytes(dir.resolve("req-" + i + ".bin"));
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    private static String plainBody(Path dir, int i) throws IOException {
        byte[] body = Files.readAllBytes(dir.resolve("req-" + i + ".bin"));
        String head = Files.readString(dir.resolve("req-" + i + ".headers"), StandardCharsets.ISO_8859_1);
        if (head.contains("Content-Encoding: gzip")) {
            try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
                body = in.readAllBytes();
            }
        }
        return new String(body, StandardCharsets.UTF_8);
    }

    private static long nanos(String seconds) {
        return new BigDecimal(seconds).movePointRight(9).longValueExact();
    }

    private static int count(Path dir) {
        int n = 0;
        while (Files.exists(dir.resolve("req-" + (n + 1) + ".bin"))) {
            n++;
        }
        return n;
    }

    /** Replays a directory into a fresh receiver; returns what came out. */
    private static List<Captured> replay(String name, Map<String, Object> settings, List<String> bodies) throws Exception {
        Path dir = DIR.resolve(name);
        int port = PipelineHarness.freePort();
        PipelineHarness p = Support.receiver(port, "fb-" + name, settings);
        try {
            for (int i = 1; i <= count(dir); i++) {
                Support.Reply r = Support.exchange(port, request(dir, i));
                assertThat(r.status()).as(name + " req-" + i + ": " + r.body()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("{\"text\":\"Success\",\"code\":0}");
                bodies.add(plainBody(dir, i));
            }
            return p.captured("fb-" + name);
        } finally {
            p.close();
        }
    }

    private static List<Long> times(List<String> bodies) {
        List<Long> t = new ArrayList<>();
        for (String b : bodies) {
            Matcher m = TIME.matcher(b);
            while (m.find()) {
                t.add(nanos(m.group(1)));
            }
        }
        return t;
    }

    @Test
    void defaultsAndGzipGiveEveryRecordWithItsExactTime() throws Exception {
        for (String name : new String[] {"splunk-out", "splunk-out-gzip"}) {
            List<String> bodies = new ArrayList<>();
            List<Captured> got = replay(name, Map.of("Tokens", List.of("out-token-456")), bodies);
            List<Long> times = times(bodies);
            assertThat(got).as(name).hasSize(times.size()).isNotEmpty();
            for (int i = 0; i < got.size(); i++) {
                assertThat(got.get(i).payload()).isEqualTo(RECORD);
                assertThat(got.get(i).timestamp()).isEqualTo(times.get(i));
                assertThat(got.get(i).fields()).isEmpty();
            }
        }
    }

    @Test
    void metadataAndIndexedFieldsBecomeMetadata() throws Exception {
        List<String> bodies = new ArrayList<>();
        List<Captured> got = replay("splunk-out-meta", Map.of("Tokens", List.of("out-token-456"),
                "UseAck", false, "Indexes", List.of("main")), bodies);
        List<Long> times = times(bodies);
        assertThat(got).hasSize(times.size()).hasSize(4);
        for (int i = 0; i < got.size(); i++) {
            Captured e = got.get(i);
            assertThat(e.payload()).isEqualTo(
                    "{\"message\":\"hello splunk\",\"level\":\"info\",\"host\":\"web-1\",\"user\":{\"id\":42,\"name\":\"ann\"}}");
            assertThat(e.timestamp()).isEqualTo(times.get(i));
            assertThat(e.fields()).containsExactlyInAnyOrderEntriesOf(Map.of("host", "web-1", "source", "fluent-bit",
                    "sourcetype", "_json", "index", "main", "lvl", "info"));
        }
    }

    @Test
    void eventKeyStringEventsTakeTheReceiveTime() throws Exception {
        long before = System.currentTimeMillis() * 1_000_000L - 1_000_000_000L;
        List<Captured> got = replay("splunk-out-eventkey", Map.of(), new ArrayList<>());
        assertThat(got).extracting(Captured::payload).containsExactly("hello splunk", "hello splunk");
        assertThat(got).allSatisfy(e -> assertThat(e.timestamp()).isGreaterThan(before));
    }

    @Test
    void sendRawRecordsWithoutEventAreWholeEventsWhenAllowed() throws Exception {
        List<Captured> got = replay("splunk-out-raw", Map.of("EventFieldRequired", false), new ArrayList<>());
        assertThat(got).extracting(Captured::payload).containsExactly(RECORD, RECORD);
        // Splunk's own rule (the default) rejects the same request with code 12.
        int port = PipelineHarness.freePort();
        PipelineHarness p = Support.receiver(port, "fb-raw-strict", Map.of());
        try {
            Support.Reply r = Support.exchange(port, request(DIR.resolve("splunk-out-raw"), 1));
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.body()).isEqualTo("{\"text\":\"Event field is required\",\"code\":12,\"invalid-event-number\":0}");
        } finally {
            p.close();
        }
    }
}
