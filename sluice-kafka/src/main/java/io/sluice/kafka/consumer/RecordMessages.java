package io.sluice.kafka.consumer;

import io.sluice.core.json.Decimal;
import io.sluice.core.message.Clock;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Modulator;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * One Kafka record into one message, on the poll thread: the value is the payload, the record time the message
 * time; with {@code SetMetadata} the topic, key, partition, offset and headers become metadata fields; with
 * {@code PayloadFormat: json} format.JSON parses the value into metadata. Reuses its buffers from record to record.
 */
final class RecordMessages {
    private static final byte[] F_TOPIC = bytes("topic");
    private static final byte[] F_KEY = bytes("key");
    private static final byte[] F_PARTITION = bytes("partition");
    private static final byte[] F_OFFSET = bytes("offset");

    private final boolean setMetadata;
    /** format.JSON, found through the registry (PayloadFormat json), or null. */
    private final Modulator json;
    private final int fallbackStream;
    private final byte[] digits = new byte[Decimal.MAX_LONG];
    private final Map<String, byte[]> headerKeys = new HashMap<>();
    private byte[] keyBuf = new byte[64];

    RecordMessages(boolean setMetadata, Modulator json, int fallbackStream) {
        this.setMetadata = setMetadata;
        this.json = json;
        this.fallbackStream = fallbackStream;
    }

    /** One record into one message: copies the value; metadata only when asked for. */
    void fill(Message m, ConsumerRecord<ByteBuffer, ByteBuffer> r, OffsetTracker.Partition part) {
        ByteBuffer v = r.value();
        if (v != null) {
            int len = v.remaining();
            byte[] dst = m.ensureCapacity(len, false);
            v.get(v.position(), dst, 0, len);
            m.setLength(len);
        }
        long ts = r.timestamp();
        m.setTimestamp(ts >= 0 ? ts * 1_000_000L : Clock.epochNanos());
        if (setMetadata) {
            Metadata md = m.metadata();
            for (Header h : r.headers()) {
                byte[] hv = h.value();
                byte[] k = headerKeys.computeIfAbsent(h.key(), RecordMessages::bytes);
                if (hv != null) {
                    md.set(k, 0, k.length, hv, 0, hv.length, Metadata.STRING);
                }
            }
            md.set(F_TOPIC, 0, F_TOPIC.length, part.topicBytes, 0, part.topicBytes.length, Metadata.STRING);
            ByteBuffer key = r.key();
            if (key != null) {
                int kl = key.remaining();
                md.set(F_KEY, 0, F_KEY.length, copyKey(key, kl), 0, kl, Metadata.STRING);
            }
            md.set(F_PARTITION, 0, F_PARTITION.length, part.partitionDigits, 0, part.partitionDigits.length, Metadata.NUMBER);
            int n = Decimal.putLong(digits, 0, r.offset());
            md.set(F_OFFSET, 0, F_OFFSET.length, digits, 0, n, Metadata.NUMBER);
        }
        if (json != null && json.modulate(m) != Modulator.Result.CONTINUE) {
            // Not a JSON object: format.JSON set json_error; the message goes on, to the fallback stream.
            m.setStream(fallbackStream);
        }
    }

    /** Copies a key into a reused buffer (the metadata arena copies it again, so it need not be exact). */
    private byte[] copyKey(ByteBuffer key, int len) {
        if (keyBuf.length < len) {
            keyBuf = new byte[Math.max(len, keyBuf.length * 2)];
        }
        key.get(key.position(), keyBuf, 0, len);
        return keyBuf;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
