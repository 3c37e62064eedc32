package io.sluice.hec.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Once warm, parsing allocates nothing per event: without index rules, and with a token's default and list. */
class ParserAllocationTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int EVENTS = 2000;

    private final EventParser parser = new EventParser(512, true);
    private final BatchPool pool = new BatchPool();
    private final BatchCollector out = new BatchCollector(pool::acquire);

    private static byte[] body() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < EVENTS; i++) {
            b.append("{\"event\":\"line ").append(i).append('"')
                    .append(i % 2 == 0 ? ",\"index\":\"main\"" : "").append(",\"host\":\"h\"}");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Bytes allocated per parse of the body, after warming up (and checking what the parse made). */
    private long perRound(byte[] body, EventParser.Defaults dflt, byte[][] indexes) {
        for (int i = 0; i < 30; i++) {
            assertThat(parser.parseEvents(body, 0, body.length, out, dflt, indexes, 1L)).isTrue();
            assertThat(out.count()).isEqualTo(EVENTS);
            Batch first = out.batches().get(0);
            assertThat(first.get(1).metadata().getString("index")).isEqualTo(dflt == null ? null : "web");
            out.releaseAll();
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 10; i++) {
            parser.parseEvents(body, 0, body.length, out, dflt, indexes, 1L);
            out.releaseAll();
        }
        return (THREADS.getCurrentThreadAllocatedBytes() - before) / 10;
    }

    @Test
    void parsingAllocatesNothingPerEventWithOrWithoutATokensIndexRules() {
        byte[] body = body();
        TokenIndexes rules = TokenIndexes.of(List.of("t"), Map.of(), Map.of("t", List.of("web", "main")), null)[0];
        // 2000 events: even one small object per event would be 32 KB a round.
        assertThat(perRound(body, null, null)).isLessThan(2_000);
        assertThat(perRound(body, rules.defaults, rules.allowed)).isLessThan(2_000);
    }
}
