package io.sluice.core.format;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonStrings;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One place a formatter reads from or writes to, as Gollum's Source and Target name it: the payload (empty
 * name) or a metadata field. Reading leaves a view ({@link #buf}, {@link #off}, {@link #len}, {@link #kind})
 * on the bytes where they are, so nothing is copied or allocated; the view is valid until the message
 * changes.
 *
 * <p>A name with slashes ({@code tree/a/b}) that is not itself a field is read as a path into the nested
 * JSON value of field {@code tree}, as Gollum's metadata paths are; numeric segments index arrays. Writes
 * always go to the flat field of that name.
 */
final class Slot {
    private final String name;
    private final byte[] key;
    private final Metadata.Key prepared;
    private final byte[][] path;
    private JsonScanner scanner;
    private JsonFields scratch;
    private byte[] decoded = new byte[0];

    /** The bytes last read: {@code buf[off, off+len)}. */
    byte[] buf;
    int off;
    int len;
    /** The {@link Metadata} kind of the bytes last read ({@link Metadata#STRING} for the payload). */
    byte kind;
    /** Whether the bytes last read are JSON string contents without escapes (a parsed, unchanged field). */
    boolean rawJson;

    Slot(String name) {
        this.name = name;
        this.prepared = name.isEmpty() ? null : new Metadata.Key(name);
        this.key = prepared == null ? null : prepared.bytes();
        this.path = name.indexOf('/') > 0 ? splitPath(name) : null;
    }

    private static byte[][] splitPath(String name) {
        return Arrays.stream(name.split("/")).map(p -> p.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    }

    String name() {
        return name;
    }

    boolean isPayload() {
        return key == null;
    }

    /** The metadata key (null for the payload). */
    byte[] key() {
        return key;
    }

    /** The metadata key prepared for lookups (null for the payload). */
    Metadata.Key prepared() {
        return prepared;
    }

    /** Index of the field in the message's metadata, or -1 (always -1 for the payload). */
    int index(Message m) {
        return key == null || !m.hasMetadata() ? -1 : m.metadata().indexOf(prepared);
    }

    /**
     * Reads the content into the view. Returns false when it is a metadata field that is not set (the view
     * is then empty), true otherwise.
     */
    boolean read(Message m) {
        if (key == null) {
            view(m.payload(), 0, m.length(), Metadata.STRING);
            return true;
        }
        int i = index(m);
        if (i >= 0) {
            Metadata md = m.metadata();
            boolean raw = md.isRawJson(i) && !md.isEscaped(i);
            int vo = md.valueOffset(i);
            view(md.arena(), vo, md.valueLength(i), md.kind(i));
            rawJson = raw;
            return true;
        }
        view(decoded, 0, 0, Metadata.STRING);
        return path != null && m.hasMetadata() && readPath(m.metadata());
    }

    private void view(byte[] b, int o, int l, byte k) {
        rawJson = false;
        buf = b;
        off = o;
        len = l;
        kind = k;
    }

    /** Follows a slash path into nested JSON values. */
    private boolean readPath(Metadata md) {
        int i = md.indexOf(path[0]);
        if (i < 0 || md.kind(i) != Metadata.JSON) {
            return false;
        }
        if (scanner == null) {
            scanner = new JsonScanner();
            scratch = new JsonFields();
        }
        byte[] b = md.arena();
        int start = md.valueOffset(i);
        int end = start + md.valueLength(i);
        for (int s = 1; s < path.length; s++) {
            if (!step(b, start, end, path[s])) {
                return false;
            }
            start = scanner.valueStart();
            end = scanner.valueEnd();
        }
        return viewScanned(b, start, end);
    }

    private boolean step(byte[] b, int start, int end, byte[] segment) {
        if (start < end && b[start] == '[') {
            int index = parseIndex(segment);
            return index >= 0 && scanner.findElement(b, start, end, index, scratch);
        }
        return scanner.findMember(b, start, end, segment, 0, segment.length, scratch);
    }

    private boolean viewScanned(byte[] b, int start, int end) {
        byte k = Kinds.toMetadata(scanner.kind());
        if (k == Metadata.STRING && scanner.valueEscaped()) {
            if (decoded.length < end - start) {
                decoded = new byte[end - start];
            }
            view(decoded, 0, JsonStrings.unescape(b, start, end - start, decoded, 0), k);
        } else {
            view(b, start, end - start, k);
        }
        return true;
    }

    private static int parseIndex(byte[] s) {
        if (s.length == 0 || s.length > 9) {
            return -1;
        }
        int v = 0;
        for (byte c : s) {
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** Replaces the content with {@code src[o, o+l)}; a metadata field gets the given kind. */
    void write(Message m, byte[] src, int o, int l, byte k) {
        if (key == null) {
            m.setPayload(src, o, l);
        } else {
            m.metadata().set(key, 0, key.length, src, o, l, k);
        }
    }

    /** Clears the payload, or removes the field. */
    void clear(Message m) {
        if (key == null) {
            m.setLength(0);
            return;
        }
        int i = index(m);
        if (i >= 0) {
            m.metadata().remove(i);
        }
    }
}
