package io.sluice.forward.consumer;

import io.sluice.core.json.Decimal;
import io.sluice.core.json.JsonStrings;
import io.sluice.core.json.Utf8;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.forward.OverBudgetException;
import io.sluice.forward.codec.BufferAllowance;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Turns a Forward record (a msgpack map, as it came off the wire) into a message: the payload (the record as
 * JSON, its msgpack bytes as they are, or the value of one key) and, optionally, the record's top-level fields as
 * metadata. Walks the msgpack bytes directly and writes into reused buffers: no object per field or event.
 *
 * <p>Forward v1.5 event metadata ({@code [[time, {metadata}], record]}, as Fluent Bit sends it) goes into the
 * message metadata too, each top-level entry under its key with a prefix ({@code _meta.} by default), so it
 * cannot be taken for a record field of the same name. It is copied only when record fields are ({@code metadata}
 * on), and an empty prefix drops it. An empty metadata map (what Fluent Bit sends for plain logs) adds nothing.
 *
 * <p>The decoder has already checked that the record is one well-formed map inside the frame, so this walker
 * trusts lengths. Metadata kinds follow the JSON kinds the rest of Sluice uses: str is STRING (its bytes as they
 * are), integers and floats NUMBER, booleans BOOLEAN, nil NULL, maps and arrays JSON (their JSON text), bin a
 * STRING of its bytes, EventTime a NUMBER of seconds with a fraction. Not thread-safe: one per connection.
 *
 * <p><b>UTF-8.</b> msgpack does not promise that a str holds UTF-8. Every string written into the JSON payload or
 * the metadata (values, keys, bin written as text) is checked in the pass that copies or escapes it (ASCII costs
 * one compare per byte): an invalid sequence becomes U+FFFD (its maximal valid prefix is replaced, as the Unicode
 * standard recommends), and {@link #invalidUtf8()} counts the replacements. The output is always valid UTF-8.
 * The msgpack payload mode and a PayloadKey bin value pass bytes on as they came.
 *
 * <p><b>Memory.</b> Growth of the scratch buffers is asked of a {@link BufferAllowance} first (which may refuse,
 * ending the call with its exception; the caller undoes the message and may retry), and the payload about to be
 * copied into the message is announced to a {@link Charge}, so the caller can count it before it is allocated.
 */
final class RecordMapper {
    /** What becomes the payload. */
    enum PayloadMode {
        /** The record as a JSON object. */
        JSON,
        /** The record's msgpack bytes as received (fastest; producer.Forward sends them on as they are). */
        MSGPACK,
        /** Nothing: the record lives in the metadata only. */
        NONE
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};
    /** Eight bytes of an array at once, for the ASCII check. */
    private static final int OUT_INITIAL = 512;
    private static final int KEY_INITIAL = 64;
    /** Scratch capacity kept between frames; a bigger buffer (one large record) is let go by {@link #trim()}. */
    static final int KEEP_BYTES = 256 << 10;
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;
    /** Slack {@link JsonStrings#copyPlain} needs past the bytes it copies. */
    private static final int WORD = 8;

    /** Told the size of a payload before it is copied into the message. */
    interface Charge {
        /** May throw to refuse (the caller then drops the message). */
        void charge(long bytes);
    }

    private final PayloadMode mode;
    private final byte[] payloadKey;
    private final boolean metadata;
    private final byte[] metaPrefix;
    private byte[] metaKey = new byte[KEY_INITIAL];
    private byte[] out = new byte[OUT_INITIAL];
    private int pos;
    private byte[] buf;
    private int at;
    private BufferAllowance allowance = BufferAllowance.UNLIMITED;
    private Charge charge = bytes -> { };
    private long invalidUtf8;
    /** The record being mapped was written as JSON without a replacement: its strings are valid UTF-8. */
    private boolean recordValid;
    /**
     * Where each top-level entry of the record just written as JSON lies in {@link #out}, {@value #SPAN} ints per
     * entry (see {@link #writeRecordWithSpans}): the metadata then points into one copy of that JSON instead of
     * copying each key and value on its own.
     */
    private int[] spans = new int[SPANS_INITIAL];
    private int spanCount;
    /** {@link #spans} describe the record just written (every key was a string). */
    private boolean spansReady;
    /** Non-string map keys being written around the current position (see {@link #writeKey}). */
    private int keyNesting;
    private static final int SPAN = 8;
    private static final int SPANS_INITIAL = 16 * SPAN;
    private static final int SPAN_KEY = 0;
    private static final int SPAN_KEY_LEN = 1;
    private static final int SPAN_VALUE = 2;
    private static final int SPAN_VALUE_LEN = 3;
    private static final int SPAN_KIND = 4;
    /** Bit 0: the key's JSON text is its bytes (nothing escaped or replaced); bit 1: the string value has escapes. */
    private static final int SPAN_FLAGS = 5;
    /** The key's bytes in the record, for a key whose JSON text is not its bytes. */
    private static final int SPAN_RAW_KEY = 6;
    private static final int SPAN_RAW_KEY_LEN = 7;
    private static final int KEY_PLAIN = 1;
    private static final int VALUE_ESCAPED = 2;

    RecordMapper(PayloadMode mode, String payloadKey, boolean metadata) {
        this(mode, payloadKey, metadata, "");
    }

    /**
     * @param eventMetadataPrefix put before each v1.5 event metadata key in the message metadata; empty drops the
     *                            event metadata
     */
    RecordMapper(PayloadMode mode, String payloadKey, boolean metadata, String eventMetadataPrefix) {
        this.mode = mode;
        this.payloadKey = payloadKey == null || payloadKey.isEmpty() ? null : payloadKey.getBytes(StandardCharsets.UTF_8);
        this.metadata = metadata;
        this.metaPrefix = eventMetadataPrefix == null || eventMetadataPrefix.isEmpty() ? null
                : eventMetadataPrefix.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Whether the payload is the record's bytes whatever the record holds (msgpack mode, no PayloadKey): its size
     * is then known before mapping, and {@link Charge} is not told it.
     */
    boolean payloadIsRecord() {
        return mode == PayloadMode.MSGPACK && payloadKey == null;
    }

    /** Asks {@code allowance} before the scratch buffers grow; tells {@code charge} each payload's size. */
    void memory(BufferAllowance allowance, Charge charge) {
        this.allowance = allowance;
        this.charge = charge;
    }

    /** Invalid UTF-8 sequences replaced with U+FFFD so far. */
    long invalidUtf8() {
        return invalidUtf8;
    }

    /** Sets the count of replacements (a caller undoing an event it dropped puts the count back). */
    void invalidUtf8(long n) {
        invalidUtf8 = n;
    }

    /**
     * Lets go of scratch buffers (the JSON, a metadata key, the entry spans) that grew for one large record,
     * returning their growth to the allowance.
     */
    void trim() {
        if (out.length > KEEP_BYTES) {
            allowance.shrink(out.length - OUT_INITIAL);
            out = new byte[OUT_INITIAL];
        }
        if (metaKey.length > KEEP_BYTES) {
            allowance.shrink(metaKey.length - KEY_INITIAL);
            metaKey = new byte[KEY_INITIAL];
        }
        if (4L * spans.length > KEEP_BYTES) {
            allowance.shrink(4L * (spans.length - SPANS_INITIAL));
            spans = new int[SPANS_INITIAL];
        }
    }

    /** Fills {@code m}'s payload and metadata from the record at {@code record[off, off+len)}. */
    void map(byte[] record, int off, int len, Message m) {
        map(record, off, len, -1, 0, m);
    }

    /**
     * As {@link #map(byte[], int, int, Message)}, plus the event's v1.5 metadata map at {@code record[metaOff,
     * metaOff+metaLen)} ({@code metaOff} -1 when the event had none), which lives in the same array as the record.
     */
    void map(byte[] record, int off, int len, int metaOff, int metaLen, Message m) {
        recordValid = false;
        spansReady = false;
        boolean payloadDone = false;
        if (payloadKey != null) {
            payloadDone = payloadFromKey(record, off, m);
        }
        if (!payloadDone) {
            switch (mode) {
                case JSON -> {
                    pos = 0;
                    buf = record;
                    at = off;
                    long before = invalidUtf8;
                    if (metadata) {
                        writeRecordWithSpans();
                    } else {
                        writeJson();
                    }
                    // Writing the JSON checked every string of the record: none need checking again for metadata.
                    recordValid = invalidUtf8 == before;
                    charge.charge(pos);
                    m.setPayload(out, 0, pos);
                }
                case MSGPACK -> {
                    if (payloadKey != null) {
                        charge.charge(len); // without a PayloadKey the caller charged it with the event
                    }
                    m.setPayload(record, off, len);
                }
                case NONE -> m.setLength(0);
            }
        }
        if (metadata) {
            if (spansReady) {
                fieldsFromJson(record, len, m.metadata());
            } else {
                fieldsFromRecord(record, off, len, m.metadata());
            }
            recordValid = false; // the event metadata is another map, not written as JSON
            if (metaOff >= 0 && metaPrefix != null && metaLen > 1) {
                eventMetadata(record, metaOff, m.metadata());
            }
        }
    }

    /** Copies the v1.5 event metadata's top-level entries, each key behind the prefix. */
    private void eventMetadata(byte[] record, int off, Metadata md) {
        buf = record;
        at = off;
        int n = mapHeader();
        int p = metaPrefix.length;
        for (int i = 0; i < n; i++) {
            int kb = buf[at] & 0xff;
            int keyLen;
            if (isStr(kb) || isBin(kb)) {
                int raw = strLength(kb);
                byte[] src = buf;
                int from = at;
                keyLen = raw;
                if (!Utf8.isValid(buf, at, raw)) {
                    src = validCopy(buf, at, raw);
                    from = 0;
                    keyLen = src.length;
                }
                keyRoom(p + keyLen);
                System.arraycopy(src, from, metaKey, p, keyLen);
                at += raw;
            } else {
                pos = 0;
                writeJson();
                keyLen = pos;
                keyRoom(p + keyLen);
                System.arraycopy(out, 0, metaKey, p, keyLen);
            }
            System.arraycopy(metaPrefix, 0, metaKey, 0, p);
            setValue(md, metaKey, 0, p + keyLen);
        }
    }

    private void keyRoom(int n) {
        if (metaKey.length < n) {
            int cap = (int) Math.min(MAX_ARRAY, Math.max(n, metaKey.length * 2L));
            allowance.grow(cap - metaKey.length);
            metaKey = Arrays.copyOf(metaKey, cap);
        }
    }

    /** Sets the payload to the value of the configured key; false when the record lacks it. */
    private boolean payloadFromKey(byte[] record, int off, Message m) {
        buf = record;
        at = off;
        int n = mapHeader();
        for (int i = 0; i < n; i++) {
            boolean match = keyEquals(payloadKey);
            if (!match) {
                skipKeyThenValue();
                continue;
            }
            skip(); // the key
            int b = buf[at] & 0xff;
            if (isBin(b)) {
                int l = strLength(b);
                charge.charge(l);
                m.setPayload(buf, at, l); // bytes asked for as bytes
            } else if (isStr(b)) {
                int l = strLength(b);
                if (Utf8.isValid(buf, at, l)) {
                    charge.charge(l);
                    m.setPayload(buf, at, l);
                } else {
                    pos = 0;
                    writeUtf8(buf, at, l);
                    charge.charge(pos);
                    m.setPayload(out, 0, pos);
                }
            } else {
                pos = 0;
                writeJson();
                charge.charge(pos);
                m.setPayload(out, 0, pos);
            }
            return true;
        }
        return false;
    }

    private void skipKeyThenValue() {
        skip();
        skip();
    }

    private boolean keyEquals(byte[] key) {
        int save = at;
        int b = buf[at] & 0xff;
        if (!isStr(b) && !isBin(b)) {
            return false;
        }
        int l = strLength(b);
        boolean eq = l == key.length && Arrays.equals(buf, at, at + l, key, 0, l);
        at = save;
        return eq;
    }

    /**
     * Writes the record (a map) as JSON, as {@link #writeJson} does, noting where each entry's key and value text
     * lie in {@link #out}. A key or string value whose JSON text equals its bytes is most of them: the metadata
     * can then hold that text as it is. A non-string key (rare) leaves {@link #spansReady} false.
     */
    private void writeRecordWithSpans() {
        int n = mapHeader();
        spanCount = 0;
        boolean usable = true;
        put((byte) '{');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                put((byte) ',');
            }
            int kb = buf[at] & 0xff;
            if (!isStr(kb) && !isBin(kb)) {
                usable = false;
                writeKey();
                put((byte) ':');
                writeJson();
                continue;
            }
            int rawKeyLen = strLength(kb);
            int rawKey = at;
            put((byte) '"');
            int key = pos;
            escape(buf, at, rawKeyLen);
            at += rawKeyLen;
            int keyLen = pos - key;
            put((byte) '"');
            put((byte) ':');
            int vb = buf[at] & 0xff;
            int value;
            int flags = keyLen == rawKeyLen ? KEY_PLAIN : 0; // escapes and replacements only ever add bytes
            byte kind;
            if (isStr(vb) || isBin(vb)) {
                int l = strLength(vb);
                put((byte) '"');
                value = pos;
                escape(buf, at, l);
                at += l;
                if (pos - value != l) {
                    flags |= VALUE_ESCAPED; // escapes (or only replacements: unescaping those changes nothing)
                }
                kind = Metadata.STRING;
            } else {
                value = pos;
                kind = kindOf(vb);
                writeJson();
                if (kind == Metadata.NUMBER && out[value] == 'n') {
                    kind = Metadata.NULL; // NaN, infinities and extensions other than EventTime are written as null
                }
            }
            int valueLen = pos - value;
            if (kind == Metadata.STRING) {
                put((byte) '"');
            }
            span(key, keyLen, value, valueLen, kind, flags, rawKey, rawKeyLen);
        }
        put((byte) '}');
        spansReady = usable;
    }

    private void span(int key, int keyLen, int value, int valueLen, byte kind, int flags, int rawKey, int rawKeyLen) {
        int at = spanCount * SPAN;
        if (at + SPAN > spans.length) {
            allowance.grow(4L * spans.length);
            spans = Arrays.copyOf(spans, spans.length * 2);
        }
        spans[at + SPAN_KEY] = key;
        spans[at + SPAN_KEY_LEN] = keyLen;
        spans[at + SPAN_VALUE] = value;
        spans[at + SPAN_VALUE_LEN] = valueLen;
        spans[at + SPAN_KIND] = kind;
        spans[at + SPAN_FLAGS] = flags;
        spans[at + SPAN_RAW_KEY] = rawKey;
        spans[at + SPAN_RAW_KEY_LEN] = rawKeyLen;
        spanCount++;
    }

    /**
     * The top-level entries as metadata from the record's JSON ({@link #writeRecordWithSpans}): one copy of the
     * JSON into the metadata arena, then each field is a pair of ranges in it. String values keep their JSON
     * form (decoded on first read when they hold escapes, as fields parsed by format.JSON do); a key whose JSON
     * text is not its bytes is copied from the record instead, as it is (or with invalid UTF-8 replaced).
     */
    private void fieldsFromJson(byte[] record, int len, Metadata md) {
        charge.charge(Math.max(0, pos - len)); // the record's size was charged; its JSON may be longer
        int base = md.appendToArena(out, 0, pos);
        for (int i = 0; i < spanCount; i++) {
            int s = i * SPAN;
            int flags = spans[s + SPAN_FLAGS];
            int keyOff = base + spans[s + SPAN_KEY];
            int keyLen = spans[s + SPAN_KEY_LEN];
            if ((flags & KEY_PLAIN) == 0) {
                int raw = spans[s + SPAN_RAW_KEY];
                int rawLen = spans[s + SPAN_RAW_KEY_LEN];
                if (Utf8.isValid(record, raw, rawLen)) {
                    keyOff = md.appendToArena(record, raw, rawLen);
                    keyLen = rawLen;
                } else {
                    byte[] key = validCopy(record, raw, rawLen);
                    keyOff = md.appendToArena(key, 0, key.length);
                    keyLen = key.length;
                }
            }
            md.setRange(keyOff, keyLen, (flags & KEY_PLAIN) != 0, base + spans[s + SPAN_VALUE],
                    spans[s + SPAN_VALUE_LEN], (byte) spans[s + SPAN_KIND], (flags & VALUE_ESCAPED) != 0);
        }
    }

    /** The metadata kind of a value that is not a string, from its first byte. */
    private static byte kindOf(int b) {
        if (b == 0xc0) {
            return Metadata.NULL;
        }
        if (b == 0xc2 || b == 0xc3) {
            return Metadata.BOOLEAN;
        }
        return isInt(b) || b == 0xca || b == 0xcb || isExt(b) ? Metadata.NUMBER : Metadata.JSON;
    }

    /**
     * The top-level entries as metadata when the payload is not the record's JSON: one copy of the record into
     * the metadata arena, then each string key and value is a range of it (decoded bytes, as msgpack holds them),
     * and the other values' JSON text is appended. A key or value that is not valid UTF-8, or a non-string key,
     * takes the field-by-field path ({@link #setValue}), and so does every entry after it (that path may move the
     * arena's bytes).
     */
    private void fieldsFromRecord(byte[] record, int off, int len, Metadata md) {
        int base = md.appendToArena(record, off, len) - off;
        buf = record;
        at = off;
        int n = mapHeader();
        boolean ranges = true;
        for (int i = 0; i < n; i++) {
            int kb = buf[at] & 0xff;
            if (ranges && (isStr(kb) || isBin(kb))) {
                int save = at;
                int keyLen = strLength(kb);
                int key = at;
                if (recordValid || Utf8.isValid(buf, key, keyLen)) {
                    at += keyLen;
                    if (rangeValue(md, base, key, keyLen)) {
                        continue;
                    }
                }
                at = save;
                ranges = false;
            }
            ranges = false;
            field(md);
        }
    }

    /**
     * Sets the value at {@code at} under the key at {@code record[key, key+keyLen)} as ranges of the arena's copy
     * of the record ({@code base} + record index); false, with nothing set, for a string that is not valid UTF-8.
     */
    private boolean rangeValue(Metadata md, int base, int key, int keyLen) {
        int b = buf[at] & 0xff;
        if (isStr(b) || isBin(b)) {
            int save = at;
            int l = strLength(b);
            if (!recordValid && !Utf8.isValid(buf, at, l)) {
                at = save;
                return false;
            }
            md.setDecodedRange(base + key, keyLen, base + at, l, Metadata.STRING);
            at += l;
            return true;
        }
        byte kind = kindOf(b);
        if (kind == Metadata.NULL || kind == Metadata.BOOLEAN) {
            at++;
            byte[] v = b == 0xc0 ? NULL : b == 0xc3 ? TRUE : FALSE;
            md.setDecodedRange(base + key, keyLen, md.appendToArena(v, 0, v.length), v.length, kind);
            return true;
        }
        pos = 0;
        writeJson();
        charge.charge(pos); // JSON text can be longer than the msgpack it came from
        if (kind == Metadata.NUMBER && out[0] == 'n') {
            kind = Metadata.NULL; // NaN, infinities and extensions other than EventTime are written as null
        }
        md.setDecodedRange(base + key, keyLen, md.appendToArena(out, 0, pos), pos, kind);
        return true;
    }

    /** Copies the entry at {@code at} into metadata, key and value each on their own. */
    private void field(Metadata md) {
        int kb = buf[at] & 0xff;
        if (isStr(kb) || isBin(kb)) {
            int keyLen = strLength(kb);
            int keyOff = at;
            at += keyLen;
            if (recordValid || Utf8.isValid(buf, keyOff, keyLen)) {
                setValue(md, buf, keyOff, keyLen);
            } else {
                byte[] key = validCopy(buf, keyOff, keyLen);
                setValue(md, key, 0, key.length);
            }
        } else {
            // A non-string key (rare, allowed by msgpack): its JSON text is the field name.
            pos = 0;
            writeJson();
            byte[] key = Arrays.copyOf(out, pos);
            setValue(md, key, 0, key.length);
        }
    }

    /** Reads the value at {@code at} and stores it under the key {@code key[ko, ko+kl)}. */
    private void setValue(Metadata md, byte[] key, int ko, int kl) {
        int b = buf[at] & 0xff;
        if (isStr(b) || isBin(b)) {
            int l = strLength(b);
            if (recordValid || Utf8.isValid(buf, at, l)) {
                md.set(key, ko, kl, buf, at, l, Metadata.STRING);
            } else {
                pos = 0;
                writeUtf8(buf, at, l);
                md.set(key, ko, kl, out, 0, pos, Metadata.STRING);
            }
            at += l;
            return;
        }
        if (b == 0xc0) {
            at++;
            md.set(key, ko, kl, NULL, 0, 4, Metadata.NULL);
            return;
        }
        if (b == 0xc2 || b == 0xc3) {
            at++;
            byte[] v = b == 0xc3 ? TRUE : FALSE;
            md.set(key, ko, kl, v, 0, v.length, Metadata.BOOLEAN);
            return;
        }
        // Numbers, maps, arrays and ext go through the JSON writer.
        pos = 0;
        byte kind = kindOf(b);
        writeJson();
        charge.charge(pos); // JSON text can be longer than the msgpack it came from
        if (kind == Metadata.NUMBER && out[0] == 'n') {
            kind = Metadata.NULL; // NaN, infinities and extensions other than EventTime are written as null
        }
        md.set(key, ko, kl, out, 0, pos, kind);
    }

    // ---- JSON writer ----

    private void writeJson() {
        int b = buf[at] & 0xff;
        if (b <= 0x7f) {
            at++;
            writeLong(b);
        } else if (b >= 0xe0) {
            at++;
            writeLong((byte) b);
        } else if (b <= 0x8f) {
            at++;
            writeMap(b & 0x0f);
        } else if (b <= 0x9f) {
            at++;
            writeArray(b & 0x0f);
        } else if (b <= 0xbf) {
            writeStr(strLength(b));
        } else {
            switch (b) {
                case 0xc0 -> {
                    at++;
                    raw(NULL);
                }
                case 0xc2 -> {
                    at++;
                    raw(FALSE);
                }
                case 0xc3 -> {
                    at++;
                    raw(TRUE);
                }
                case 0xc4, 0xc5, 0xc6, 0xd9, 0xda, 0xdb -> writeStr(strLength(b));
                case 0xca -> {
                    at++;
                    writeDouble(Float.intBitsToFloat(int32()));
                }
                case 0xcb -> {
                    at++;
                    writeDouble(Double.longBitsToDouble(int64()));
                }
                case 0xcc -> {
                    at++;
                    writeLong(u8());
                }
                case 0xcd -> {
                    at++;
                    writeLong(u16());
                }
                case 0xce -> {
                    at++;
                    writeLong(int32() & 0xffffffffL);
                }
                case 0xcf -> {
                    at++;
                    long v = int64();
                    if (v >= 0) {
                        writeLong(v);
                    } else {
                        ascii(Long.toUnsignedString(v));
                    }
                }
                case 0xd0 -> {
                    at++;
                    writeLong((byte) u8());
                }
                case 0xd1 -> {
                    at++;
                    writeLong((short) u16());
                }
                case 0xd2 -> {
                    at++;
                    writeLong(int32());
                }
                case 0xd3 -> {
                    at++;
                    writeLong(int64());
                }
                case 0xdc -> {
                    at++;
                    writeArray(u16());
                }
                case 0xdd -> {
                    at++;
                    writeArray(int32());
                }
                case 0xde -> {
                    at++;
                    writeMap(u16());
                }
                case 0xdf -> {
                    at++;
                    writeMap(int32());
                }
                default -> writeExt(b);
            }
        }
    }

    private void writeMap(int n) {
        put((byte) '{');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                put((byte) ',');
            }
            writeKey();
            put((byte) ':');
            writeJson();
        }
        put((byte) '}');
    }

    /** Writes a map key: a string as it is; any other value's JSON text as a string (JSON keys are strings). */
    private void writeKey() {
        int b = buf[at] & 0xff;
        if (isStr(b) || isBin(b)) {
            writeStr(strLength(b));
            return;
        }
        int start = pos;
        keyNesting++;
        writeJson();
        keyNesting--;
        int len = pos - start;
        byte[] text = Arrays.copyOfRange(out, start, start + len);
        pos = start;
        put((byte) '"');
        if (keyNesting == 0) {
            escape(text, 0, len);
        } else {
            // Inside another non-string key, whose whole text is escaped once when it is written: escaping here
            // too would double every backslash at each level, JSON exponential in the nesting (a 100-byte record,
            // gigabytes of output and minutes of CPU).
            ensure(len);
            System.arraycopy(text, 0, out, pos, len);
            pos += len;
        }
        put((byte) '"');
    }

    private void writeArray(int n) {
        put((byte) '[');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                put((byte) ',');
            }
            writeJson();
        }
        put((byte) ']');
    }

    /** Writes the string whose bytes start at {@code at} (header already consumed by strLength). */
    private void writeStr(int len) {
        put((byte) '"');
        escape(buf, at, len);
        at += len;
        put((byte) '"');
    }

    /**
     * Writes {@code src[off, off+len)} as JSON string contents: quotes, backslashes and control characters escaped,
     * UTF-8 checked in the same pass (an ASCII byte costs the compares it always did).
     */
    private void escape(byte[] src, int off, int len) {
        // Room for the rest of the input plus a word at every step: copyPlain stores whole words.
        ensure(len + WORD);
        int end = off + len;
        int i = off;
        while (i < end) {
            // Most text needs no escaping: copy the plain run eight bytes at a time.
            int plain = JsonStrings.copyPlain(src, i, end, out, pos);
            pos += plain - i;
            i = plain;
            if (i == end) {
                return;
            }
            byte c = src[i];
            if (c < 0) {
                i = copyUtf8(src, i, end);
            } else if (c == '"' || c == '\\') {
                ensure(2 + end - i + WORD);
                out[pos++] = '\\';
                out[pos++] = c;
                i++;
            } else {
                ensure(6 + end - i + WORD);
                switch (c) {
                    case '\n' -> {
                        out[pos++] = '\\';
                        out[pos++] = 'n';
                    }
                    case '\r' -> {
                        out[pos++] = '\\';
                        out[pos++] = 'r';
                    }
                    case '\t' -> {
                        out[pos++] = '\\';
                        out[pos++] = 't';
                    }
                    default -> {
                        out[pos++] = '\\';
                        out[pos++] = 'u';
                        out[pos++] = '0';
                        out[pos++] = '0';
                        out[pos++] = HEX[c >> 4];
                        out[pos++] = HEX[c & 0xf];
                    }
                }
                i++;
            }
        }
    }

    /** Writes {@code src[off, off+len)} with invalid UTF-8 replaced, nothing escaped (a metadata value). */
    private void writeUtf8(byte[] src, int off, int len) {
        ensure(len);
        int end = off + len;
        int i = off;
        while (i < end) {
            if (src[i] >= 0) {
                out[pos++] = src[i++];
            } else {
                i = copyUtf8(src, i, end);
            }
        }
    }

    /** A copy of {@code src[off, off+len)} with invalid UTF-8 replaced (a key; only when it was invalid). */
    private byte[] validCopy(byte[] src, int off, int len) {
        int save = pos;
        pos = 0;
        writeUtf8(src, off, len);
        byte[] copy = Arrays.copyOf(out, pos);
        pos = save;
        return copy;
    }

    /**
     * Copies the UTF-8 sequence that starts with the non-ASCII byte {@code src[i]}, or writes U+FFFD for it when
     * it is invalid; returns where the next character starts. Room for the bytes copied was ensured by the caller.
     */
    private int copyUtf8(byte[] src, int i, int end) {
        int n = Utf8.sequence(src, i, end);
        if (n > 0) {
            for (int k = 0; k < n; k++) {
                out[pos++] = src[i + k];
            }
            return i + n;
        }
        invalidUtf8++;
        ensure(Utf8.REPLACEMENT.length + end - i + WORD);
        out[pos++] = Utf8.REPLACEMENT[0];
        out[pos++] = Utf8.REPLACEMENT[1];
        out[pos++] = Utf8.REPLACEMENT[2];
        return i - n;
    }

    /** EventTime becomes seconds with a fraction; other extensions have no JSON form and become null. */
    private void writeExt(int b) {
        at++;
        int len;
        switch (b) {
            case 0xd4 -> len = 1;
            case 0xd5 -> len = 2;
            case 0xd6 -> len = 4;
            case 0xd7 -> len = 8;
            case 0xd8 -> len = 16;
            case 0xc7 -> len = u8();
            case 0xc8 -> len = u16();
            case 0xc9 -> len = int32();
            default -> {
                // 0xc1 never gets here: the decoder refused it.
                raw(NULL);
                return;
            }
        }
        int type = buf[at++];
        if (type == 0 && len == 8) {
            long sec = int32() & 0xffffffffL;
            long ns = int32() & 0xffffffffL;
            writeLong(sec);
            put((byte) '.');
            String frac = Long.toString(1_000_000_000L + ns);
            ascii(frac.substring(1));
        } else {
            at += len;
            raw(NULL);
        }
    }

    private void writeLong(long v) {
        ensure(Decimal.MAX_LONG);
        pos = Decimal.putLong(out, pos, v);
    }

    private void writeDouble(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            raw(NULL);
            return;
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            writeLong((long) d);
            put((byte) '.');
            put((byte) '0');
            return;
        }
        ascii(Double.toString(d));
    }

    // ---- msgpack primitives ----

    private static boolean isStr(int b) {
        return (b >= 0xa0 && b <= 0xbf) || b == 0xd9 || b == 0xda || b == 0xdb;
    }

    private static boolean isBin(int b) {
        return b == 0xc4 || b == 0xc5 || b == 0xc6;
    }

    private static boolean isInt(int b) {
        return b <= 0x7f || b >= 0xe0 || (b >= 0xcc && b <= 0xd3);
    }

    private static boolean isExt(int b) {
        return b == 0xc7 || b == 0xc8 || b == 0xc9 || (b >= 0xd4 && b <= 0xd8);
    }

    /** Consumes a str/bin header and returns the byte length; {@code at} is then on the first byte. */
    private int strLength(int b) {
        at++;
        if (b >= 0xa0 && b <= 0xbf) {
            return b & 0x1f;
        }
        return switch (b) {
            case 0xd9, 0xc4 -> u8();
            case 0xda, 0xc5 -> u16();
            default -> int32();
        };
    }

    private int mapHeader() {
        int b = buf[at++] & 0xff;
        if ((b & 0xf0) == 0x80) {
            return b & 0x0f;
        }
        return b == 0xde ? u16() : int32();
    }

    /**
     * Skips one value (trusting lengths: the decoder validated the record). Lengths are read into a local before
     * {@code at} moves: {@code at += u8()} would add to the value of {@code at} from before u8 advanced it.
     */
    private void skip() {
        int pending = 1;
        while (pending-- > 0) {
            int b = buf[at] & 0xff;
            if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) {
                at++;
            } else if (b <= 0x8f) {
                at++;
                pending += 2 * (b & 0x0f);
            } else if (b <= 0x9f) {
                at++;
                pending += b & 0x0f;
            } else if (isStr(b) || isBin(b)) {
                int len = strLength(b);
                at += len;
            } else {
                at++;
                int n;
                switch (b) {
                    case 0xca -> at += 4;
                    case 0xcb -> at += 8;
                    case 0xcc, 0xd0 -> at += 1;
                    case 0xcd, 0xd1 -> at += 2;
                    case 0xce, 0xd2 -> at += 4;
                    case 0xcf, 0xd3 -> at += 8;
                    case 0xd4 -> at += 2;
                    case 0xd5 -> at += 3;
                    case 0xd6 -> at += 5;
                    case 0xd7 -> at += 9;
                    case 0xd8 -> at += 17;
                    case 0xc7 -> {
                        n = u8();
                        at += n + 1;
                    }
                    case 0xc8 -> {
                        n = u16();
                        at += n + 1;
                    }
                    case 0xc9 -> {
                        n = int32();
                        at += n + 1;
                    }
                    case 0xdc -> pending += u16();
                    case 0xdd -> pending += int32();
                    case 0xde -> pending += 2 * u16();
                    case 0xdf -> pending += 2 * int32();
                    default -> {
                        // 0xc1 never gets here: the decoder refused it.
                    }
                }
            }
        }
    }

    private int u8() {
        return buf[at++] & 0xff;
    }

    private int u16() {
        int v = ((buf[at] & 0xff) << 8) | (buf[at + 1] & 0xff);
        at += 2;
        return v;
    }

    private int int32() {
        int v = ((buf[at] & 0xff) << 24) | ((buf[at + 1] & 0xff) << 16) | ((buf[at + 2] & 0xff) << 8) | (buf[at + 3] & 0xff);
        at += 4;
        return v;
    }

    private long int64() {
        long hi = int32() & 0xffffffffL;
        long lo = int32() & 0xffffffffL;
        return (hi << 32) | lo;
    }

    // ---- output ----

    private void ensure(int n) {
        if (pos + n > out.length) {
            grow(n);
        }
    }

    /** Grows the output buffer, asking the allowance first: a record whose JSON would not fit is refused. */
    private void grow(int n) {
        long need = (long) pos + n;
        if (need > MAX_ARRAY) {
            throw new OverBudgetException("a record whose JSON needs more than " + MAX_ARRAY + " bytes");
        }
        int cap = (int) Math.min(MAX_ARRAY, Math.max(need, out.length * 2L));
        allowance.grow(cap - out.length);
        out = Arrays.copyOf(out, cap);
    }

    private void put(byte b) {
        ensure(1);
        out[pos++] = b;
    }

    private void raw(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, out, pos, b.length);
        pos += b.length;
    }

    private void ascii(String s) {
        ensure(s.length());
        for (int i = 0; i < s.length(); i++) {
            out[pos++] = (byte) s.charAt(i);
        }
    }
}
