package io.sluice.core.testing;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.Streams;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One delivered or published message, copied out of its reused batch: what a test asserts on.
 *
 * @param tag the message's tag (Forward's tag), or null
 * @param stream the name of the stream it was on
 * @param timestamp its time, in nanoseconds since the epoch
 * @param payload its payload as UTF-8 text
 * @param fields its metadata, key to value as text, in the message's order
 * @param kinds its metadata, key to kind ({@link Metadata#STRING} and the others)
 */
public record Captured(String tag, String stream, long timestamp, String payload, Map<String, String> fields,
                       Map<String, Byte> kinds) {

    /** A copy of {@code m}; a message without metadata gets empty maps. */
    public static Captured of(Message m) {
        Map<String, String> fields = Map.of();
        Map<String, Byte> kinds = Map.of();
        if (m.hasMetadata()) {
            Metadata md = m.metadata();
            fields = new LinkedHashMap<>();
            kinds = new LinkedHashMap<>();
            for (int i = 0; i < md.size(); i++) {
                fields.put(md.key(i), md.value(i));
                kinds.put(md.key(i), md.kind(i));
            }
        }
        return new Captured(m.tag(), Streams.name(m.stream()), m.timestamp(), m.payloadString(), fields, kinds);
    }
}
