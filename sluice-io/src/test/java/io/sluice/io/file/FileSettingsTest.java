package io.sluice.io.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** consumer.File's and producer.File's choices, durations and sizes, checked where they are declared. */
class FileSettingsTest {
    private static PluginConfig config(String type, String extra) {
        String partner = type.startsWith("consumer.") ? "Q:\n  Type: producer.Null\n  Streams: s\n"
                : "Q:\n  Type: consumer.Profiler\n  Streams: s\n";
        return new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of()).loadString(
                "P:\n  Type: " + type + "\n  Streams: s\n" + extra + partner, "t.yaml").stream()
                .filter(c -> c.id().equals("P")).findFirst().orElseThrow();
    }

    @Test
    void consumerChoicesAndUnits() {
        PluginConfig c = config("consumer.File", "  File: /x.log\n  DefaultOffset: OLDEST\n  ObserveMode: Watch\n"
                + "  PollingDelayMs: 1s\n  RetryDelaySec: 2m\n  MaxLineSize: 2KiB\n  RotateWaitMs: 250\n");
        assertThat(c.get(FileConsumer.DEFAULT_OFFSET)).isEqualTo("oldest");
        assertThat(c.get(FileConsumer.OBSERVE_MODE)).isEqualTo("watch");
        assertThat(c.get(FileConsumer.POLLING_DELAY_MS)).isEqualTo(1000);
        assertThat(c.get(FileConsumer.RETRY_DELAY_SEC)).isEqualTo(120);
        assertThat(c.get(FileConsumer.MAX_LINE_SIZE)).isEqualTo(2048);
        assertThat(c.get(FileConsumer.ROTATE_WAIT_MS)).isEqualTo(250);
        new FileConsumer(c);
        assertThatThrownBy(() -> config("consumer.File", "  File: /x.log\n  DefaultOffset: newset\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("DefaultOffset").hasMessageContaining("newest");
        assertThatThrownBy(() -> config("consumer.File", "  File: /x.log\n  MaxLineSize: 0\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("MaxLineSize");
    }

    @Test
    void producerChoicesAndUnits() {
        PluginConfig c = config("producer.File", "  File: /tmp/x.log\n  Fsync: INTERVAL\n  FlushIntervalMs: 2s\n"
                + "  Batch/TimeoutSec: 7\n");
        assertThat(c.get(FileProducer.FSYNC)).isEqualTo(FileProducer.Fsync.INTERVAL);
        assertThat(c.get(FileProducer.FLUSH_INTERVAL_MS)).isEqualTo(2000);
        assertThat(c.get(FileProducer.BATCH_TIMEOUT_SEC)).isEqualTo(7);
        new FileProducer(c);
        assertThatThrownBy(() -> config("producer.File", "  File: /tmp/x.log\n  Fsync: allways\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("never, rotate, interval");
        assertThatThrownBy(() -> config("producer.File", "  File: /tmp/x.log\n  BufferSizeKB: 2\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("BufferSizeKB");
        assertThatThrownBy(() -> new FileProducer(config("producer.File", "  File: /tmp/x.log\n  Rotation/At: 25:00\n")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("expected hh:mm");
    }
}
