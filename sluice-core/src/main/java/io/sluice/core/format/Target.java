package io.sluice.core.format;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;

/**
 * What a formatter works on: the payload, or with {@code ApplyTo} a metadata field. Editing a field goes
 * through one scratch buffer per formatter instance (one per routine), so it allocates nothing per message.
 */
final class Target {
    private final byte[] key;
    private byte[] scratch = new byte[256];

    Target(String applyTo) {
        this.key = applyTo.isEmpty() ? null : applyTo.getBytes(StandardCharsets.UTF_8);
    }

    boolean isPayload() {
        return key == null;
    }

    /** Sets the field to prefix + old value + postfix (the field is created if missing). */
    void wrap(Message m, byte[] prefix, byte[] postfix) {
        Metadata md = m.metadata();
        int i = md.indexOf(key);
        int oldLen = i < 0 ? 0 : md.valueLength(i);
        int len = prefix.length + oldLen + postfix.length;
        if (scratch.length < len) {
            scratch = new byte[Math.max(len, scratch.length * 2)];
        }
        System.arraycopy(prefix, 0, scratch, 0, prefix.length);
        if (i >= 0) {
            System.arraycopy(md.arena(), md.valueOffset(i), scratch, prefix.length, oldLen);
        }
        System.arraycopy(postfix, 0, scratch, prefix.length + oldLen, postfix.length);
        md.set(key, 0, key.length, scratch, 0, len, Metadata.STRING);
    }
}
