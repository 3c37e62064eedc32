package io.sluice.core.format;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonStrings;
import io.sluice.core.json.JsonWriter;
import io.sluice.core.message.Message;
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
            boolean keyEscaped = fields.keyEscaped(i);
            if (keyEscaped) {
                kl = JsonStrings.unescape(arena, ko, kl, arena, ko);
            }
            md.setRange(ko, kl, !keyEscaped, base + fields.valueOffset(i), fields.valueLength(i),
                    Kinds.toMetadata(fields.kind(i)), fields.valueEscaped(i));
        }
    }

    /** Writes every field of {@code md} except those named in {@code ignore} as one JSON object. */
    static void write(Metadata md, JsonWriter w, byte[][] ignore) {
        write(md, w, ignore, null);
    }

    /**
     * Like {@link #write(Metadata, JsonWriter, byte[][])}, and records each member's ranges in {@code index}
     * (when not null) as a scan of the written object would, offsets counted from the writer's start: the
     * writer was reset before, so the document starts at 0.
     */
    static void write(Metadata md, JsonWriter w, byte[][] ignore, JsonFields index) {
        w.beginObject();
        boolean first = true;
        for (int i = 0, n = md.size(); i < n; i++) {
            if (ignore.length > 0 && ignored(md, i, ignore)) {
                continue;
            }
            int before = w.length();
            if (md.isKeyRaw(i)) {
                w.rawName(md.arena(), md.keyOffset(i), md.keyLength(i));
            } else {
                w.name(md.arena(), md.keyOffset(i), md.keyLength(i));
            }
            int afterName = w.length();
            value(md, i, w);
            if (index != null) {
                record(md, i, index, first ? before + 1 : before + 2, afterName, w);
            }
            first = false;
        }
        w.endObject();
    }

    /** Records member {@code i} just written: its key began at {@code keyStart}, its value at {@code afterName}. */
    private static void record(Metadata md, int i, JsonFields index, int keyStart, int afterName, JsonWriter w) {
        int keyLen = afterName - 2 - keyStart; // the name ends with '":'
        int valueEnd = w.length();
        byte kind = md.kind(i);
        if (kind == Metadata.STRING) {
            int vl = valueEnd - afterName - 2;
            // Escaping always adds bytes, so a written string holds escapes iff it grew (or was kept escaped).
            boolean escaped = md.isRawJson(i) ? md.isEscaped(i) : vl != md.rawValueLength(i);
            index.add(keyStart, keyLen, keyLen != md.keyLength(i), afterName + 1, vl, JsonFields.STRING, escaped);
            return;
        }
        byte jsonKind = kind != Metadata.JSON ? kind
                : w.buffer()[afterName] == '{' ? JsonFields.OBJECT : JsonFields.ARRAY;
        index.add(keyStart, keyLen, keyLen != md.keyLength(i), afterName, valueEnd - afterName, jsonKind, false);
    }

    /**
     * The members of the JSON object in {@code source}: the index the payload's writer recorded when there is
     * one still valid (no second scan of a payload a JSON formatter just wrote), otherwise a validating scan
     * into {@code fields}. Null when the content is not a JSON object ({@code scanner} holds the error).
     */
    static JsonFields object(Slot source, Message m, JsonScanner scanner, JsonFields fields) {
        if (source.isPayload()) {
            JsonFields index = m.jsonIndex();
            if (index != null) {
                return index;
            }
        }
        return scanner.scanObject(source.buf, source.off, source.off + source.len, fields) ? fields : null;
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
