package io.sluice.otlp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.sluice.core.message.Batch;
import io.sluice.otlp.TestMessages;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** Once its buffers have grown, encoding a batch allocates nothing per message (the hot path of producer.OTLP). */
class EncoderAllocationTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void encodingAWarmBatchAllocatesNothingPerMessage() {
        Batch b = batch(2000);
        LogsEncoder logs = new LogsEncoder();
        MetricsEncoder metrics = new MetricsEncoder();
        for (int i = 0; i < 20; i++) { // warm: buffers grow, the JIT compiles
            logs.encode(b, 0, b.size(), 5);
            metrics.encode(b, 0, b.size(), 5);
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 10; i++) {
            logs.encode(b, 0, b.size(), 5);
            metrics.encode(b, 0, b.size(), 5);
        }
        long perRound = (THREADS.getCurrentThreadAllocatedBytes() - before) / 10;
        // 2000 messages: even one small object per message would be 32 KB a round.
        assertThat(perRound).isLessThan(2_000);
    }

    private static Batch batch(int n) {
        TestMessages t = new TestMessages(n);
        for (int i = 0; i < n; i++) {
            if (i % 2 == 0) {
                t.add("log line " + i, i + 1).log().str("resource.service.name", "svc" + (i % 7)).str("scope.name", "s")
                        .num("otlp.severity_number", "9").str("otlp.trace_id", "000102030405060708090a0b0c0d0e0f")
                        .str("user", "u" + i).num("n", Integer.toString(i)).num("d", "0.5").bool("b", true)
                        .json("a", "[1,\"x\",{\"k\":\"v\"}]").json("bytes", "{\"bytesValue\":\"AAE=\"}");
            } else if (i % 3 == 0) {
                t.add("latency", i + 1).metric().str("resource.service.name", "svc" + (i % 7))
                        .str("otlp.metric.type", "histogram").num("otlp.metric.temporality", "2").str("route", "/r" + (i % 5))
                        .json("otlp.histogram", "{\"count\":3,\"sum\":1.5,\"bucketCounts\":[1,2],\"explicitBounds\":[1.0]}")
                        .json("otlp.exemplars", "[{\"timeUnixNano\":\"5\",\"asDouble\":1.25,\"filteredAttributes\":{\"a\":1}}]");
            } else {
                t.add("forward line " + i, i + 1).str("host", "h").tag("app.tag");
            }
        }
        return t.batch();
    }
}
