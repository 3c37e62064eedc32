package io.sluice.hec.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.hec.Support;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * consumer.HEC's per-token index settings, over real sockets: Splunk's {@code [http://name]} {@code index} (default)
 * and {@code indexes} (allowed) as {@code TokenDefaultIndex} and {@code TokenIndexes}.
 */
@Timeout(60)
class TokenIndexesTest {
    private static final String CAPTURE = "tokidx";
    private static final String SUCCESS = "{\"text\":\"Success\",\"code\":0}";
    private static final String RESTRICTED = "Authorization: Splunk tok-restricted";
    private static final String DEFAULTED = "Authorization: Splunk tok-defaulted";
    private static final String BOTH = "Authorization: Splunk tok-both";
    private static final String FREE = "Authorization: Splunk tok-free";
    private static final ByteArrayOutputStream LOGGED = new ByteArrayOutputStream();
    private static int port;
    private static PipelineHarness receiver;

    @BeforeAll
    static void start() throws Exception {
        port = PipelineHarness.freePort();
        Map<String, Object> in = new HashMap<>();
        in.put("Address", "127.0.0.1:" + port);
        in.put("Streams", "hec");
        in.put("Tokens", List.of("tok-restricted", "tok-defaulted", "tok-both", "tok-free"));
        in.put("TokenIndexes", Map.of("tok-restricted", List.of("web", "main"), "tok-both", List.of("ops", "audit")));
        in.put("TokenDefaultIndex", Map.of("tok-defaulted", "edge", "tok-both", "audit"));
        // A log of our own, to see the rejection's WARN (and that it does not name the token).
        Log log = new Log(new PrintStream(LOGGED, true, StandardCharsets.UTF_8), Log.WARNING);
        receiver = PipelineHarness.builder().plugin("in", "consumer.HEC", in)
                .plugin(CAPTURE, "test.Collect", Map.of("Streams", "hec")).log(log).start();
        PipelineHarness.await("receiver to listen", 10_000, () -> {
            try {
                return Support.exchange(port, "GET /services/collector/health HTTP/1.1\r\nHost: x\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII)).status() == 200;
            } catch (Exception e) {
                return false;
            }
        });
    }

    @AfterAll
    static void stop() {
        receiver.close();
    }

    private static Support.Reply post(String path, String body, String... headers) throws Exception {
        return Support.exchange(port, Support.post(path, body.getBytes(StandardCharsets.UTF_8), headers));
    }

    /** Posts, expects success, and returns the events it delivered (success comes only after delivery). */
    private static synchronized List<Captured> delivered(String path, String body, String auth) throws Exception {
        int before = receiver.captured(CAPTURE).size();
        Support.Reply r = post(path, body, auth);
        assertThat(r.body()).isEqualTo(SUCCESS);
        assertThat(r.status()).isEqualTo(200);
        List<Captured> all = receiver.captured(CAPTURE);
        return all.subList(before, all.size());
    }

    private static List<String> indexes(List<Captured> events) {
        return events.stream().map(e -> e.fields().get("index")).toList();
    }

    private static PluginStats stats() {
        return receiver.stats("in");
    }

    @Test
    void anEventWithoutIndexGetsItsTokensDefault() throws Exception {
        String two = "{\"event\":\"a\"}{\"event\":\"b\",\"index\":\"main\"}";
        // TokenIndexes alone: the first allowed index is the default.
        assertThat(indexes(delivered("/services/collector/event", two, RESTRICTED))).containsExactly("web", "main");
        // TokenDefaultIndex alone.
        assertThat(indexes(delivered("/services/collector/event", "{\"event\":\"a\"}", DEFAULTED)))
                .containsExactly("edge");
        // Both: the named default, though it is not the first allowed.
        assertThat(indexes(delivered("/services/collector/event", "{\"event\":\"a\"}{\"event\":\"b\",\"index\":\"ops\"}",
                BOTH))).containsExactly("audit", "ops");
    }

    @Test
    void theQueryStringsIndexComesBeforeTheTokensDefaultAndIsCheckedToo() throws Exception {
        assertThat(indexes(delivered("/services/collector/event?index=main&host=h1", "{\"event\":\"a\"}", RESTRICTED)))
                .containsExactly("main");
        assertThat(delivered("/services/collector/event?host=h2", "{\"event\":\"a\"}", RESTRICTED).get(0).fields())
                .isEqualTo(Map.of("host", "h2", "index", "web"));
        int before = receiver.captured(CAPTURE).size();
        Support.Reply r = post("/services/collector/event?index=secret", "{\"event\":\"a\"}", RESTRICTED);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body()).isEqualTo("{\"text\":\"Incorrect index\",\"code\":7,\"invalid-event-number\":0}");
        assertThat(receiver.captured(CAPTURE)).hasSize(before);
    }

    @Test
    void aDisallowedIndexRefusesTheWholeRequestNamingTheEventAndIsCountedAndLogged() throws Exception {
        long rejectedBefore = stats().rejected(Rejection.AUTH);
        long malformedBefore = stats().rejected(Rejection.MALFORMED);
        int before = receiver.captured(CAPTURE).size();
        String bad = "{\"event\":\"one\",\"index\":\"main\"}{\"event\":\"two\"}{\"event\":\"three\",\"index\":\"secret\"}"
                + "{\"event\":\"four\"}";
        Support.Reply r = post("/services/collector/event", bad, RESTRICTED);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body()).isEqualTo("{\"text\":\"Incorrect index\",\"code\":7,\"invalid-event-number\":2}");
        // All or nothing, as for codes 6, 12 and 13: the events before the bad one were not published...
        assertThat(receiver.captured(CAPTURE)).hasSize(before);
        assertThat(stats().rejected(Rejection.AUTH)).isEqualTo(rejectedBefore + 1);
        assertThat(stats().rejected(Rejection.MALFORMED)).isEqualTo(malformedBefore);
        String log = LOGGED.toString(StandardCharsets.UTF_8);
        assertThat(log).contains("rejected (auth)").contains("event 2: index 'secret' is not allowed");
        assertThat(log).doesNotContain("tok-restricted");
        // ...so the client's corrected retry delivers each event exactly once.
        List<Captured> got = delivered("/services/collector/event", bad.replace("secret", "web"), RESTRICTED);
        assertThat(got).extracting(Captured::payload).containsExactly("one", "two", "three", "four");
        assertThat(indexes(got)).containsExactly("main", "web", "web", "web");
    }

    @Test
    void anIndexOutsideAnotherTokensListIsRefusedEvenIfItIsTheDefaultElsewhere() throws Exception {
        Support.Reply r = post("/services/collector/event", "{\"event\":\"a\",\"index\":\"web\"}", BOTH);
        assertThat(r.body()).isEqualTo("{\"text\":\"Incorrect index\",\"code\":7,\"invalid-event-number\":0}");
        assertThat(r.status()).isEqualTo(400);
    }

    @Test
    void rawTakesTheTokensDefaultAndTheQueryIndexAndRefusesADisallowedOne() throws Exception {
        assertThat(indexes(delivered("/services/collector/raw", "line 1\nline 2\n", RESTRICTED)))
                .containsExactly("web", "web");
        assertThat(indexes(delivered("/services/collector/raw?index=main", "line 3\n", RESTRICTED)))
                .containsExactly("main");
        assertThat(indexes(delivered("/services/collector/raw", "line 4", DEFAULTED))).containsExactly("edge");
        int before = receiver.captured(CAPTURE).size();
        long rejectedBefore = stats().rejected(Rejection.AUTH);
        Support.Reply r = post("/services/collector/raw?index=secret", "line 5\nline 6\n", RESTRICTED);
        assertThat(r.status()).isEqualTo(400);
        // The index is the request's, not one line's: no event number.
        assertThat(r.body()).isEqualTo("{\"text\":\"Incorrect index\",\"code\":7}");
        assertThat(receiver.captured(CAPTURE)).hasSize(before);
        assertThat(stats().rejected(Rejection.AUTH)).isEqualTo(rejectedBefore + 1);
    }

    @Test
    void aTokenWithoutSettingsIsUnaffectedAndATokenWithOnlyADefaultMayWriteAnyIndex() throws Exception {
        List<Captured> free = delivered("/services/collector/event",
                "{\"event\":\"a\"}{\"event\":\"b\",\"index\":\"secret\"}", FREE);
        assertThat(free.get(0).fields()).doesNotContainKey("index");
        assertThat(free.get(1).fields()).containsEntry("index", "secret");
        assertThat(delivered("/services/collector/raw", "x", FREE).get(0).fields()).isEmpty();
        assertThat(indexes(delivered("/services/collector/event", "{\"event\":\"a\",\"index\":\"secret\"}", DEFAULTED)))
                .containsExactly("secret");
    }

    @Test
    void anUnknownTokenIsStillRefusedBeforeAnyIndexRule() throws Exception {
        Support.Reply r = post("/services/collector/event", "{\"event\":\"a\"}", "Authorization: Splunk tok-restricte");
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.body()).isEqualTo("{\"text\":\"Invalid token\",\"code\":4}");
    }

    @Test
    void withIndexesSetATokenWithoutItsOwnListIsHeldToIt() throws Exception {
        int p = PipelineHarness.freePort();
        PipelineHarness pipe = Support.receiver(p, "tokidx2", Map.of("Tokens", List.of("a", "b"),
                "Indexes", List.of("main", "web"), "TokenIndexes", Map.of("a", List.of("web"))));
        try {
            byte[] main = "{\"event\":\"x\",\"index\":\"main\"}".getBytes(StandardCharsets.UTF_8);
            byte[] other = "{\"event\":\"x\",\"index\":\"other\"}".getBytes(StandardCharsets.UTF_8);
            String refused = "{\"text\":\"Incorrect index\",\"code\":7,\"invalid-event-number\":0}";
            assertThat(Support.exchange(p, Support.post("/services/collector/event", main, "Authorization: Splunk a"))
                    .body()).isEqualTo(refused);
            assertThat(Support.exchange(p, Support.post("/services/collector/event", main, "Authorization: Splunk b"))
                    .body()).isEqualTo(SUCCESS);
            assertThat(Support.exchange(p, Support.post("/services/collector/event", other, "Authorization: Splunk b"))
                    .body()).isEqualTo(refused);
            assertThat(pipe.captured("tokidx2")).extracting(e -> e.fields().get("index")).containsExactly("main");
        } finally {
            pipe.close();
        }
    }
}
