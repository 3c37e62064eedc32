package io.sluice.hec.codec;

import io.sluice.core.message.Metadata;
import java.util.Arrays;

import static io.sluice.hec.codec.OtlpEntries.NULL_TEXT;
import static io.sluice.hec.codec.OtlpEvents.RESOURCE_PREFIX;
import static io.sluice.hec.codec.OtlpEvents.ascii;
import static io.sluice.hec.codec.OtlpEvents.compareBytes;
import static io.sluice.hec.codec.OtlpKeys.FIELD;
import static io.sluice.hec.codec.OtlpKeys.SEV_NUMBER;
import static io.sluice.hec.codec.OtlpKeys.SEV_TEXT;
import static io.sluice.hec.codec.OtlpKeys.SPAN;
import static io.sluice.hec.codec.OtlpKeys.TRACE;

/**
 * A log record's {@code fields}, as the exporter writes them: span_id, trace_id, the severity under the configured
 * keys, then the resource's and the record's attributes, in key order. They are collected as references to the
 * record's metadata (or to {@link OtlpEntries} for maps and arrays), sorted, and written once; and kept as a plan
 * (the sorted fields with their keys encoded), which serves the next records while they carry the same keys.
 */
final class OtlpLogFields {
    private static final byte[] SPAN_ID = ascii("span_id");
    private static final byte[] TRACE_ID = ascii("trace_id");
    private static final byte[] H_FIELDS = ascii(",\"fields\":{");

    private final HecFormat format;
    private final OtlpKeys keys;
    private final OtlpEntries fields;

    OtlpLogFields(HecFormat format, OtlpKeys keys, OtlpEntries fields) {
        this.format = format;
        this.keys = keys;
        this.fields = fields;
    }

    /** Drops the fields plan: the keys changed. */
    void forgetPlan() {
        planned = false;
    }

    /**
     * The fields of record {@code md} (classified just before) as references (key bytes, what the value is),
     * sorted by key, to be written once, straight into the event: no intermediate copy for the usual scalar
     * attributes. Maps and arrays, which become several fields or JSON text, are encoded into the entries first and
     * referenced from there. Makes the fields plan when there is none and no field is a map or array.
     */
    void collect(Metadata md) {
        refs = 0;
        fields.clear();
        byte[] a = md.arena();
        mdRef(SPAN_ID, 0, SPAN_ID.length, R_STRING, keys.at[SPAN]);
        mdRef(TRACE_ID, 0, TRACE_ID.length, R_STRING, keys.at[TRACE]);
        mdRef(format.severityTextKey, 0, format.severityTextKey.length, R_STRING, keys.at[SEV_TEXT]);
        mdRef(format.severityNumberKey, 0, format.severityNumberKey.length, R_RAW, keys.at[SEV_NUMBER]);
        for (int j = 0; j < keys.resCount; j++) {
            if (keys.resCode[j] == FIELD) {
                int i = keys.res[j];
                attributeRef(md, a, i, md.keyOffset(i) + RESOURCE_PREFIX.length, md.keyLength(i) - RESOURCE_PREFIX.length);
            }
        }
        for (int j = 0; j < keys.recCount; j++) {
            if (keys.recCode[j] == FIELD) {
                int i = keys.rec[j];
                attributeRef(md, a, i, md.keyOffset(i), md.keyLength(i));
            }
        }
        sortRefs();
        if (!planned && fields.entries == 0) {
            plan(md);
        }
    }

    // Field references of a log event: key (array, offset, length), value kind, and the metadata field or the
    // fields.ents entry holding it.
    private static final byte R_STRING = 0;
    private static final byte R_RAW = 1;
    private static final byte R_DOUBLE = 2;
    private static final byte R_NULL = 3;
    private static final byte R_ENTRY = 4;
    private int refs;
    private byte[][] rKey = new byte[16][];
    private int[] rKeyOff = new int[16];
    private int[] rKeyLen = new int[16];
    private byte[] rType = new byte[16];
    private int[] rIdx = new int[16];
    private int[] rOrder = new int[16];

    private void ref(byte[] key, int off, int len, byte type, int idx) {
        if (refs == rIdx.length) {
            int cap = refs * 2;
            rKey = Arrays.copyOf(rKey, cap);
            rKeyOff = Arrays.copyOf(rKeyOff, cap);
            rKeyLen = Arrays.copyOf(rKeyLen, cap);
            rType = Arrays.copyOf(rType, cap);
            rIdx = Arrays.copyOf(rIdx, cap);
            rOrder = Arrays.copyOf(rOrder, cap);
        }
        rKey[refs] = key;
        rKeyOff[refs] = off;
        rKeyLen[refs] = len;
        rType[refs] = type;
        rIdx[refs] = idx;
        refs++;
    }

    private void mdRef(byte[] key, int off, int len, byte type, int i) {
        if (i >= 0) {
            ref(key, off, len, type, i);
        }
    }

    /** The exporter's {@code mergeValue} of one attribute: a scalar by reference, a map or array via fields.ents. */
    private void attributeRef(Metadata md, byte[] a, int i, int keyOff, int keyLen) {
        byte t = refType(md, a, i);
        if (t != R_ENTRY) {
            ref(a, keyOff, keyLen, t, i);
            return;
        }
        int first = fields.entries;
        fields.mergeValue(md, i, keyOff, keyLen);
        for (int e = first; e < fields.entries; e++) {
            // The key as escaped (the same bytes unless it needed escapes); null: in fields.ents, which may grow.
            ref(null, fields.eOff[e] + 1, fields.eKey[e], R_ENTRY, e);
        }
    }

    /** Orders the references by key bytes (Go's map order), stable, keeping the last of equal keys. */
    private void sortRefs() {
        int n = refs;
        int[] order = rOrder;
        boolean equalKeys = false;
        for (int i = 0; i < n; i++) {
            int j = i;
            while (j > 0) {
                int c = compareRefs(order[j - 1], i);
                if (c <= 0) {
                    equalKeys |= c == 0; // an equal key, if any, is where the insertion stops
                    break;
                }
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        if (!equalKeys) {
            return;
        }
        int u = 0;
        for (int s = 0; s < n; s++) {
            if (s + 1 < n && compareRefs(order[s], order[s + 1]) == 0) {
                continue;
            }
            order[u++] = order[s];
        }
        refs = u;
    }

    private int compareRefs(int x, int y) {
        byte[] kx = rKey[x] != null ? rKey[x] : fields.ents.array();
        byte[] ky = rKey[y] != null ? rKey[y] : fields.ents.array();
        return compareBytes(kx, rKeyOff[x], rKeyLen[x], ky, rKeyOff[y], rKeyLen[y]);
    }

    // A log record's fields plan: its sorted fields as metadata indices and how each value is written, with the
    // text before each value (",\"fields\":{" or a comma, the quoted key, the colon) encoded once. It depends
    // only on the keys, in their order, so it holds for the next records while keys.classify() finds the same keys,
    // as long as none of the fields is a map or array (those become a varying number of fields).
    private boolean planned;
    private int planCount;
    private int[] planIdx = new int[16];
    /** The value's reference type, or -1: by the field's kind, as attributeRef decides. */
    private byte[] planType = new byte[16];
    /** The value types of the record being written, set by {@link #planRoom}. */
    private byte[] planT = new byte[16];
    private int[] planKeyEnd = new int[16];
    private final ByteOut planKeys = new ByteOut(256);

    /** Makes the fields plan from the sorted references (none of them an entry of fields.ents). */
    private void plan(Metadata md) {
        int n = refs;
        if (planIdx.length < n) {
            int cap = Math.max(n, planIdx.length * 2);
            planIdx = new int[cap];
            planType = new byte[cap];
            planT = new byte[cap];
            planKeyEnd = new int[cap];
        }
        planKeys.clear();
        byte[] a = md.arena();
        for (int s = 0; s < n; s++) {
            int r = rOrder[s];
            planIdx[s] = rIdx[r];
            planType[s] = rKey[r] == a ? -1 : rType[r]; // an attribute's key lies in the arena; otlp.* ones do not
            if (s == 0) {
                planKeys.write(H_FIELDS);
            } else {
                planKeys.write(',');
            }
            planKeys.writeQuoted(rKey[r], rKeyOff[r], rKeyLen[r]);
            planKeys.write(':');
            planKeyEnd[s] = planKeys.length();
        }
        planCount = n;
        planned = true;
    }

    /** An attribute's reference type: R_ENTRY for a map or array (via fields.ents; not planned). */
    private static byte refType(Metadata md, byte[] a, int i) {
        return switch (md.kind(i)) {
            case Metadata.STRING -> R_STRING;
            case Metadata.JSON -> R_ENTRY;
            case Metadata.NUMBER -> md.valueLength(i) > 0 && GoNumbers.isFloat(a, md.valueOffset(i), md.valueLength(i))
                    ? R_DOUBLE : R_RAW;
            case Metadata.NULL -> R_NULL;
            default -> R_RAW;
        };
    }

    /**
     * Room {@link #putPlan} needs, and the value types it writes ({@link #planT}); -1 when there is no plan or it
     * does not hold for {@code md} (which has the planned keys): one of its attributes is a map or array.
     */
    int planRoom(Metadata md) {
        if (!planned) {
            return -1;
        }
        int room = 24 + planKeys.length();
        byte[] a = md.arena();
        for (int s = 0; s < planCount; s++) {
            int i = planIdx[s];
            byte t = planType[s] < 0 ? refType(md, a, i) : planType[s];
            if (t == R_ENTRY) {
                return -1;
            }
            planT[s] = t;
            int vl = md.valueLength(i);
            room += t == R_STRING ? ByteOut.quotedRoom(a, md.valueOffset(i), vl) : vl + 48;
        }
        return room;
    }

    /**
     * The fields by the plan, as {@link #putRefs} writes them; at {@code b[at]}, with the room {@link #planRoom}
     * (called just before) asked for.
     */
    int putPlan(byte[] b, int at, Metadata md) {
        int n = planCount;
        byte[] a = md.arena();
        byte[] k = planKeys.array();
        int from = 0;
        for (int s = 0; s < n; s++) {
            int end = planKeyEnd[s];
            System.arraycopy(k, from, b, at, end - from);
            at += end - from;
            from = end;
            int i = planIdx[s];
            at = putValue(b, at, a, md.valueOffset(i), md.valueLength(i), planT[s]);
        }
        if (n > 0) {
            b[at++] = '}';
        }
        b[at++] = '}';
        b[at++] = '\n';
        return at;
    }

    /** Room {@link #putRefs} needs for the sorted references. */
    int refsRoom(Metadata md) {
        int n = refs;
        int room = 24;
        for (int r = 0; r < n; r++) {
            room += ByteOut.quotedBound(rKeyLen[r]) + 2;
            int i = rIdx[r];
            room += switch (rType[r]) {
                case R_STRING -> ByteOut.quotedRoom(md.arena(), md.valueOffset(i), md.valueLength(i));
                case R_ENTRY -> fields.eEnd[i] - fields.eOff[i];
                default -> md.valueLength(i) + 48; // a number as Go prints it: its digits and some zeros
            };
        }
        return room;
    }

    /**
     * {@code ,"fields":{...}}} and the newline (no fields: {@code }} and the newline) at {@code b[at]}, which has
     * the room {@link #refsRoom} asked for; returns the end.
     */
    int putRefs(byte[] b, int at, Metadata md) {
        int n = refs;
        int[] order = rOrder;
        if (n > 0) {
            System.arraycopy(H_FIELDS, 0, b, at, H_FIELDS.length);
            at += H_FIELDS.length;
            byte[] a = md.arena();
            for (int s = 0; s < n; s++) {
                int r = order[s];
                if (s > 0) {
                    b[at++] = ',';
                }
                int i = rIdx[r];
                byte t = rType[r];
                if (t == R_ENTRY) {
                    int len = fields.eEnd[i] - fields.eOff[i];
                    System.arraycopy(fields.ents.array(), fields.eOff[i], b, at, len);
                    at += len;
                    continue;
                }
                at = ByteOut.putQuoted(b, at, rKey[r], rKeyOff[r], rKeyLen[r]);
                b[at++] = ':';
                at = putValue(b, at, a, md.valueOffset(i), md.valueLength(i), t);
            }
            b[at++] = '}';
        }
        b[at++] = '}';
        b[at++] = '\n';
        return at;
    }

    /** A scalar field's value, as its reference type says, at {@code b[at]}; returns the end. */
    private int putValue(byte[] b, int at, byte[] a, int vo, int vl, byte t) {
        switch (t) {
            case R_STRING -> at = ByteOut.putQuoted(b, at, a, vo, vl);
            case R_NULL -> {
                System.arraycopy(NULL_TEXT, 0, b, at, 4);
                at += 4;
            }
            case R_DOUBLE -> {
                fields.tmp.clear();
                fields.json.writeNumber(a, vo, vl, fields.tmp, GoNumbers.JSON);
                System.arraycopy(fields.tmp.array(), 0, b, at, fields.tmp.length());
                at += fields.tmp.length();
            }
            default -> {
                if (vl == 0) { // a number without text: what the encoder writes for one elsewhere
                    b[at++] = '0';
                } else {
                    System.arraycopy(a, vo, b, at, vl);
                    at += vl;
                }
            }
        }
        return at;
    }
}
