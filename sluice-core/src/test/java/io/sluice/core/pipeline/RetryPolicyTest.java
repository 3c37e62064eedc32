package io.sluice.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.PluginConfig;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    @Test
    void countsRetriesAfterTheFirstAttempt() {
        RetryPolicy three = new RetryPolicy(3, 100, 1000);
        assertThat(three.retries(0)).isTrue();
        assertThat(three.retries(2)).isTrue();
        assertThat(three.retries(3)).isFalse();
        assertThat(new RetryPolicy(0, 100, 1000).retries(0)).isFalse();
        RetryPolicy forever = new RetryPolicy(-1, 100, 1000);
        assertThat(forever.maxRetries()).isEqualTo(RetryPolicy.FOREVER);
        assertThat(forever.retries(1_000_000)).isTrue();
    }

    @Test
    void backsOffExponentiallyWithJitterUpToTheCap() {
        RetryPolicy p = new RetryPolicy(-1, 100, 1000);
        for (int i = 0; i < 200; i++) {
            assertThat(p.backoffMillis(0)).isBetween(50L, 100L);
            assertThat(p.backoffMillis(2)).isBetween(200L, 400L);
            assertThat(p.backoffMillis(10)).isBetween(500L, 1000L);
            assertThat(p.backoffMillis(Integer.MAX_VALUE)).isBetween(500L, 1000L);
        }
        assertThat(new RetryPolicy(-1, 0, 0).backoffMillis(0)).as("at least 1 ms").isBetween(0L, 1L);
    }

    @Test
    void waitsAtLeastWhatTheServerAskedFor() {
        RetryPolicy p = new RetryPolicy(-1, 100, 1000);
        assertThat(p.delayMillis(0, new RetryLaterException("busy", 5000))).isEqualTo(5000);
        assertThat(p.delayMillis(0, new RetryLaterException("busy", 10))).isBetween(50L, 100L);
        assertThat(p.delayMillis(0, new IOException("reset"))).isBetween(50L, 100L);
    }

    @Test
    void readsTheRetryGroup() {
        RetryPolicy p = RetryPolicy.of(PluginConfig.of("p", "producer.Null",
                Map.of("Retry/Max", 2, "Retry/BackoffMs", "1s", "Retry/MaxBackoffMs", 4000)));
        assertThat(p.maxRetries()).isEqualTo(2);
        assertThat(p.backoffMillis(0)).isBetween(500L, 1000L);
        assertThat(p.backoffMillis(5)).isBetween(2000L, 4000L);
    }
}
