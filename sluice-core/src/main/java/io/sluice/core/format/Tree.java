package io.sluice.core.format;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonWriter;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;

/**
 * Gollum's {@code ForceTargetAsMetadata}: the fields a formatter sets go into the message's metadata when the
 * target is empty, or into the nested object stored in the target field otherwise (created, or replacing a
 * value that is not an object). The nested case works on a scratch copy that {@link #close} writes back.
 */
final class Tree {
    private static final byte[][] NONE = new byte[0][];
    private final Metadata nested = new Metadata();
    private final JsonScanner scanner = new JsonScanner();
    private final JsonFields fields = new JsonFields();
    private final JsonWriter writer = new JsonWriter();

    /** The metadata to set fields in. */
    Metadata open(Message m, Slot target) {
        if (target.isPayload()) {
            return m.metadata();
        }
        nested.clear();
        int i = target.index(m);
        if (i >= 0 && m.metadata().kind(i) == Metadata.JSON) {
            Metadata md = m.metadata();
            MetadataJson.load(nested, md.arena(), md.valueOffset(i), md.valueLength(i), scanner, fields);
        }
        return nested;
    }

    /** Stores the nested object back into the target field (nothing to do for the root). */
    void close(Message m, Slot target) {
        if (target.isPayload()) {
            return;
        }
        writer.reset();
        MetadataJson.write(nested, writer, NONE);
        target.write(m, writer.buffer(), 0, writer.length(), Metadata.JSON);
    }
}
