package io.sluice.hec.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.message.Metadata;
import java.util.Arrays;

import static io.sluice.hec.codec.OtlpEvents.ascii;
import static io.sluice.hec.codec.OtlpEvents.compareBytes;

/**
 * The {@code fields} entries ({@code "key":value}) of the current OTLP message, written once into one buffer and
 * then ordered by key as Go orders a map, each key once (the last one set wins): a log record's maps and arrays
 * (the exporter's {@code mergeValue}, maps flattened with dots), a metric point's dimensions and its events'
 * own entries. Attribute values are written as Go marshals them ({@link GoJson}).
 */
final class OtlpEntries {
    final GoJson json = new GoJson(new GoNumbers());
    /** The current message's fields entries ({@code "key":value}) and, after them, its events' own entries. */
    final ByteOut ents = new ByteOut(1024);
    /** A flattened key being built (escaped), for maps in log attributes. */
    private final ByteOut path = new ByteOut(128);
    /** Scratch for JSON text that is sent as a string. */
    final ByteOut tmp = new ByteOut(256);

    /** Number of entries. */
    int entries;
    /** Per entry: where it starts in {@link #ents} (its key's quote), its key's escaped length, where it ends. */
    int[] eOff = new int[32];
    int[] eKey = new int[32];
    int[] eEnd = new int[32];
    /** Entries [0, unique) in key order, each key once (the last one set wins, as in a Go map). */
    private int[] order = new int[32];
    private int unique;

    /** Forgets the entries. */
    void clear() {
        entries = 0;
        ents.clear();
    }

    /** Starts an entry: its key is written next, then {@link #keyDone}. */
    int startEntry() {
        if (entries == eOff.length) {
            int cap = entries * 2;
            eOff = Arrays.copyOf(eOff, cap);
            eKey = Arrays.copyOf(eKey, cap);
            eEnd = Arrays.copyOf(eEnd, cap);
        }
        eOff[entries] = ents.length();
        ents.write('"');
        return entries;
    }

    /** Ends the key of entry {@code e}, whose escaped text was written after its quote. */
    void keyDone(int e) {
        eKey[e] = ents.length() - eOff[e] - 1;
        ents.write('"');
        ents.write(':');
    }

    void endEntry(int e) {
        eEnd[e] = ents.length();
        entries++;
    }

    /** An entry named by the raw key {@code k[off, off+len)}; its value is written next, then {@link #endEntry}. */
    int entry(byte[] k, int off, int len) {
        int e = startEntry();
        ents.writeEscaped(k, off, len);
        keyDone(e);
        return e;
    }

    /** An entry named by the escaped key in {@link #path}. */
    int entryFromKeys() {
        int e = startEntry();
        ents.write(path.array(), 0, path.length());
        keyDone(e);
        return e;
    }

    private int compare(int x, int y) {
        byte[] b = ents.array();
        return compareBytes(b, eOff[x] + 1, eKey[x], b, eOff[y] + 1, eKey[y]);
    }

    /** Orders entries [0, count) by key into {@link #order}, keeping only the last of equal path. */
    void sortEntries(int count) {
        if (order.length < count) {
            order = new int[Math.max(count, order.length * 2)];
        }
        for (int i = 0; i < count; i++) {
            int j = i;
            while (j > 0 && compare(order[j - 1], i) > 0) { // stable: equal path stay in the order they came
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        int u = 0;
        for (int s = 0; s < count; s++) {
            if (s + 1 < count && compare(order[s], order[s + 1]) == 0) {
                continue;
            }
            order[u++] = order[s];
        }
        unique = u;
    }

    /**
     * Writes the sorted entries with up to two more ({@code x}, {@code y}; -1 for none) merged in key order; an
     * extra one replaces a sorted entry of the same key (the exporter sets le/qt and the value last).
     */
    void writeEntries(ByteOut o, int x, int y) {
        if (x < 0 || (y >= 0 && compare(x, y) > 0)) { // x first, and x set if either is
            int t = x;
            x = y;
            y = t;
        }
        byte[] b = ents.array();
        boolean comma = false;
        for (int s = 0; s < unique; s++) {
            int e = order[s];
            while (x >= 0) {
                int c = compare(x, e);
                if (c > 0) {
                    break;
                }
                comma = put(o, b, x, comma);
                x = y;
                y = -1;
                if (c == 0) {
                    e = -1;
                    break;
                }
            }
            if (e >= 0) {
                comma = put(o, b, e, comma);
            }
        }
        for (; x >= 0; x = y, y = -1) {
            comma = put(o, b, x, comma);
        }
    }

    private boolean put(ByteOut o, byte[] b, int e, boolean comma) {
        if (comma) {
            o.write(',');
        }
        o.write(b, eOff[e], eEnd[e] - eOff[e]);
        return true;
    }

    /** The exporter's {@code mergeValue}: one attribute into fields, maps flattened, arrays kept or as text. */
    void mergeValue(Metadata md, int i, int keyOff, int keyLen) {
        byte[] a = md.arena();
        byte kind = md.kind(i);
        if (kind == Metadata.JSON) {
            int vo = md.valueOffset(i);
            int end = vo + md.valueLength(i);
            path.clear();
            path.writeEscaped(a, keyOff, keyLen);
            byte c = GoJson.first(a, vo, end);
            if (c == '{') {
                flatten(a, vo, end, 0);
            } else if (c == '[') {
                arrayEntry(a, vo, end, 0);
            } else {
                rawEntry(a, vo, end - vo, false);
            }
            return;
        }
        int e = entry(a, keyOff, keyLen);
        scalar(ents, md, i, kind);
        endEntry(e);
    }

    /** A scalar attribute's value as Go marshals its {@code AsRaw()}. */
    void scalar(ByteOut o, Metadata md, int i, byte kind) {
        byte[] a = md.arena();
        int vo = md.valueOffset(i);
        int vl = md.valueLength(i);
        switch (kind) {
            case Metadata.STRING -> o.writeQuoted(a, vo, vl);
            case Metadata.NUMBER -> {
                if (vl == 0) {
                    o.write('0');
                } else {
                    json.writeNumber(a, vo, vl, o, GoNumbers.JSON);
                }
            }
            case Metadata.NULL -> o.write(NULL_TEXT);
            default -> o.write(a, vo, vl);
        }
    }

    static final byte[] NULL_TEXT = ascii("null");

    /** The exporter's {@code flattenAndMergeMap}: the object {@code b[off, end)} under the key in {@link #path}. */
    private void flatten(byte[] b, int off, int end, int depth) {
        JsonFields f = json.level(depth);
        if (depth >= GoJson.MAX_DEPTH || !json.scanner.scanObject(b, off, end, f)) {
            rawEntry(b, off, end - off, false);
            return;
        }
        if (GoJson.isBytes(b, f)) {
            rawEntry(b, f.valueOffset(0), f.valueLength(0), true);
            return;
        }
        int base = path.length();
        for (int i = 0; i < f.size(); i++) {
            path.setLength(base);
            path.write('.');
            path.write(b, f.keyOffset(i), f.keyLength(i)); // raw JSON key text: already escaped
            int vo = f.valueOffset(i);
            int vl = f.valueLength(i);
            switch (f.kind(i)) {
                case JsonFields.OBJECT -> flatten(b, vo, vo + vl, depth + 1);
                case JsonFields.ARRAY -> arrayEntry(b, vo, vo + vl, depth + 1);
                case JsonFields.STRING -> rawEntry(b, vo, vl, true);
                case JsonFields.NUMBER -> {
                    int e = entryFromKeys();
                    json.writeNumber(b, vo, vl, ents, GoNumbers.JSON);
                    endEntry(e);
                }
                default -> rawEntry(b, vo, vl, false);
            }
        }
        path.setLength(base);
    }

    /** An entry under the key in {@link #path}: the text {@code b[off, off+len)}, in quotes when {@code quoted}. */
    private void rawEntry(byte[] b, int off, int len, boolean quoted) {
        int e = entryFromKeys();
        if (quoted) {
            ents.write('"');
        }
        ents.write(b, off, len);
        if (quoted) {
            ents.write('"');
        }
        endEntry(e);
    }

    /** An array attribute: kept when flat (no arrays or maps in it), else sent as its JSON text. */
    private void arrayEntry(byte[] b, int off, int end, int depth) {
        if (json.isFlatArray(b, off, end, depth)) {
            int e = entryFromKeys();
            json.write(b, off, end, ents, depth);
            endEntry(e);
        } else {
            tmp.clear();
            json.write(b, off, end, tmp, depth);
            int e = entryFromKeys();
            ents.writeQuoted(tmp.array(), 0, tmp.length());
            endEntry(e);
        }
    }

    /** A dimension: the attribute's {@code AsString()}. */
    void asString(Metadata md, int i) {
        byte[] a = md.arena();
        int vo = md.valueOffset(i);
        int vl = md.valueLength(i);
        switch (md.kind(i)) {
            case Metadata.STRING -> ents.writeQuoted(a, vo, vl);
            case Metadata.NULL -> {
                ents.write('"');
                ents.write('"');
            }
            case Metadata.JSON -> {
                tmp.clear();
                json.write(a, vo, vo + vl, tmp, 0); // bytes come out as their quoted base64: unquote them
                if (tmp.length() >= 2 && tmp.array()[0] == '"') {
                    ents.write(tmp.array(), 0, tmp.length());
                } else {
                    ents.writeQuoted(tmp.array(), 0, tmp.length());
                }
            }
            default -> { // numbers and booleans, as text
                tmp.clear();
                json.writeNumber(a, vo, vl, tmp, GoNumbers.JSON);
                ents.writeQuoted(tmp.array(), 0, tmp.length());
            }
        }
    }
}
