package io.sluice.otlp.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonWriter;
import io.sluice.core.message.Metadata;

/**
 * The part of an OTLP/JSON export request that logs and metrics share, read as {@link ProtoEnvelope} reads the
 * protobuf: {@code resourceLogs}/{@code resourceMetrics}, each with {@code resource}, {@code scopeLogs}/...,
 * {@code schemaUrl}; each scope group with {@code scope}, its items and {@code schemaUrl}. The resource's and
 * scope's fields go into {@link #prefix} in the same order the protobuf decoders write them, so both give the same
 * messages. Nesting levels of the scanned document: request 0, groups 1, resource group 2, its members 3, scope
 * group 4, its members 5, an item 6 and below.
 */
abstract class JsonEnvelope {
    static final byte[] RESOURCE = Keys.b("resource");
    static final byte[] SCOPE = Keys.b("scope");
    static final byte[] ATTRIBUTES = Keys.b("attributes");
    static final byte[] DROPPED = Keys.b("droppedAttributesCount");
    static final byte[] DROPPED_SNAKE = Keys.b("dropped_attributes_count");
    static final byte[] SCHEMA_URL = Keys.b("schemaUrl");
    static final byte[] SCHEMA_URL_SNAKE = Keys.b("schema_url");
    // Members of both log records and data points.
    static final byte[] TIME_SNAKE = Keys.b("time_unix_nano");
    static final byte[] FLAGS = Keys.b("flags");
    static final byte[] TRACE_ID_SNAKE = Keys.b("trace_id");
    static final byte[] SPAN_ID_SNAKE = Keys.b("span_id");
    static final byte[] NAME = Keys.b("name");
    static final byte[] VERSION = Keys.b("version");
    /** The level at which items are scanned. */
    static final int ITEM_LEVEL = 6;

    final JsonDoc doc = new JsonDoc();
    final JsonValues values;
    private final FieldBlock resource = new FieldBlock();
    /** {@link #prefix} as metadata, which each item's message starts as a copy of. */
    final Metadata prefixFields = new Metadata();
    /** The signal, the resource's and the scope's fields. */
    final FieldBlock prefix = new FieldBlock();
    private final byte[] signal;
    private final byte[] groups;
    private final byte[] groupsSnake;
    private final byte[] scopes;
    private final byte[] scopesSnake;
    private final byte[] items;
    private final byte[] itemsSnake;

    /** Names: e.g. resourceLogs/resource_logs, scopeLogs/scope_logs, logRecords/log_records. */
    JsonEnvelope(byte[] signal, String groups, String scopes, String items) {
        this.values = new JsonValues(doc);
        this.signal = signal;
        this.groups = Keys.b(groups);
        this.groupsSnake = Keys.b(snake(groups));
        this.scopes = Keys.b(scopes);
        this.scopesSnake = Keys.b(snake(scopes));
        this.items = Keys.b(items);
        this.itemsSnake = Keys.b(snake(items));
    }

    /** The .proto name of a lowerCamelCase JSON name. */
    static String snake(String camel) {
        StringBuilder b = new StringBuilder();
        for (char c : camel.toCharArray()) {
            if (Character.isUpperCase(c)) {
                b.append('_').append(Character.toLowerCase(c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /**
     * Decodes the JSON request in {@code buf[off, off+len)}, filling one message from {@code sink} per log record or
     * data point.
     *
     * @return the number of records or points decoded
     * @throws OtlpFormatException if the request is not valid JSON or not a valid request; messages already filled
     *     hold whole records or points
     */
    public final int decode(byte[] buf, int off, int len, RecordSink sink) throws OtlpFormatException {
        doc.reset(buf, off);
        JsonFields req = doc.object(0, off, len);
        JsonFields list = doc.arrayOrEmpty(req, groups, groupsSnake, 1);
        int n = 0;
        for (int i = 0; i < list.size(); i++) {
            n += resourceGroup(doc.object(list, i, 2), sink);
        }
        return n;
    }

    /** Decodes element {@code i} of {@code items} (scanned at {@link #ITEM_LEVEL}); returns the messages made. */
    abstract int item(JsonFields items, int i, RecordSink sink) throws OtlpFormatException;

    private static final byte[] ENTITY_REFS = Keys.b("entityRefs");
    private static final byte[] ENTITY_REFS_SNAKE = Keys.b("entity_refs");
    private static final byte[] ID_KEYS_SNAKE = Keys.b("id_keys");
    private static final byte[] DESCRIPTION_KEYS_SNAKE = Keys.b("description_keys");
    /** A resource's entity_refs, rewritten in OTLP JSON's own spelling (camelCase, plain strings). */
    private final JsonWriter entityRefs = new JsonWriter(256);

    /** Writes the resource's entity_refs, if any, as {@code otlp.resource.entity_refs} (the protobuf decoder's form). */
    private void entityRefs(JsonFields res) throws OtlpFormatException {
        JsonFields refs = doc.arrayOrEmpty(res, ENTITY_REFS, ENTITY_REFS_SNAKE, 4);
        if (refs.size() == 0) {
            return;
        }
        JsonWriter w = entityRefs.reset().beginArray();
        for (int i = 0; i < refs.size(); i++) {
            JsonFields ref = doc.object(refs, i, 5);
            w.beginObject();
            refString(w, ref, SCHEMA_URL, SCHEMA_URL_SNAKE);
            refString(w, ref, Keys.J_ENTITY_REF[1], null);
            refStrings(w, ref, Keys.J_ENTITY_REF[2], ID_KEYS_SNAKE);
            refStrings(w, ref, Keys.J_ENTITY_REF[3], DESCRIPTION_KEYS_SNAKE);
            w.endObject();
        }
        w.endArray();
        resource.key(Keys.RESOURCE_ENTITY_REFS).json(w.buffer(), 0, w.length());
    }

    private void refString(JsonWriter w, JsonFields ref, byte[] camel, byte[] snake) throws OtlpFormatException {
        int k = doc.find(ref, camel, snake);
        if (k >= 0) {
            int n = doc.text(ref, k);
            if (n > 0) { // proto3: an empty string is not set
                w.name(camel, 0, camel.length).string(doc.text(), 0, n);
            }
        }
    }

    private void refStrings(JsonWriter w, JsonFields ref, byte[] camel, byte[] snake) throws OtlpFormatException {
        JsonFields a = doc.arrayOrEmpty(ref, camel, snake, 6);
        if (a.size() == 0) {
            return;
        }
        w.name(camel, 0, camel.length).beginArray();
        for (int j = 0; j < a.size(); j++) {
            int n = doc.text(a, j);
            w.string(doc.text(), 0, n);
        }
        w.endArray();
    }

    private int resourceGroup(JsonFields group, RecordSink sink) throws OtlpFormatException {
        resource.clear();
        resource.key(Keys.SIGNAL).string(signal, 0, signal.length);
        long dropped = 0;
        int r = doc.find(group, RESOURCE, null);
        if (r >= 0) {
            dropped = attributes(doc.object(group, r, 3), 4, resource, Keys.RESOURCE_PREFIX);
        }
        schemaUrlAndDropped(group, resource, Keys.RESOURCE_SCHEMA_URL, dropped, Keys.RESOURCE_DROPPED);
        if (r >= 0) {
            entityRefs(doc.object(group, r, 3));
        }
        JsonFields list = doc.arrayOrEmpty(group, scopes, scopesSnake, 3);
        int n = 0;
        for (int i = 0; i < list.size(); i++) {
            n += scopeGroup(doc.object(list, i, 4), sink);
        }
        return n;
    }

    private int scopeGroup(JsonFields group, RecordSink sink) throws OtlpFormatException {
        prefix.copyFrom(resource);
        long dropped = 0;
        int s = doc.find(group, SCOPE, null);
        if (s >= 0) {
            JsonFields scope = doc.object(group, s, 5);
            stringField(scope, NAME, null, prefix, Keys.SCOPE_NAME);
            stringField(scope, VERSION, null, prefix, Keys.SCOPE_VERSION);
            dropped = attributes(scope, 6, prefix, Keys.SCOPE_ATTRIBUTE_PREFIX);
        }
        schemaUrlAndDropped(group, prefix, Keys.SCOPE_SCHEMA_URL, dropped, Keys.SCOPE_DROPPED);
        prefix.copyToOnly(prefixFields);
        JsonFields list = doc.arrayOrEmpty(group, items, itemsSnake, 5);
        int n = 0;
        for (int i = 0; i < list.size(); i++) {
            n += item(list, i, sink);
        }
        return n;
    }

    /**
     * Adds the attributes of a resource or scope (scanned at {@code level}) to {@code block}, their keys after
     * {@code keyPrefix}; returns its dropped attributes count.
     */
    private long attributes(JsonFields entity, int level, FieldBlock block, byte[] keyPrefix)
            throws OtlpFormatException {
        JsonFields attrs = doc.arrayOrEmpty(entity, ATTRIBUTES, null, level);
        for (int i = 0; i < attrs.size(); i++) {
            values.attribute(attrs, i, level + 1, block, keyPrefix);
        }
        return uint32(entity, DROPPED, DROPPED_SNAKE);
    }

    /** Adds a group's schema URL and its resource's or scope's dropped count (when not 0), as the protobuf decoder. */
    private void schemaUrlAndDropped(JsonFields group, FieldBlock block, byte[] urlKey, long dropped, byte[] droppedKey)
            throws OtlpFormatException {
        stringField(group, SCHEMA_URL, SCHEMA_URL_SNAKE, block, urlKey);
        if (dropped != 0) {
            block.key(droppedKey).unsigned(dropped);
        }
    }

    /** Adds the string member {@code camel}/{@code snake} of {@code f} to {@code block} as {@code key}, unless empty. */
    final void stringField(JsonFields f, byte[] camel, byte[] snake, FieldBlock block, byte[] key)
            throws OtlpFormatException {
        int i = doc.find(f, camel, snake);
        if (i >= 0) {
            int n = doc.text(f, i);
            if (n > 0) {
                block.key(key).string(doc.text(), 0, n);
            }
        }
    }

    /** The length of the string {@link #copy} copied last. */
    int copied;

    /** Copies the string member into {@code into} (grown if needed, returned); its length goes to {@link #copied}. */
    final byte[] copy(JsonFields f, byte[] camel, byte[] snake, byte[] into) throws OtlpFormatException {
        int i = doc.find(f, camel, snake);
        copied = 0;
        if (i < 0) {
            return into;
        }
        int n = doc.text(f, i);
        if (into.length < n) {
            into = new byte[n];
        }
        System.arraycopy(doc.text(), 0, into, 0, n);
        copied = n;
        return into;
    }

    /** The unsigned 64-bit member {@code camel}/{@code snake} of {@code f}, 0 if absent. */
    final long uint64(JsonFields f, byte[] camel, byte[] snake) throws OtlpFormatException {
        int i = doc.find(f, camel, snake);
        return i < 0 ? 0 : doc.uint64(f, i);
    }

    /** The unsigned 32-bit member {@code camel}/{@code snake} of {@code f}, 0 if absent. */
    final long uint32(JsonFields f, byte[] camel, byte[] snake) throws OtlpFormatException {
        int i = doc.find(f, camel, snake);
        return i < 0 ? 0 : doc.uint32(f, i);
    }
}
