package io.sluice.forward.consumer;

import static io.sluice.forward.consumer.MsgPackJson.FALSE;
import static io.sluice.forward.consumer.MsgPackJson.MAX_ARRAY;
import static io.sluice.forward.consumer.MsgPackJson.NULL;
import static io.sluice.forward.consumer.MsgPackJson.TRUE;
import static io.sluice.forward.consumer.MsgPackCursor.isBin;
import static io.sluice.forward.consumer.MsgPackCursor.isStr;
import static io.sluice.forward.consumer.MsgPackCursor.kindOf;

import io.sluice.core.json.Utf8;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
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
// Just over 400 lines: payload and metadata mapping share the per-record walk; the msgpack reads, the JSON
// writing and the JSON-backed metadata are in MsgPackCursor, MsgPackJson and RecordSpans.
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

    private static final int KEY_INITIAL = 64;
    /** Scratch capacity kept between frames; a bigger buffer (one large record) is let go by {@link #trim()}. */
    static final int KEEP_BYTES = 256 << 10;

    /** Told the size of a payload before it is copied into the message. */
    interface Charge {
        /** May throw to refuse (the caller then drops the message). */
        void charge(long bytes);
    }

    private final PayloadMode mode;
    private final byte[] payloadKey;
    private final boolean metadata;
    private final byte[] metaPrefix;
    /** The msgpack cursor and the JSON written: the payload, or a metadata value's text. */
    private final MsgPackJson json = new MsgPackJson();
    /** Where the entries of a record written as JSON lie in it, for metadata that points into the payload. */
    private final RecordSpans spans = new RecordSpans(json);
    private byte[] metaKey = new byte[KEY_INITIAL];
    private Charge charge = bytes -> { };
    /** The record being mapped was written as JSON without a replacement: its strings are valid UTF-8. */
    private boolean recordValid;

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
        json.allowance = allowance;
        this.charge = charge;
    }

    /** Invalid UTF-8 sequences replaced with U+FFFD so far. */
    long invalidUtf8() {
        return json.invalidUtf8;
    }

    /** Sets the count of replacements (a caller undoing an event it dropped puts the count back). */
    void invalidUtf8(long n) {
        json.invalidUtf8 = n;
    }

    /**
     * Lets go of scratch buffers (the JSON, a metadata key, the entry spans) that grew for one large record,
     * returning their growth to the allowance.
     */
    void trim() {
        json.trim(KEEP_BYTES);
        if (metaKey.length > KEEP_BYTES) {
            json.allowance.shrink(metaKey.length - KEY_INITIAL);
            metaKey = new byte[KEY_INITIAL];
        }
        spans.trim(KEEP_BYTES);
    }

    /**
     * Fills {@code m}'s payload and metadata from the record at {@code record[off, off+len)}, and from the event's
     * v1.5 metadata map at {@code record[metaOff, metaOff+metaLen)} ({@code metaOff} -1 when the event had none),
     * which lives in the same array as the record.
     */
    void map(byte[] record, int off, int len, int metaOff, int metaLen, Message m) {
        recordValid = false;
        boolean spansReady = false;
        boolean payloadDone = false;
        if (payloadKey != null) {
            payloadDone = payloadFromKey(record, off, m);
        }
        if (!payloadDone) {
            switch (mode) {
                case JSON -> {
                    json.pos = 0;
                    json.buf = record;
                    json.at = off;
                    long before = json.invalidUtf8;
                    if (metadata) {
                        spansReady = spans.write();
                    } else {
                        json.writeJson();
                    }
                    // Writing the JSON checked every string of the record: none need checking again for metadata.
                    recordValid = json.invalidUtf8 == before;
                    charge.charge(json.pos);
                    m.setPayload(json.out, 0, json.pos);
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
                spans.toMetadata(record, len, m.metadata(), charge);
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
        json.buf = record;
        json.at = off;
        int n = json.mapHeader();
        int p = metaPrefix.length;
        for (int i = 0; i < n; i++) {
            int kb = json.buf[json.at] & 0xff;
            int keyLen;
            if (isStr(kb) || isBin(kb)) {
                int raw = json.strLength(kb);
                byte[] src = json.buf;
                int from = json.at;
                keyLen = raw;
                if (!Utf8.isValid(json.buf, json.at, raw)) {
                    src = json.validCopy(json.buf, json.at, raw);
                    from = 0;
                    keyLen = src.length;
                }
                keyRoom(p + keyLen);
                System.arraycopy(src, from, metaKey, p, keyLen);
                json.at += raw;
            } else {
                json.pos = 0;
                json.writeJson();
                keyLen = json.pos;
                keyRoom(p + keyLen);
                System.arraycopy(json.out, 0, metaKey, p, keyLen);
            }
            System.arraycopy(metaPrefix, 0, metaKey, 0, p);
            setValue(md, metaKey, 0, p + keyLen);
        }
    }

    private void keyRoom(int n) {
        if (metaKey.length < n) {
            int cap = (int) Math.min(MAX_ARRAY, Math.max(n, metaKey.length * 2L));
            json.allowance.grow(cap - metaKey.length);
            metaKey = Arrays.copyOf(metaKey, cap);
        }
    }

    /** Sets the payload to the value of the configured key; false when the record lacks it. */
    private boolean payloadFromKey(byte[] record, int off, Message m) {
        json.buf = record;
        json.at = off;
        int n = json.mapHeader();
        for (int i = 0; i < n; i++) {
            boolean match = keyEquals(payloadKey);
            if (!match) {
                json.skip(); // the key, then its value
                json.skip();
                continue;
            }
            json.skip(); // the key
            int b = json.buf[json.at] & 0xff;
            if (isBin(b)) {
                int l = json.strLength(b);
                charge.charge(l);
                m.setPayload(json.buf, json.at, l); // bytes asked for as bytes
            } else if (isStr(b)) {
                int l = json.strLength(b);
                if (Utf8.isValid(json.buf, json.at, l)) {
                    charge.charge(l);
                    m.setPayload(json.buf, json.at, l);
                } else {
                    json.pos = 0;
                    json.writeUtf8(json.buf, json.at, l);
                    charge.charge(json.pos);
                    m.setPayload(json.out, 0, json.pos);
                }
            } else {
                json.pos = 0;
                json.writeJson();
                charge.charge(json.pos);
                m.setPayload(json.out, 0, json.pos);
            }
            return true;
        }
        return false;
    }

    private boolean keyEquals(byte[] key) {
        int save = json.at;
        int b = json.buf[json.at] & 0xff;
        if (!isStr(b) && !isBin(b)) {
            return false;
        }
        int l = json.strLength(b);
        boolean eq = l == key.length && Arrays.equals(json.buf, json.at, json.at + l, key, 0, l);
        json.at = save;
        return eq;
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
        json.buf = record;
        json.at = off;
        int n = json.mapHeader();
        boolean ranges = true;
        for (int i = 0; i < n; i++) {
            int kb = json.buf[json.at] & 0xff;
            if (ranges && (isStr(kb) || isBin(kb))) {
                int save = json.at;
                int keyLen = json.strLength(kb);
                int key = json.at;
                if (recordValid || Utf8.isValid(json.buf, key, keyLen)) {
                    json.at += keyLen;
                    if (rangeValue(md, base, key, keyLen)) {
                        continue;
                    }
                }
                json.at = save;
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
        int b = json.buf[json.at] & 0xff;
        if (isStr(b) || isBin(b)) {
            int save = json.at;
            int l = json.strLength(b);
            if (!recordValid && !Utf8.isValid(json.buf, json.at, l)) {
                json.at = save;
                return false;
            }
            md.setDecodedRange(base + key, keyLen, base + json.at, l, Metadata.STRING);
            json.at += l;
            return true;
        }
        byte kind = kindOf(b);
        if (kind == Metadata.NULL || kind == Metadata.BOOLEAN) {
            json.at++;
            byte[] v = b == 0xc0 ? NULL : b == 0xc3 ? TRUE : FALSE;
            md.setDecodedRange(base + key, keyLen, md.appendToArena(v, 0, v.length), v.length, kind);
            return true;
        }
        json.pos = 0;
        json.writeJson();
        charge.charge(json.pos); // JSON text can be longer than the msgpack it came from
        if (kind == Metadata.NUMBER && json.out[0] == 'n') {
            kind = Metadata.NULL; // NaN, infinities and extensions other than EventTime are written as null
        }
        md.setDecodedRange(base + key, keyLen, md.appendToArena(json.out, 0, json.pos), json.pos, kind);
        return true;
    }

    /** Copies the entry at {@code at} into metadata, key and value each on their own. */
    private void field(Metadata md) {
        int kb = json.buf[json.at] & 0xff;
        if (isStr(kb) || isBin(kb)) {
            int keyLen = json.strLength(kb);
            int keyOff = json.at;
            json.at += keyLen;
            if (recordValid || Utf8.isValid(json.buf, keyOff, keyLen)) {
                setValue(md, json.buf, keyOff, keyLen);
            } else {
                byte[] key = json.validCopy(json.buf, keyOff, keyLen);
                setValue(md, key, 0, key.length);
            }
        } else {
            // A non-string key (rare, allowed by msgpack): its JSON text is the field name.
            json.pos = 0;
            json.writeJson();
            byte[] key = Arrays.copyOf(json.out, json.pos);
            setValue(md, key, 0, key.length);
        }
    }

    /** Reads the value at {@code at} and stores it under the key {@code key[ko, ko+kl)}. */
    private void setValue(Metadata md, byte[] key, int ko, int kl) {
        int b = json.buf[json.at] & 0xff;
        if (isStr(b) || isBin(b)) {
            int l = json.strLength(b);
            if (recordValid || Utf8.isValid(json.buf, json.at, l)) {
                md.set(key, ko, kl, json.buf, json.at, l, Metadata.STRING);
            } else {
                json.pos = 0;
                json.writeUtf8(json.buf, json.at, l);
                md.set(key, ko, kl, json.out, 0, json.pos, Metadata.STRING);
            }
            json.at += l;
            return;
        }
        byte kind = kindOf(b);
        if (kind == Metadata.NULL || kind == Metadata.BOOLEAN) {
            json.at++;
            byte[] v = b == 0xc0 ? NULL : b == 0xc3 ? TRUE : FALSE;
            md.set(key, ko, kl, v, 0, v.length, kind);
            return;
        }
        // Numbers, maps, arrays and ext go through the JSON writer.
        json.pos = 0;
        json.writeJson();
        charge.charge(json.pos); // JSON text can be longer than the msgpack it came from
        if (kind == Metadata.NUMBER && json.out[0] == 'n') {
            kind = Metadata.NULL; // NaN, infinities and extensions other than EventTime are written as null
        }
        md.set(key, ko, kl, json.out, 0, json.pos, kind);
    }
}
