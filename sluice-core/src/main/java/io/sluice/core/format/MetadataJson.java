package io.sluice.core.format;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonStrings;
import io.sluice.core.json.JsonWriter;
import io.sluice.core.message.Metadata;
import java.util.Arrays;

/** Reads JSON objects into metadata and writes metadata as JSON objects, straight between byte buffers. */
final class MetadataJson {
    private MetadataJson() {
    }

    /**
     * Merges the members scanned into {@code fields} from {@code b} into {@code md}: the document is copied
     * into the arena once and every field points into that copy. Escaped string values stay escaped until read;
     * escaped keys are unescaped in place at once, since lookups compare key bytes.
     */
    static void merge(Metadata md, byte[] b, int off, int len, JsonFields fields) {
        int base = md.appendToArena(b, off, len) - off;
        byte[] arena = md.arena();
        for (int i = 0, n = fields.size(); i < n; i++) {
            int ko = base + fields.keyOffset(i);
            int kl = fields.keyLength(i);
            if (fields.keyEscaped(i)) {
                kl = JsonStrings.unescape(arena, ko, kl, arena, ko);
            }
            md.setRange(ko, kl, base + fields.valueOffset(i), fields.valueLength(i),
                    Kinds.toMetadata(fields.kind(i)), fields.valueEscaped(i));
        }
    }

    /** Writes every field of {@code md} except those named in {@code ignore} as one JSON object. */
    static void write(Metadata md, JsonWriter w, byte[][] ignore) {
        w.beginObject();
        for (int i = 0, n = md.size(); i < n; i++) {
            if (ignore.length > 0 && ignored(md, i, ignore)) {
                continue;
            }
            w.name(md.arena(), md.keyOffset(i), md.keyLength(i));
            value(md, i, w);
        }
        w.endObject();
    }

    /** Writes field {@code i}'s value: strings still as parsed are copied raw, so they round-trip byte for byte. */
    static void value(Metadata md, int i, JsonWriter w) {
        byte[] a = md.arena();
        if (md.kind(i) != Metadata.STRING) {
            w.raw(a, md.rawValueOffset(i), md.rawValueLength(i));
        } else if (md.isRawJson(i)) {
            w.rawString(a, md.rawValueOffset(i), md.rawValueLength(i));
        } else {
            w.string(a, md.rawValueOffset(i), md.rawValueLength(i));
        }
    }

    private static boolean ignored(Metadata md, int i, byte[][] ignore) {
        byte[] a = md.arena();
        int ko = md.keyOffset(i);
        int kl = md.keyLength(i);
        for (byte[] k : ignore) {
            if (k.length == kl && Arrays.equals(a, ko, ko + kl, k, 0, kl)) {
                return true;
            }
        }
        return false;
    }

    /** Loads the object {@code b[off, off+len)} into {@code md} (cleared first); false if it is not an object. */
    static boolean load(Metadata md, byte[] b, int off, int len, JsonScanner scanner, JsonFields fields) {
        md.clear();
        if (len == 0 || !scanner.scanObject(b, off, off + len, fields)) {
            return false;
        }
        merge(md, b, off, len, fields);
        return true;
    }
}
