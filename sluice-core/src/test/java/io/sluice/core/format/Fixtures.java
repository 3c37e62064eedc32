package io.sluice.core.format;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Modulator;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Builds modulators from settings (validated like a config file) and scratch messages: what every formatter and
 * filter test starts from.
 */
public final class Fixtures {
    private Fixtures() {
    }

    public static Modulator mod(String type, Map<String, Object> settings) {
        PluginConfig c = PluginConfig.of(type, type, settings);
        return (Modulator) c.spec().create(c);
    }

    public static Message message(String payload) {
        Message m = new BatchPool(1).acquire().add();
        m.setPayload(payload);
        return m;
    }

    public static Message message(byte[] payload) {
        Message m = new BatchPool(1).acquire().add();
        m.setPayload(payload);
        return m;
    }

    /** A message with {@code payload} on stream {@code stream}. */
    public static Message on(String stream, String payload) {
        Message m = message(payload);
        m.setStream(Streams.id(stream));
        return m;
    }

    /** The payload after {@code type} with {@code settings} formatted a message of {@code payload}. */
    public static String format(String type, Map<String, Object> settings, String payload) {
        Message m = message(payload);
        mod(type, settings).modulate(m);
        return m.payloadString();
    }

    public static byte[] bytes(Message m) {
        return java.util.Arrays.copyOf(m.payload(), m.length());
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
