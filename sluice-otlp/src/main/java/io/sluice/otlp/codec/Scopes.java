package io.sluice.otlp.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.OtlpFields;

/**
 * The resource and instrumentation scope of a message, shared by the log and metric encoders: their identity (for
 * grouping) and how they are written. A message that is not OTLP's has the empty resource and the empty scope
 * (all its fields are record attributes).
 */
final class Scopes {
    static final int LEVEL_RESOURCE = 0;

    private static final Metadata.Key K_RESOURCE_DROPPED = new Metadata.Key(OtlpFields.RESOURCE_DROPPED);
    private static final Metadata.Key K_RESOURCE_SCHEMA = new Metadata.Key(OtlpFields.RESOURCE_SCHEMA_URL);
    private static final Metadata.Key K_ENTITY_REFS = new Metadata.Key(OtlpFields.RESOURCE_ENTITY_REFS);
    private static final Metadata.Key K_SCOPE_NAME = new Metadata.Key(OtlpFields.SCOPE_NAME);
    private static final Metadata.Key K_SCOPE_VERSION = new Metadata.Key(OtlpFields.SCOPE_VERSION);
    private static final Metadata.Key K_SCOPE_DROPPED = new Metadata.Key(OtlpFields.SCOPE_DROPPED);
    private static final Metadata.Key K_SCOPE_SCHEMA = new Metadata.Key(OtlpFields.SCOPE_SCHEMA_URL);

    private final Values values;
    private final Categories cats;
    private final JsonFields refs = new JsonFields();
    private final JsonFields ref = new JsonFields();
    private final JsonFields strings = new JsonFields();

    Scopes(Values values, Categories cats) {
        this.values = values;
        this.cats = cats;
    }

    /** Whether a message of this signal ({@link MessageKeys#signal}) has resource and scope fields (it is OTLP's). */
    static boolean isOtlp(int signal) {
        return signal == MessageKeys.OTLP_LOG || signal == MessageKeys.OTLP_METRIC;
    }

    /** The identity hash of {@code m}'s resource (level 0) or scope (level 1); {@code signal} is {@code m}'s. */
    int hash(int level, Message m, int signal, int base) {
        if (!isOtlp(signal)) {
            return 0;
        }
        return MessageKeys.hash(m, cats, base, level == LEVEL_RESOURCE ? MessageKeys.RESOURCE : MessageKeys.SCOPE);
    }

    /**
     * Whether {@code a} and {@code b} have the same resource (level 0) or scope (level 1). A message that is not
     * OTLP's has the empty one, the same as an OTLP message's without any field at that level.
     */
    boolean same(int level, Message a, int signalA, int baseA, Message b, int signalB, int baseB) {
        int mask = level == LEVEL_RESOURCE ? MessageKeys.RESOURCE : MessageKeys.SCOPE;
        boolean oa = isOtlp(signalA);
        boolean ob = isOtlp(signalB);
        if (oa && ob) {
            return MessageKeys.same(a, baseA, b, baseB, cats, mask);
        }
        return oa == ob || (oa ? !hasAny(a, baseA, mask) : !hasAny(b, baseB, mask));
    }

    private boolean hasAny(Message m, int base, int mask) {
        return MessageKeys.next(m.hasMetadata() ? m.metadata() : null, cats, base, 0, mask) >= 0;
    }

    /** Writes the {@code Resource} of {@code m} as field {@code field} (always: the Collector always sends one). */
    void resource(ProtoWriter out, int field, Message m, int signal, int base) {
        out.begin(field);
        if (isOtlp(signal)) {
            Metadata md = m.metadata();
            attributes(out, 1, md, base, MessageKeys.RESOURCE_ATTRIBUTE, Keys.RESOURCE_PREFIX.length);
            varint(out, 2, md, md.indexOf(K_RESOURCE_DROPPED));
            entityRefs(out, md, md.indexOf(K_ENTITY_REFS));
        }
        out.end();
    }

    /**
     * Writes the fields of {@code md} in category {@code category} as KeyValues (field {@code field}), their keys
     * without their first {@code prefix} bytes; {@code base} is where their categories start.
     */
    void attributes(ProtoWriter out, int field, Metadata md, int base, int category, int prefix) {
        for (int i = 0; i < md.size(); i++) {
            if (cats.at(base + i) == category) {
                values.keyValue(out, field, md.arena(), md.keyOffset(i) + prefix, md.keyLength(i) - prefix, md, i);
            }
        }
    }

    /** Resource.entity_refs from {@code otlp.resource.entity_refs}: EntityRef {schema_url, type, id_keys, description_keys}. */
    private void entityRefs(ProtoWriter out, Metadata md, int i) {
        if (i < 0) {
            return;
        }
        byte[] a = md.arena();
        JsonScanner scanner = values.scanner();
        if (!scanner.scanArray(a, md.valueOffset(i), md.valueOffset(i) + md.valueLength(i), refs)) {
            return;
        }
        for (int k = 0; k < refs.size(); k++) {
            int off = refs.valueOffset(k);
            if (refs.kind(k) != JsonFields.OBJECT || !scanner.scanObject(a, off, off + refs.valueLength(k), ref)) {
                continue;
            }
            out.begin(3);
            jsonString(out, 1, a, Keys.J_ENTITY_REF[0]);
            jsonString(out, 2, a, Keys.J_ENTITY_REF[1]);
            jsonStrings(out, 3, a, Keys.J_ENTITY_REF[2]);
            jsonStrings(out, 4, a, Keys.J_ENTITY_REF[3]);
            out.end();
        }
    }

    private void jsonString(ProtoWriter out, int field, byte[] a, byte[] key) {
        int m = ref.lastIndexOf(a, key, 0, key.length);
        if (m >= 0 && ref.kind(m) == JsonFields.STRING) {
            values.rawString(out, field, a, ref.valueOffset(m), ref.valueLength(m), ref.valueEscaped(m));
        }
    }

    private void jsonStrings(ProtoWriter out, int field, byte[] a, byte[] key) {
        int m = ref.lastIndexOf(a, key, 0, key.length);
        if (m < 0 || ref.kind(m) != JsonFields.ARRAY) {
            return;
        }
        int off = ref.valueOffset(m);
        if (values.scanner().scanArray(a, off, off + ref.valueLength(m), strings)) {
            for (int k = 0; k < strings.size(); k++) {
                values.rawString(out, field, a, strings.valueOffset(k), strings.valueLength(k), strings.valueEscaped(k));
            }
        }
    }

    /** Writes the {@code InstrumentationScope} of {@code m} as field {@code field}. */
    void scope(ProtoWriter out, int field, Message m, int signal, int base) {
        out.begin(field);
        if (isOtlp(signal)) {
            Metadata md = m.metadata();
            string(out, 1, md, md.indexOf(K_SCOPE_NAME));
            string(out, 2, md, md.indexOf(K_SCOPE_VERSION));
            attributes(out, 3, md, base, MessageKeys.SCOPE_ATTRIBUTE, Keys.SCOPE_ATTRIBUTE_PREFIX.length);
            varint(out, 4, md, md.indexOf(K_SCOPE_DROPPED));
        }
        out.end();
    }

    /** Writes the resource's ({@link MessageKeys#RESOURCE}) or scope's schema URL of {@code m} as field {@code field}. */
    void schemaUrl(ProtoWriter out, int field, Message m, int signal, int which) {
        if (isOtlp(signal)) {
            Metadata md = m.metadata();
            string(out, field, md, md.indexOf(which == MessageKeys.RESOURCE ? K_RESOURCE_SCHEMA : K_SCOPE_SCHEMA));
        }
    }

    /** Writes the integer field {@code i} of {@code md} as varint field {@code field}, unless it is absent or 0. */
    static void varint(ProtoWriter out, int field, Metadata md, int i) {
        long v = MessageKeys.number(md, i, 0);
        if (v != 0) {
            out.varintField(field, v);
        }
    }

    static void string(ProtoWriter out, int field, Metadata md, int i) {
        if (i >= 0) {
            int len = md.valueLength(i);
            if (len > 0) {
                out.stringField(field, md.arena(), md.valueOffset(i), len);
            }
        }
    }
}
