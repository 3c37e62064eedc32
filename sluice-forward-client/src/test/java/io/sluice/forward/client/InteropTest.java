package io.sluice.forward.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.forward.testutil.CollectingSink;
import io.sluice.forward.testutil.TestForwardServer;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fluentd.logger.FluentLogger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.komamitsu.fluency.EventTime;
import org.komamitsu.fluency.Fluency;
import org.komamitsu.fluency.fluentd.FluencyBuilderForFluentd;

/**
 * Independent encoders (fluency, fluent-logger-java) send to a server built on this module's
 * decoder: every event must come out as sent.
 */
@Timeout(60)
class InteropTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private TestForwardServer server;

    @BeforeEach
    void start() throws IOException {
        server = new TestForwardServer();
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    private static Map<String, Object> record(int i) {
        Map<String, Object> m = new HashMap<>();
        m.put("id", i);
        m.put("message", "hello from peer " + i);
        m.put("ratio", i / 4.0);
        m.put("ok", i % 2 == 0);
        m.put("nested", Map.of("list", List.of(1, "two")));
        return m;
    }

    private static void assertRecord(CollectingSink.Event e) {
        long id = (Long) e.record().get("id");
        assertThat(e.record()).containsEntry("message", "hello from peer " + id)
                .containsEntry("ratio", id / 4.0)
                .containsEntry("ok", id % 2 == 0)
                .containsEntry("nested", Map.of("list", List.of(1L, "two")));
    }

    private Fluency fluency(boolean ack) {
        FluencyBuilderForFluentd b = new FluencyBuilderForFluentd();
        b.setAckResponseMode(ack);
        b.setFlushAttemptIntervalMillis(50);
        b.setBufferChunkInitialSize(4096);
        b.setBufferChunkRetentionSize(8192);
        b.setWaitUntilBufferFlushed(10);
        b.setWaitUntilFlusherTerminated(10);
        return b.build("127.0.0.1", server.port());
    }

    @Test
    void fluencyWithAcks() throws Exception {
        try (Fluency fluency = fluency(true)) {
            for (int i = 0; i < 500; i++) {
                fluency.emit("fluency.ack." + (i % 2), EventTime.fromEpoch(1_700_000_000L + i, i), record(i));
            }
            server.awaitEvents(500, WAIT);
        }
        assertThat(server.events()).hasSize(500).allSatisfy(InteropTest::assertRecord);
        CollectingSink.Event e = server.events().stream().filter(x -> x.record().get("id").equals(7L))
                .findFirst().orElseThrow();
        assertThat(e.tag()).isEqualTo("fluency.ack.1");
        assertThat(e.seconds()).isEqualTo(1_700_000_007L);
        assertThat(e.nanos()).isEqualTo(7);
        assertThat(server.chunks()).isNotEmpty().doesNotHaveDuplicates();
    }

    @Test
    void fluencyWithoutAcksAndIntegerTimes() throws Exception {
        try (Fluency fluency = fluency(false)) {
            for (int i = 0; i < 300; i++) {
                fluency.emit("fluency.plain", 1_600_000_000L + i, record(i));
            }
            server.awaitEvents(300, WAIT);
        }
        assertThat(server.events()).hasSize(300).allSatisfy(InteropTest::assertRecord)
                .allSatisfy(e -> assertThat(e.seconds() - 1_600_000_000L).isEqualTo(e.record().get("id")));
    }

    @Test
    void fluentLoggerJava() throws Exception {
        FluentLogger logger = FluentLogger.getLogger("", "127.0.0.1", server.port());
        try {
            for (int i = 0; i < 200; i++) {
                assertThat(logger.log("legacy.tag", record(i), 1_500_000_000L + i)).isTrue();
            }
            logger.flush();
            server.awaitEvents(200, WAIT);
        } finally {
            logger.close();
        }
        assertThat(server.events()).hasSize(200).allSatisfy(InteropTest::assertRecord)
                .allSatisfy(e -> {
                    assertThat(e.tag()).isEqualTo("legacy.tag");
                    assertThat(e.seconds() - 1_500_000_000L).isEqualTo(e.record().get("id"));
                });
    }
}
