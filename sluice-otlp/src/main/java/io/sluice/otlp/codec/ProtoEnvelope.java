package io.sluice.otlp.codec;

import io.sluice.core.json.JsonWriter;
import io.sluice.core.message.Metadata;

/**
 * The part of an OTLP export request that logs and metrics share: repeated {@code Resource*} (field 1 of the
 * request), each a resource (1), repeated {@code Scope*} (2) and a schema URL (3); each scope group a scope (1),
 * its items (2: log records or metrics) and a schema URL (3).
 *
 * <p>A group's schema URL comes after its children on the wire (protobuf writes fields in number order), and every
 * item needs it, so each group is read twice: once for its own fields, skipping the children (a skip is one length
 * read), and once for the children. The resource's and scope's fields are encoded once per group into
 * {@link #prefix}, which the subclass copies into every message with one array copy.
 */
abstract class ProtoEnvelope {
    // What children() decodes a submessage as.
    private static final int RESOURCE_GROUP = 0;
    private static final int SCOPE_GROUP = 1;
    private static final int ITEM = 2;

    final ProtoReader in = new ProtoReader();
    final ProtoValues values;
    /** The signal and the resource's fields. */
    private final FieldBlock resource = new FieldBlock();
    /** {@link #prefix} as metadata, which each item's message starts as a copy of. */
    final Metadata prefixFields = new Metadata();
    /** The signal, the resource's and the scope's fields: what every item of the current scope group starts with. */
    final FieldBlock prefix = new FieldBlock();
    private final byte[] signal;
    /** The resource's entity_refs as a JSON array (rare: a resource's, never a record's, so JSON text is fine). */
    private final JsonWriter entityRefs = new JsonWriter(256);

    ProtoEnvelope(int maxDepth, byte[] signal) {
        this.values = new ProtoValues(in, maxDepth);
        this.signal = signal;
    }

    /**
     * Decodes the request in {@code buf[off, off+len)}, filling one message from {@code sink} per log record or
     * data point.
     *
     * @return the number of records or points decoded
     * @throws OtlpFormatException if the request is malformed; messages already filled hold whole records or points
     */
    public final int decode(byte[] buf, int off, int len, RecordSink sink) throws OtlpFormatException {
        in.reset(buf, off, len);
        return children(1, RESOURCE_GROUP, sink);
    }

    /** Decodes one item (a LogRecord, a Metric) the reader has entered; returns the number of messages made. */
    abstract int item(RecordSink sink) throws OtlpFormatException;

    private int resourceGroup(RecordSink sink) throws OtlpFormatException {
        int start = in.position();
        resource.clear();
        // Reset here, not only where a Resource is read: a group without one must not keep the previous group's.
        entityRefs.reset();
        resource.key(Keys.SIGNAL).string(signal, 0, signal.length);
        groupFields(resource, true, Keys.RESOURCE_SCHEMA_URL, Keys.RESOURCE_DROPPED);
        if (entityRefs.length() > 0) {
            entityRefs.endArray();
            resource.key(Keys.RESOURCE_ENTITY_REFS).json(entityRefs.buffer(), 0, entityRefs.length());
        }
        in.position(start);
        return children(2, SCOPE_GROUP, sink);
    }

    private int scopeGroup(RecordSink sink) throws OtlpFormatException {
        int start = in.position();
        prefix.copyFrom(resource);
        groupFields(prefix, false, Keys.SCOPE_SCHEMA_URL, Keys.SCOPE_DROPPED);
        prefix.copyToOnly(prefixFields);
        in.position(start);
        return children(2, ITEM, sink);
    }

    /**
     * Reads a resource or scope group's own fields into {@code block}: the Resource or InstrumentationScope (1), then
     * the schema URL (3) and the dropped attributes count under their keys; skips the children (2).
     */
    private void groupFields(FieldBlock block, boolean isResource, byte[] urlKey, byte[] droppedKey)
            throws OtlpFormatException {
        long dropped = 0;
        int urlOff = 0;
        int urlLen = 0;
        while (in.hasMore()) {
            int t = in.readTag();
            switch (ProtoReader.field(t)) {
                case 1 -> dropped = isResource ? resourceFields(t) : scopeFields(t);
                case 3 -> {
                    urlOff = values.readString(t);
                    urlLen = values.lastLength;
                }
                default -> in.skip(t);
            }
        }
        if (urlLen > 0) {
            block.key(urlKey).string(in.buffer(), urlOff, urlLen);
        }
        if (dropped != 0) {
            block.key(droppedKey).unsigned(dropped);
        }
    }

    /**
     * Decodes every occurrence of submessage {@code field} of the current message as a resource group, a scope group
     * or an item ({@code level}); returns the number of messages made.
     */
    private int children(int field, int level, RecordSink sink) throws OtlpFormatException {
        int n = 0;
        while (in.hasMore()) {
            int t = in.readTag();
            if (ProtoReader.field(t) == field) {
                int old = in.enterMessage(t);
                n += switch (level) {
                    case RESOURCE_GROUP -> resourceGroup(sink);
                    case SCOPE_GROUP -> scopeGroup(sink);
                    default -> item(sink);
                };
                in.leave(old);
            } else {
                in.skip(t);
            }
        }
        return n;
    }

    /** Reads a Resource into {@link #resource}; returns its dropped_attributes_count (uint32). */
    private long resourceFields(int tag) throws OtlpFormatException {
        int old = in.enterMessage(tag);
        long dropped = 0;
        entityRefs.reset();
        while (in.hasMore()) {
            int t = in.readTag();
            switch (ProtoReader.field(t)) {
                case 1 -> values.attribute(t, resource, Keys.RESOURCE_PREFIX);
                case 2 -> dropped = in.uint32(t);
                case 3 -> entityRef(t);
                default -> in.skip(t);
            }
        }
        in.leave(old);
        return dropped;
    }

    /**
     * Appends one Resource.entity_refs (EntityRef: schema_url 1, type 2, id_keys 3, description_keys 4) to
     * {@link #entityRefs} as {@code {"schemaUrl":…,"type":…,"idKeys":[…],"descriptionKeys":[…]}}, the OTLP JSON
     * spelling OtlpFields names for {@code otlp.resource.entity_refs}.
     */
    private void entityRef(int tag) throws OtlpFormatException {
        if (entityRefs.length() == 0) {
            entityRefs.beginArray();
        }
        int old = in.enterMessage(tag);
        int start = in.position();
        entityRefs.beginObject();
        for (int field = 1; field <= 4; field++) {
            entityRefField(start, field);
        }
        entityRefs.endObject();
        in.leave(old);
    }

    /** Writes every occurrence of string field {@code field} of the EntityRef starting at {@code start}. */
    private void entityRefField(int start, int field) throws OtlpFormatException {
        in.position(start);
        boolean repeated = field >= 3;
        boolean first = true;
        while (in.hasMore()) {
            int t = in.readTag();
            if (ProtoReader.field(t) != field) {
                in.skip(t);
                continue;
            }
            int off = values.readString(t);
            if (first) {
                byte[] name = Keys.J_ENTITY_REF[field - 1];
                entityRefs.name(name, 0, name.length);
                if (repeated) {
                    entityRefs.beginArray();
                }
                first = false;
            } else if (!repeated) {
                continue; // a scalar sent twice: protobuf keeps the last; the first is as good for a reference
            }
            entityRefs.string(in.buffer(), off, values.lastLength);
        }
        if (repeated && !first) {
            entityRefs.endArray();
        }
    }

    /** Reads an InstrumentationScope into {@link #prefix}; returns its dropped_attributes_count. */
    private long scopeFields(int tag) throws OtlpFormatException {
        int old = in.enterMessage(tag);
        long dropped = 0;
        while (in.hasMore()) {
            int t = in.readTag();
            switch (ProtoReader.field(t)) {
                case 1 -> stringField(t, prefix, Keys.SCOPE_NAME);
                case 2 -> stringField(t, prefix, Keys.SCOPE_VERSION);
                case 3 -> values.attribute(t, prefix, Keys.SCOPE_ATTRIBUTE_PREFIX);
                case 4 -> dropped = in.uint32(t);
                default -> in.skip(t);
            }
        }
        in.leave(old);
        return dropped;
    }

    /** Reads a string field into {@code block} under {@code key}, unless it is empty. */
    final void stringField(int tag, FieldBlock block, byte[] key) throws OtlpFormatException {
        int off = values.readString(tag);
        if (values.lastLength > 0) {
            block.key(key).string(in.buffer(), off, values.lastLength);
        }
    }

    /** How many messages one item makes, the reader entered into it (a log record: one; a metric: its points). */
    interface ItemCount {
        int of(ProtoReader item) throws OtlpFormatException;
    }

    /**
     * Counts the messages of a request without decoding them: {@code count} of every item (field 2) in every scope
     * group of every resource group. Checks the framing down to the items, and inside them what {@code count} reads.
     */
    static int countItems(byte[] buf, int off, int len, ItemCount count) throws OtlpFormatException {
        return count(new ProtoReader().reset(buf, off, len), 1, RESOURCE_GROUP, count);
    }

    /** Counts the items in every occurrence of submessage {@code field}, a resource group, scope group or item ({@code level}). */
    private static int count(ProtoReader r, int field, int level, ItemCount count) throws OtlpFormatException {
        int n = 0;
        while (r.hasMore()) {
            int t = r.readTag();
            if (ProtoReader.field(t) != field) {
                r.skip(t);
                continue;
            }
            int old = r.enterMessage(t);
            n += level == ITEM ? count.of(r) : count(r, 2, level + 1, count);
            r.leave(old);
        }
        return n;
    }
}
