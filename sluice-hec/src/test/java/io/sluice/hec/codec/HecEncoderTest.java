package io.sluice.hec.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.json.JsonScanner;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

class HecEncoderTest {
    private static void set(Message m, String k, String v, byte kind) {
        m.metadata().set(k.getBytes(StandardCharsets.UTF_8), v.getBytes(StandardCharsets.UTF_8), kind);
    }

    private static Message log(Batch b, long ts) {
        Message m = b.add();
        m.setPayload("mylog");
        m.setTimestamp(ts);
        set(m, "host", "myhost", Metadata.STRING);
        set(m, "source", "myapp", Metadata.STRING);
        set(m, "sourcetype", "myapp-type", Metadata.STRING);
        set(m, "index", "myindex", Metadata.STRING);
        set(m, "custom", "custom", Metadata.STRING);
        return m;
    }

    @Test
    void logEventHasTheOtelExporterShape() {
        Batch b = new BatchPool(8).acquire();
        log(b, 1_000_000L);
        HecEncoder enc = new HecEncoder(HecFormat.builder().gzip(false).build());
        enc.encode(b);
        assertThat(enc.eventsText()).isEqualTo("{\"time\":0.001,\"host\":\"myhost\",\"source\":\"myapp\","
                + "\"sourcetype\":\"myapp-type\",\"index\":\"myindex\",\"event\":\"mylog\",\"fields\":{\"custom\":\"custom\"}}\n");
    }

    @Test
    void configDefaultsApplyAndEscapingAndKindsArePreserved() {
        Batch b = new BatchPool(8).acquire();
        Message m = b.add();
        m.setPayload("say \"hi\"\n\u0001");
        m.setTimestamp(1796002770_166598000L);
        set(m, "n", "42", Metadata.NUMBER);
        set(m, "ok", "true", Metadata.BOOLEAN);
        set(m, "tags", "[\"a\",\"b\"]", Metadata.JSON);
        HecEncoder enc = new HecEncoder(HecFormat.builder().gzip(false).host("h1").index("main").build());
        enc.encode(b);
        assertThat(enc.eventsText()).isEqualTo("{\"time\":1796002770.166598,\"host\":\"h1\",\"index\":\"main\","
                + "\"event\":\"say \\\"hi\\\"\\n\\u0001\",\"fields\":{\"n\":42,\"ok\":true,\"tags\":[\"a\",\"b\"]}}\n");
    }

    @Test
    void autoSendsValidJsonAsJsonAndAnythingElseAsAString() {
        Batch b = new BatchPool(8).acquire();
        b.add().setPayload("{\"a\":[1,2,{\"b\":null}]}");
        b.add().setPayload("{not json");
        HecEncoder enc = new HecEncoder(HecFormat.builder().gzip(false).build());
        enc.encode(b);
        assertThat(enc.eventsText()).isEqualTo("{\"event\":{\"a\":[1,2,{\"b\":null}]}}\n{\"event\":\"{not json\"}\n");
    }

    private static Message metric(Batch b, long ts, String... measurements) {
        Message m = b.add();
        m.setPayload("metric");
        m.setTimestamp(ts);
        set(m, "k0", "v0", Metadata.STRING);
        for (int i = 0; i < measurements.length; i += 2) {
            set(m, "metric_name:" + measurements[i], measurements[i + 1], Metadata.NUMBER);
        }
        return m;
    }

    @Test
    void metricsSingleSplitsMeasurementsAndMultiMergesSameTimeAndDimensions() {
        Batch b = new BatchPool(8).acquire();
        metric(b, 2_000_000_000L, "cpu", "1.5", "mem", "2");
        metric(b, 2_000_000_000L, "disk", "3");
        metric(b, 3_000_000_000L, "cpu", "4");
        HecEncoder single = new HecEncoder(HecFormat.builder().gzip(false).build());
        single.encode(b);
        assertThat(single.events()).isEqualTo(4);
        assertThat(single.eventsText()).startsWith(
                "{\"time\":2,\"event\":\"metric\",\"fields\":{\"k0\":\"v0\",\"metric_name:cpu\":1.5}}\n"
                        + "{\"time\":2,\"event\":\"metric\",\"fields\":{\"k0\":\"v0\",\"metric_name:mem\":2}}\n");
        HecEncoder multi = new HecEncoder(HecFormat.builder().gzip(false).multiMetric(true).build());
        multi.encode(b);
        assertThat(multi.eventsText()).isEqualTo(
                "{\"time\":2,\"event\":\"metric\",\"fields\":{\"k0\":\"v0\",\"metric_name:cpu\":1.5,\"metric_name:mem\":2,"
                        + "\"metric_name:disk\":3}}\n"
                        + "{\"time\":3,\"event\":\"metric\",\"fields\":{\"k0\":\"v0\",\"metric_name:cpu\":4}}\n");
    }

    private static Message metricOn(Batch b, long ts, String host, String dim, String... measurements) {
        Message m = b.add();
        m.setPayload("metric");
        m.setTimestamp(ts);
        set(m, "host", host, Metadata.STRING);
        set(m, "k0", dim, Metadata.STRING);
        for (int i = 0; i < measurements.length; i += 2) {
            set(m, "metric_name:" + measurements[i], measurements[i + 1], Metadata.NUMBER);
        }
        return m;
    }

    private static String metricEvent(int time, String host, String dim, String measurements) {
        return "{\"time\":" + time + ",\"host\":\"" + host + "\",\"event\":\"metric\",\"fields\":{\"k0\":\"" + dim + "\","
                + measurements + "}}\n";
    }

    @Test
    void multiMetricMergesEveryMeasurementSharingTimeAndDimensionsAcrossTheBatches() {
        Batch a = new BatchPool(8).acquire();
        metricOn(a, 1_000_000_000L, "a", "x", "cpu", "1");   // group A
        metricOn(a, 1_000_000_000L, "b", "x", "cpu", "2");   // B: other host
        metricOn(a, 2_000_000_000L, "a", "x", "cpu", "3");   // C: other time
        a.add().setPayload("a log line");                     // not a metric: an event of its own, in place
        metricOn(a, 1_000_000_000L, "a", "x", "mem", "4");   // joins A
        Batch b = new BatchPool(8).acquire();
        metricOn(b, 1_000_000_000L, "a", "y", "cpu", "5");   // D: other dimension value
        metricOn(b, 1_000_000_000L, "b", "x", "mem", "6");   // joins B, from the second batch
        metricOn(b, 1_000_000_000L, "a", "x", "cpu", "7");   // A already has cpu: a second A event
        metricOn(b, 1_000_000_000L, "a", "x", "disk", "8", "net", "9"); // joins that second A event
        HecEncoder enc = new HecEncoder(HecFormat.builder().gzip(false).multiMetric(true).build());
        enc.clear();
        assertThat(enc.add(a)).isZero();
        assertThat(enc.add(b)).isEqualTo(5);
        enc.encode();
        // Events stay where their first message was; the second "a x" event starts with its first message (7).
        assertThat(enc.eventsText()).isEqualTo(
                metricEvent(1, "a", "x", "\"metric_name:cpu\":1,\"metric_name:mem\":4")
                        + metricEvent(1, "b", "x", "\"metric_name:cpu\":2,\"metric_name:mem\":6")
                        + metricEvent(2, "a", "x", "\"metric_name:cpu\":3")
                        + "{\"event\":\"a log line\"}\n"
                        + metricEvent(1, "a", "y", "\"metric_name:cpu\":5")
                        + metricEvent(1, "a", "x", "\"metric_name:cpu\":7,\"metric_name:disk\":8,\"metric_name:net\":9"));
        assertThat(enc.events()).isEqualTo(6);
        // A rejected request fails exactly the messages merged into its events, in both batches.
        enc.plan();
        enc.failRequest(0, 400, 6, "bad");
        for (int i = 0; i < a.size() + b.size(); i++) {
            assertThat(enc.failure(i)).as("message " + i).isEqualTo("bad");
        }
        // The structures are reused: encoding again gives the same bytes.
        String first = enc.eventsText();
        enc.encode();
        assertThat(enc.eventsText()).isEqualTo(first);
    }

    @Test
    void multiMetricKeepsEveryMeasurementOnceAndNeverRepeatsANameInAnEvent() {
        Random r = new Random(11);
        for (int round = 0; round < 50; round++) {
            Batch a = new BatchPool(64).acquire();
            Batch b = new BatchPool(64).acquire();
            java.util.List<String> expected = new java.util.ArrayList<>();
            java.util.Map<String, java.util.Map<String, Integer>> namesPerPrefix = new java.util.HashMap<>();
            for (int i = 0; i < 100; i++) {
                Batch into = i < 50 ? a : b;
                int t = 1 + r.nextInt(2);
                String host = "h" + r.nextInt(2);
                String dim = "d" + r.nextInt(2);
                String[] ms = r.nextInt(4) == 0 ? new String[] {"n" + r.nextInt(5), "" + i, "n" + (5 + r.nextInt(3)), "" + i}
                        : new String[] {"n" + r.nextInt(8), "" + i};
                metricOn(into, t * 1_000_000_000L, host, dim, ms);
                String prefix = metricEvent(t, host, dim, "").replace("}}\n", "");
                for (int k = 0; k < ms.length; k += 2) {
                    expected.add(prefix + "|" + ms[k] + "=" + ms[k + 1]);
                    namesPerPrefix.computeIfAbsent(prefix, x -> new java.util.HashMap<>()).merge(ms[k], 1, Integer::sum);
                }
            }
            HecEncoder enc = new HecEncoder(HecFormat.builder().gzip(false).multiMetric(true).build());
            enc.clear();
            enc.add(a);
            enc.add(b);
            enc.encode();
            java.util.List<String> got = new java.util.ArrayList<>();
            java.util.Map<String, Integer> eventsPerPrefix = new java.util.HashMap<>();
            for (String line : enc.eventsText().split("\n")) {
                int at = line.indexOf("\"metric_name:");
                String prefix = line.substring(0, at);
                eventsPerPrefix.merge(prefix, 1, Integer::sum);
                java.util.Set<String> names = new java.util.HashSet<>();
                for (String m : line.substring(at, line.length() - 2).split(",")) {
                    String name = m.substring("\"metric_name:".length(), m.indexOf("\":"));
                    assertThat(names.add(name)).as("a name twice in " + line).isTrue();
                    got.add(prefix + "|" + name + "=" + m.substring(m.indexOf("\":") + 2));
                }
            }
            assertThat(got).containsExactlyInAnyOrderElementsOf(expected);
            // One event per prefix, more only where a name comes again (then at least as many as its repeats).
            namesPerPrefix.forEach((prefix, names) -> {
                int repeats = java.util.Collections.max(names.values());
                assertThat(eventsPerPrefix.get(prefix)).as(prefix).isBetween(repeats, repeats == 1 ? 1 : names.size() + repeats);
            });
        }
    }

    @Test
    void multiMetricStartsAnotherEventAtMaxEventSizeAndFailsOnlyAMeasurementTooLargeAlone() {
        Batch b = new BatchPool(8).acquire();
        metricOn(b, 1_000_000_000L, "a", "x", "m1", "1");
        metricOn(b, 1_000_000_000L, "a", "x", "m2", "2");
        metricOn(b, 1_000_000_000L, "a", "x", "m3".repeat(60), "3");
        metricOn(b, 1_000_000_000L, "a", "x", "m4", "4");
        String one = metricEvent(1, "a", "x", "\"metric_name:m1\":1");
        int max = one.length() + 22; // room for one more short measurement, not for the long one
        HecEncoder enc = new HecEncoder(HecFormat.builder().gzip(false).multiMetric(true).maxEventSize(max).build());
        enc.encode(b);
        assertThat(enc.eventsText()).isEqualTo(
                metricEvent(1, "a", "x", "\"metric_name:m1\":1,\"metric_name:m2\":2")
                        + metricEvent(1, "a", "x", "\"metric_name:m4\":4"));
        assertThat(enc.failure(2)).contains("MaxEventSize");
        assertThat(enc.failedMessages()).isEqualTo(1);
    }

    private static Batch randomLogs(int n, long seed) {
        Batch b = new BatchPool(n).acquire();
        Random r = new Random(seed);
        for (int i = 0; i < n; i++) {
            Message m = log(b, i * 1_000_000L);
            StringBuilder s = new StringBuilder();
            for (int j = 0, len = 20 + r.nextInt(200); j < len; j++) {
                s.append((char) ('a' + r.nextInt(26)));
            }
            m.setPayload(s.toString());
        }
        return b;
    }

    private static String gunzip(byte[] b, int off, int len) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(b, off, len))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void gzipRequestsStayUnderMaxContentLengthAndHoldEveryEventInOrder() throws IOException {
        Batch b = randomLogs(3000, 7);
        for (int max : new int[] {1024, 8192, 100_000}) {
            HecEncoder plain = new HecEncoder(HecFormat.builder().gzip(false).maxContentLength(1 << 30).build());
            plain.encode(b);
            HecEncoder enc = new HecEncoder(HecFormat.builder().gzip(true).gzipLevel(6).maxContentLength(max).build());
            enc.encode(b);
            enc.plan();
            StringBuilder all = new StringBuilder();
            for (int r = 0; r < enc.requests(); r++) {
                assertThat(enc.requestLength(r)).isLessThanOrEqualTo(max);
                all.append(gunzip(enc.requestArray(r), enc.requestOffset(r), enc.requestLength(r)));
            }
            assertThat(all.toString()).isEqualTo(plain.eventsText());
            assertThat(enc.failedMessages()).isZero();
            if (max == 100_000) {
                // Packed close to the limit, not one flush per event.
                assertThat(enc.requests()).isLessThan(8);
            }
        }
    }

    @Test
    void plainRequestsAreSlicesUnderTheLimit() {
        Batch b = randomLogs(500, 3);
        HecEncoder enc = new HecEncoder(HecFormat.builder().gzip(false).maxContentLength(4096).build());
        enc.encode(b);
        enc.plan();
        StringBuilder all = new StringBuilder();
        for (int r = 0; r < enc.requests(); r++) {
            assertThat(enc.requestLength(r)).isLessThanOrEqualTo(4096);
            all.append(new String(enc.requestArray(r), enc.requestOffset(r), enc.requestLength(r), StandardCharsets.UTF_8));
        }
        assertThat(all.toString()).isEqualTo(enc.eventsText());
        int r0 = enc.requests();
        int half = enc.split(0);
        assertThat(half).isEqualTo(r0);
        assertThat(enc.requestEvents(half) + enc.requestEvents(half + 1)).isEqualTo(enc.requestEvents(0));
    }

    @Test
    void eventsTooLargeFailWithAReasonAndTheOthersGo() {
        Batch b = new BatchPool(8).acquire();
        b.add().setPayload("small");
        b.add().setPayload("x".repeat(5000));
        b.add().setPayload("small too");
        HecEncoder enc = new HecEncoder(HecFormat.builder().gzip(false).maxEventSize(2000).build());
        enc.encode(b);
        enc.plan();
        assertThat(enc.events()).isEqualTo(2);
        assertThat(enc.failure(1)).contains("MaxEventSize");
        assertThat(enc.failure(0)).isNull();
        HecEncoder enc2 = new HecEncoder(HecFormat.builder().gzip(false).maxContentLength(1024).build());
        enc2.encode(b);
        enc2.plan();
        assertThat(enc2.failure(1)).contains("MaxContentLength");
        assertThat(enc2.requests()).isEqualTo(2);
    }

    @Test
    void rawModeWritesLines() {
        Batch b = new BatchPool(8).acquire();
        b.add().setPayload("line one\n");
        b.add().setPayload("line two");
        HecEncoder enc = new HecEncoder(HecFormat.builder().gzip(false).raw(true).build());
        enc.encode(b);
        assertThat(enc.eventsText()).isEqualTo("line one\nline two\n");
    }

    @Test
    void scannerRejectsDeepNestingBadUtf8AndBadGrammar() {
        JsonScanner s = new JsonScanner(512, true); // as consumer.HEC's EventParser and the encoder use it
        byte[] deep = ("[".repeat(10_000) + "]".repeat(10_000)).getBytes(StandardCharsets.US_ASCII);
        assertThat(s.skipValue(deep, 0, deep.length)).isEqualTo(-1);
        assertThat(s.error().detail()).contains("nested");
        byte[] bad = {'"', 'a', (byte) 0xC3, '"'};
        assertThat(s.skipValue(bad, 0, bad.length)).isEqualTo(-1);
        byte[] ok = "{\"a\":[1,-2.5e3,\"\\u00e9\",true,null,{}],\"b\":\"é\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(s.skipValue(ok, 0, ok.length)).isEqualTo(ok.length);
        for (String x : new String[] {"{\"a\":}", "[1,]", "{\"a\" 1}", "01", "\"\\x\"", "[1 2]"}) {
            byte[] t = x.getBytes(StandardCharsets.UTF_8);
            assertThat(s.scanValue(t, 0, t.length)).as(x).isFalse();
        }
    }
}
