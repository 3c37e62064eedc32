package io.sluice.kafka.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import org.junit.jupiter.api.Test;

class TopicTemplateTest {
    private static Message message(String stream) {
        Batch b = new BatchPool(4).acquire();
        Message m = b.add();
        m.setStream(Streams.id(stream));
        return m;
    }

    @Test
    void streamOnlyTemplatesRenderOncePerStream() {
        TopicTemplate t = TopicTemplate.compile("logs-{stream}");
        assertThat(t.perStream()).isTrue();
        assertThat(t.forStream(Streams.id("web"))).isEqualTo("logs-web");
    }

    @Test
    void metadataAndTagReferences() {
        TopicTemplate t = TopicTemplate.compile("{tenant}.{tag}.{stream}");
        assertThat(t.perStream()).isFalse();
        TopicTemplate.Cache cache = new TopicTemplate.Cache();
        Message m = message("app");
        m.setTag("nginx");
        m.metadata().setString("tenant", "acme");
        String first = t.render(m, cache);
        assertThat(first).isEqualTo("acme.nginx.app");
        // The same rendered name comes back as the same String: no allocation per event.
        assertThat(t.render(m, cache)).isSameAs(first);
        m.metadata().setString("tenant", "initech");
        assertThat(t.render(m, cache)).isEqualTo("initech.nginx.app");
    }

    @Test
    void missingFieldsRenderEmptyAndAnAllEmptyNameIsNull() {
        TopicTemplate t = TopicTemplate.compile("{tenant}");
        assertThat(t.render(message("x"), new TopicTemplate.Cache())).isNull();
        assertThat(TopicTemplate.compile("a-{tenant}").render(message("x"), new TopicTemplate.Cache())).isEqualTo("a-");
    }
}
