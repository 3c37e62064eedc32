package io.sluice.kafka.producer;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Which topic a message goes to: the template of {@code Topics[stream]}, else {@code Topics["*"]}, else
 * {@code Topic}. The template of each stream, and the topic itself when it depends on the stream only, is found
 * once and kept in arrays grown copy-on-write, read without a lock by every delivering thread.
 */
final class StreamTopics {
    private final Map<String, TopicTemplate> topicMap = new HashMap<>();
    private final TopicTemplate defaultTopic;
    /** Per-stream template and rendered topic; grown copy-on-write, read without a lock. */
    private volatile TopicTemplate[] templates = new TopicTemplate[0];
    private volatile String[] streamTopics = new String[0];

    StreamTopics(PluginConfig config) {
        try {
            for (Map.Entry<String, String> e : config.get(KafkaProducer.TOPICS).entrySet()) {
                topicMap.put(e.getKey(), TopicTemplate.compile(e.getValue()));
            }
        } catch (IllegalArgumentException e) {
            throw config.error(KafkaProducer.TOPICS, e.getMessage());
        }
        String topic = config.get(KafkaProducer.TOPIC);
        try {
            this.defaultTopic = TopicTemplate.compile(topic.isEmpty() ? "{stream}" : topic);
        } catch (IllegalArgumentException e) {
            throw config.error(KafkaProducer.TOPIC, e.getMessage());
        }
    }

    /** The topic of message {@code m}, or null when its template rendered empty. */
    String topicOf(Message m, TopicTemplate.Cache cache) {
        int stream = m.stream();
        String[] fixed = streamTopics;
        if (stream < fixed.length && fixed[stream] != null) {
            return fixed[stream];
        }
        TopicTemplate[] t = templates;
        TopicTemplate tpl = stream < t.length ? t[stream] : null;
        if (tpl == null) {
            tpl = resolve(stream);
            if (tpl.perStream()) {
                return streamTopics[stream];
            }
        }
        return tpl.render(m, cache);
    }

    /** The template of a stream: Topics[stream], else Topics["*"], else Topic; cached copy-on-write. */
    private synchronized TopicTemplate resolve(int stream) {
        TopicTemplate tpl = topicMap.get(Streams.name(stream));
        if (tpl == null) {
            tpl = topicMap.getOrDefault("*", defaultTopic);
        }
        int size = Math.max(stream + 1, Streams.count());
        TopicTemplate[] t = Arrays.copyOf(templates, Math.max(size, templates.length));
        t[stream] = tpl;
        if (tpl.perStream()) {
            String[] s = Arrays.copyOf(streamTopics, Math.max(size, streamTopics.length));
            s[stream] = tpl.forStream(stream);
            streamTopics = s;
        }
        templates = t;
        return tpl;
    }
}
