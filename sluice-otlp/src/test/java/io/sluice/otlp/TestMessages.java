package io.sluice.otlp;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;

/** Builds messages as consumer.OTLP writes them (by OtlpFields), for the encoder and producer tests. */
public final class TestMessages {
    private final Batch batch;

    public TestMessages(int capacity) {
        batch = new BatchPool(capacity).acquire();
    }

    public Batch batch() {
        return batch;
    }

    /** A new message with this payload and timestamp. */
    public Builder add(String payload, long timestamp) {
        Message m = batch.add();
        m.setPayload(payload);
        m.setTimestamp(timestamp);
        return new Builder(m);
    }

    /** Sets fields on one message. */
    public static final class Builder {
        private final Message m;

        Builder(Message m) {
            this.m = m;
        }

        public Message message() {
            return m;
        }

        private Builder set(String key, String value, byte kind) {
            m.metadata().set(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8), kind);
            return this;
        }

        public Builder str(String key, String value) {
            return set(key, value, Metadata.STRING);
        }

        public Builder num(String key, String text) {
            return set(key, text, Metadata.NUMBER);
        }

        public Builder bool(String key, boolean v) {
            return set(key, Boolean.toString(v), Metadata.BOOLEAN);
        }

        public Builder nul(String key) {
            return set(key, "null", Metadata.NULL);
        }

        public Builder json(String key, String text) {
            return set(key, text, Metadata.JSON);
        }

        public Builder tag(String tag) {
            m.setTag(tag);
            return this;
        }

        /** otlp.signal log. */
        public Builder log() {
            return str("otlp.signal", "log");
        }

        /** otlp.signal metric. */
        public Builder metric() {
            return str("otlp.signal", "metric");
        }
    }
}
