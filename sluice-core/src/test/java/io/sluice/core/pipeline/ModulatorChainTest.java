package io.sluice.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModulatorChainTest {
    /**
     * format.ProcessJSON leaves its payload pending on formatter state the thread reuses: the chain must write
     * it before the batch leaves, even for the batch's last message, which no later ProcessJSON call flushes.
     */
    @Test
    void pendingPayloadsAreWrittenBeforeTheBatchLeavesTheChain() throws Exception {
        ModulatorChain chain = new ModulatorChain(List.of(PluginConfig.of("format.ProcessJSON", "format.ProcessJSON",
                Map.of("Directives", List.of("a:rename:b")))), 0);
        Batch batch = new BatchPool(3).acquire();
        for (int i = 0; i < 3; i++) {
            batch.add().setPayload("{\"a\":" + i + "}");
        }
        chain.apply(batch, null, new PluginStats("chain", "test"));
        assertThat(batch.size()).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(batch.get(i).pending()).as("message %d", i).isNull();
            assertThat(batch.get(i).payloadString()).isEqualTo("{\"b\":" + i + "}");
        }
    }
}
