package io.sluice.forward.consumer;

import static io.sluice.forward.consumer.MsgPackCursor.isBin;
import static io.sluice.forward.consumer.MsgPackCursor.isStr;
import static io.sluice.forward.consumer.MsgPackCursor.kindOf;

import io.sluice.core.json.Utf8;
import io.sluice.core.message.Metadata;
import java.util.Arrays;

/**
 * A record written as JSON together with where each top-level entry's key and value lie in that JSON, so that the
 * metadata can point into one copy of the JSON (the payload) instead of copying each key and value on its own:
 * what {@link RecordMapper} does when both the JSON payload and the record's fields are asked for. Shares the
 * mapper's {@link MsgPackJson}; not thread-safe.
 */
final class RecordSpans {
    /** Ints per entry in {@link #spans}. */
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

    private final MsgPackJson json;
    /** Where each top-level entry of the record just written lies in the JSON, {@value #SPAN} ints per entry. */
    private int[] spans = new int[SPANS_INITIAL];
    private int spanCount;

    RecordSpans(MsgPackJson json) {
        this.json = json;
    }

    /** Lets go of a span table that grew past {@code keep} bytes for one record of many fields. */
    void trim(int keep) {
        if (4L * spans.length > keep) {
            json.allowance.shrink(4L * (spans.length - SPANS_INITIAL));
            spans = new int[SPANS_INITIAL];
        }
    }

    /**
     * Writes the record (a map) at the cursor as JSON, as {@link MsgPackJson#writeJson} does, noting where each
     * entry's key and value text lie in the output. A key or string value whose JSON text equals its bytes is most
     * of them: the metadata can then hold that text as it is.
     *
     * @return whether the spans describe the record: false for a record with a non-string key (rare)
     */
    boolean write() {
        int n = json.mapHeader();
        spanCount = 0;
        boolean usable = true;
        json.put((byte) '{');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                json.put((byte) ',');
            }
            int kb = json.buf[json.at] & 0xff;
            if (!isStr(kb) && !isBin(kb)) {
                usable = false;
                json.writeKey();
                json.put((byte) ':');
                json.writeJson();
                continue;
            }
            int rawKeyLen = json.strLength(kb);
            int rawKey = json.at;
            json.put((byte) '"');
            int key = json.pos;
            json.escape(json.buf, json.at, rawKeyLen);
            json.at += rawKeyLen;
            int keyLen = json.pos - key;
            json.put((byte) '"');
            json.put((byte) ':');
            int vb = json.buf[json.at] & 0xff;
            int value;
            int flags = keyLen == rawKeyLen ? KEY_PLAIN : 0; // escapes and replacements only ever add bytes
            byte kind;
            if (isStr(vb) || isBin(vb)) {
                int l = json.strLength(vb);
                json.put((byte) '"');
                value = json.pos;
                json.escape(json.buf, json.at, l);
                json.at += l;
                if (json.pos - value != l) {
                    flags |= VALUE_ESCAPED; // escapes (or only replacements: unescaping those changes nothing)
                }
                kind = Metadata.STRING;
            } else {
                value = json.pos;
                kind = kindOf(vb);
                json.writeJson();
                if (kind == Metadata.NUMBER && json.out[value] == 'n') {
                    kind = Metadata.NULL; // NaN, infinities and extensions other than EventTime are written as null
                }
            }
            int valueLen = json.pos - value;
            if (kind == Metadata.STRING) {
                json.put((byte) '"');
            }
            span(key, keyLen, value, valueLen, kind, flags, rawKey, rawKeyLen);
        }
        json.put((byte) '}');
        return usable;
    }

    private void span(int key, int keyLen, int value, int valueLen, byte kind, int flags, int rawKey, int rawKeyLen) {
        int at = spanCount * SPAN;
        if (at + SPAN > spans.length) {
            json.allowance.grow(4L * spans.length);
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
     * The top-level entries as metadata from the record's JSON ({@link #write}, which the output still holds): one
     * copy of the
     * JSON into the metadata arena, then each field is a pair of ranges in it. String values keep their
     * JSON form (decoded on first read when they hold escapes, as fields parsed by format.JSON do); a key whose JSON
     * text is not its bytes is copied from the record instead, as it is (or with invalid UTF-8 replaced).
     */
    void toMetadata(byte[] record, int len, Metadata md, RecordMapper.Charge charge) {
        charge.charge(Math.max(0, json.pos - len)); // the record's size was charged; its JSON may be longer
        int base = md.appendToArena(json.out, 0, json.pos);
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
                    byte[] key = json.validCopy(record, raw, rawLen);
                    keyOff = md.appendToArena(key, 0, key.length);
                    keyLen = key.length;
                }
            }
            md.setRange(keyOff, keyLen, (flags & KEY_PLAIN) != 0, base + spans[s + SPAN_VALUE],
                    spans[s + SPAN_VALUE_LEN], (byte) spans[s + SPAN_KIND], (flags & VALUE_ESCAPED) != 0);
        }
    }
}
