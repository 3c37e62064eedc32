package io.sluice.hec.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.hec.Feed;
import io.sluice.hec.Support;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code FlushIntervalMs} end to end: consumer.Feed publishes pipeline batches exactly as the test shapes them,
 * producer.SplunkHEC (real pipeline, real worker threads) sends them to consumer.HEC on loopback, and
 * test.Collect records every event and how many requests they came in.
 */
@Timeout(60)
class FlushIntervalTest {
    private static int port;
    private static PipelineHarness receiver;
    private static int run;

    @BeforeAll
    static void start() throws Exception {
        port = PipelineHarness.freePort();
        receiver = Support.receiver(port, "fi", Map.of("Tokens", List.of("tok")));
    }

    @AfterAll
    static void stop() {
        receiver.close();
    }

    /** A sending pipeline: consumer.Feed (id returned in feed[0]) → producer.SplunkHEC with these settings. */
    private static PipelineHarness sender(String[] feed, Map<String, Object> settings) throws Exception {
        receiver.collect("fi").clear();
        feed[0] = "feed" + (++run);
        Map<String, Object> out = new HashMap<>(settings);
        out.put("Streams", "out");
        out.put("Endpoint", "http://127.0.0.1:" + port);
        out.put("Token", "tok");
        out.put("HealthCheck", false);
        out.putIfAbsent("FallbackStream", "failed");
        // The tests count on four delivering threads; the default follows the machine's cores.
        out.putIfAbsent("MaxConnections", 4);
        return PipelineHarness.builder().plugin(feed[0], "consumer.Feed", Map.of("Streams", "out"))
                .plugin("hec" + run, "producer.SplunkHEC", out)
                .plugin("fallback" + run, "test.Collect", Map.of("Streams", "failed",
                        "ShutdownTimeoutMs", out.getOrDefault("ShutdownTimeoutMs", 10_000)))
                .log(PipelineHarness.stderrLog()).start();
    }

    private static PluginStats hecStats(PipelineHarness p) {
        return p.pipeline().producers().stream().filter(r -> r.producer() instanceof HecProducer).findFirst().orElseThrow().stats();
    }

    /** {@code batches} lists of {@code size} unique payloads "b<i>-e<j>". */
    private static List<List<String>> batches(int batches, int size) {
        List<List<String>> all = new ArrayList<>();
        for (int i = 0; i < batches; i++) {
            List<String> b = new ArrayList<>();
            for (int j = 0; j < size; j++) {
                b.add("b" + i + "-e" + j);
            }
            all.add(b);
        }
        return all;
    }

    private static List<String> flat(List<List<String>> batches) {
        List<String> all = new ArrayList<>();
        batches.forEach(all::addAll);
        return all;
    }

    private static List<String> received() {
        return receiver.captured("fi").stream().map(Captured::payload).toList();
    }

    /** Sends 40 batches of 5 events and returns how many requests carried them; every event arrives once. */
    private static int requestsFor(Map<String, Object> settings) throws Exception {
        String[] feed = new String[1];
        PipelineHarness p = sender(feed, settings);
        try {
            List<List<String>> sent = batches(40, 5);
            sent.forEach(b -> Feed.publish(feed[0], b));
            PipelineHarness.await("200 events at the receiver", 20_000, () -> receiver.captured("fi").size() >= 200);
        } finally {
            p.close();
        }
        assertThat(received()).containsExactlyInAnyOrderElementsOf(flat(batches(40, 5)));
        return receiver.collect("fi").completions();
    }

    @Test
    void smallPipelineBatchesShareRequestsAndNothingIsLostOrDuplicated() throws Exception {
        // Control: without an interval every pipeline batch is a request of its own.
        assertThat(requestsFor(Map.of("Gzip", false))).isEqualTo(40);
        // With one, the batches waiting on the four delivering threads (MaxConnections) go out together: a group
        // closes as soon as every thread holds a batch in it, so 4 per request (10 here), never fewer requests.
        int gathered = requestsFor(Map.of("FlushIntervalMs", 10_000, "Gzip", true));
        assertThat(gathered).isBetween(10, 20);
    }

    @Test
    void aLoneEventIsDeliveredWhenTheIntervalEnds() throws Exception {
        String[] feed = new String[1];
        PipelineHarness p = sender(feed, Map.of("FlushIntervalMs", 500));
        try {
            long start = System.nanoTime();
            Feed.publish(feed[0], List.of("alone"));
            PipelineHarness.await("the lone event", 10_000, () -> !receiver.captured("fi").isEmpty());
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // It waited for company for the interval (three more threads could have brought some), not longer.
            assertThat(waited).isBetween(500L, 5_000L);
            assertThat(received()).containsExactly("alone");
            assertThat(receiver.collect("fi").completions()).isEqualTo(1);
        } finally {
            p.close();
        }
    }

    @Test
    void stoppingSendsWhatWaitsBeforeTheIntervalEnds() throws Exception {
        for (int interval : new int[] {1_500, 600_000}) {
            String[] feed = new String[1];
            // 1.5 s: the stop waits for the group's deadline. 10 min: past ShutdownTimeoutMs the pipeline
            // interrupts its workers, and the interrupted one sends the group at once.
            PipelineHarness p = sender(feed, Map.of("FlushIntervalMs", interval, "ShutdownTimeoutMs", 1_000));
            List<List<String>> sent = batches(3, 2);
            sent.forEach(b -> Feed.publish(feed[0], b));
            PipelineHarness.await("the batches waiting in the producer", 10_000, () -> hecStats(p).in() == 6);
            long start = System.nanoTime();
            p.close();
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(received()).as("interval " + interval).containsExactlyInAnyOrderElementsOf(flat(sent));
            assertThat(took).as("stop with interval " + interval).isLessThan(10_000L);
        }
    }

    @Test
    void eachBatchOfAGroupKeepsItsOwnFailures() throws Exception {
        String[] feed = new String[1];
        PipelineHarness p = sender(feed, Map.of("FlushIntervalMs", 10_000, "MaxEventSize", 1000, "Gzip", false));
        String big = "x".repeat(2000);
        try {
            Feed.publish(feed[0], List.of("a1", "a2"));
            Feed.publish(feed[0], List.of("b1", big, "b2"));
            Feed.publish(feed[0], List.of("c1"));
            Feed.publish(feed[0], List.of("d1"));
            PipelineHarness.await("the events and the rejected one", 10_000,
                    () -> receiver.captured("fi").size() >= 6 && !p.captured("fallback" + run).isEmpty());
        } finally {
            p.close();
        }
        assertThat(received()).containsExactlyInAnyOrder("a1", "a2", "b1", "b2", "c1", "d1");
        List<Captured> failed = p.captured("fallback" + run);
        assertThat(failed).extracting(Captured::payload).containsExactly(big);
        assertThat(failed.get(0).fields().get("hec_error_text")).contains("MaxEventSize");
        assertThat(receiver.collect("fi").completions()).isEqualTo(1);
    }
}
