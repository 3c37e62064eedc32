package io.sluice.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a {@code sluice test} case feeds the pipeline: messages given to a consumer's modulators (then routed as
 * the config routes) or put on a stream (its router's modulators, then its producers).
 *
 * @param consumer the consumer the messages enter at, or null when they enter at {@code stream}
 * @param stream the stream the messages enter at, or null
 * @param messages the messages, in order
 */
record TestInput(String consumer, String stream, List<Message> messages) {

    /**
     * One message.
     *
     * @param payload its payload
     * @param metadata its metadata fields, as text
     * @param stream the stream it is published to instead of the consumer's, or null
     */
    record Message(String payload, Map<String, String> metadata, String stream) {
    }

    /** An {@code Input} mapping: {@code Consumer} or {@code Stream}, and {@code Messages}. */
    static TestInput parse(TestFileNode n) {
        n.only("Consumer", "Stream", "Messages");
        if (n.has("Consumer") == n.has("Stream")) {
            throw n.error("name either Consumer (the messages go through its modulators) or Stream (its router's)");
        }
        List<Message> messages = new ArrayList<>();
        List<Object> items = n.items("Messages");
        for (int i = 0; i < items.size(); i++) {
            messages.add(message(items.get(i), n.where() + ", Messages[" + i + "]"));
        }
        if (messages.isEmpty()) {
            throw n.error("Messages: give at least one message");
        }
        return new TestInput(n.string("Consumer"), n.string("Stream"), List.copyOf(messages));
    }

    /** A message: its payload alone, or a mapping of Payload, Metadata and Stream. */
    private static Message message(Object raw, String where) {
        if (raw instanceof String payload) {
            return new Message(payload, Map.of(), null);
        }
        TestFileNode m = TestFileNode.of(raw, where).only("Payload", "Metadata", "Stream");
        String payload = m.string("Payload");
        Map<String, String> metadata = new LinkedHashMap<>(m.strings("Metadata"));
        metadata.replaceAll((k, v) -> v == null ? "" : v);
        return new Message(payload == null ? "" : payload, metadata, m.string("Stream"));
    }
}
