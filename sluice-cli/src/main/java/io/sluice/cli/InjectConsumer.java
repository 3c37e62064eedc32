package io.sluice.cli;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Clock;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import java.util.List;

/**
 * What {@code sluice test} puts in place of a consumer: it opens nothing, publishes the case's messages for it
 * (through the consumer's own modulators and streams, since it runs with the consumer's settings), then ends;
 * once every input ended, the pipeline drains and stops as it does after a generator's last message.
 */
final class InjectConsumer extends Consumer {
    private final List<TestInput.Message> messages;

    InjectConsumer(PluginConfig config, List<TestInput.Message> messages) {
        super(config);
        this.messages = messages;
    }

    /** A consumer type publishing {@code messages} as they are, for an input that enters at a stream. */
    static PluginSpec spec(List<TestInput.Message> messages) {
        return PluginSpec.builder(PluginKind.CONSUMER, "test.Input", "Publishes a sluice test's messages.")
                .factory(c -> new InjectConsumer(c, messages));
    }

    @Override
    public void consume(ConsumerContext ctx) throws InterruptedException {
        Batch b = null;
        for (TestInput.Message in : messages) {
            if (b == null) {
                b = ctx.newBatch();
            }
            Message m = b.add();
            m.setPayload(in.payload());
            m.setTimestamp(Clock.epochNanos());
            in.metadata().forEach(m.metadata()::setString);
            if (in.stream() != null) {
                m.setStream(Streams.id(in.stream()));
            }
            if (b.isFull()) {
                ctx.publish(b);
                b = null;
            }
        }
        if (b != null) {
            ctx.publish(b);
        }
    }

    @Override
    public boolean endsPipeline() {
        return true;
    }
}
