package io.sluice.core.format;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Builds modulators from settings (validated like a config file) and scratch messages. */
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

    public static byte[] bytes(Message m) {
        return java.util.Arrays.copyOf(m.payload(), m.length());
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
