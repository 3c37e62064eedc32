package io.sluice.core.format;

import io.sluice.core.json.JsonWriter;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;

/**
 * A JSON object payload held as a formatter's fields until something reads the payload (see
 * {@link Message.Pending}). format.ProcessJSON leaves its result this way; format.ExtractJSON, when it comes
 * next, takes its one field from {@link #fields()}, and the object is never written. Anything else that
 * reads the payload gets it written first, byte for byte as the formatter would have written it.
 *
 * <p>One per formatter instance (and so per thread): {@link #defer} writes the previous message's payload if
 * it is still pending, since the fields are about to be reused.
 */
final class PendingObject implements Message.Pending {
    private static final byte[][] NONE = new byte[0][];

    private final Metadata fields;
    private final JsonWriter writer;
    /** The message last deferred, while it may still hold this pending payload. */
    private Message holder;

    PendingObject(Metadata fields, JsonWriter writer) {
        this.fields = fields;
        this.writer = writer;
    }

    /** The fields the object will be written from. Read them; do not change them. */
    Metadata fields() {
        return fields;
    }

    /** Writes the payload of the message deferred last, if it is still pending: call before reusing the fields. */
    void flush() {
        Message m = holder;
        holder = null;
        if (m != null && m.pending() == this) {
            m.writePending();
        }
    }

    /** Makes the fields {@code m}'s pending payload; the previous holder must have been flushed. */
    void defer(Message m) {
        m.setPending(this);
        holder = m;
    }

    @Override
    public void writeTo(Message m) {
        if (m == holder) {
            holder = null;
        }
        // Record the members while writing: a JSON formatter after this one then needs no scan.
        writer.reset();
        MetadataJson.write(fields, writer, NONE, m.jsonIndexStorage());
        m.setPayload(writer.buffer(), 0, writer.length());
        m.commitJsonIndex();
    }
}
