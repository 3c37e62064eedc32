package io.sluice.otlp.codec;

import io.sluice.core.json.JsonWriter;

/**
 * Reads common/v1 {@code KeyValue} and {@code AnyValue} from protobuf into metadata fields and JSON, as OtlpFields
 * spells them. Arrays and key-value lists recurse, at most {@code maxDepth} levels deep: deeper input is rejected
 * before the thread stack could run out. Strings (keys and values) must be valid UTF-8, as protobuf requires.
 */
final class ProtoValues {
    /** The AnyValue oneof's field numbers. */
    static final int STRING = 1;
    static final int BOOL = 2;
    static final int INT = 3;
    static final int DOUBLE = 4;
    static final int ARRAY = 5;
    static final int KVLIST = 6;
    static final int BYTES = 7;

    private final ProtoReader in;
    private final int maxDepth;
    private final JsonWriter json = new JsonWriter();
    private final ValueText.Json text = new ValueText.Json();
    /** The attribute keys of the records read last, with their hashes. */
    private final KeyHashCache keys = new KeyHashCache();

    // The AnyValue just read by readAnyValue: its oneof field (0: empty) and its value.
    private int type;
    private long bits;
    private int valueOff;
    private int valueLen;
    // The KeyValue just read by readKeyValue.
    private int keyOff;
    private int keyLen;
    private int anyOff;
    private int anyLen;

    /** The deepest nesting a decoder may be asked to accept: {@link JsonWriter} tracks 64 levels. */
    static final int MAX_DEPTH = 64;

    /** Values nested up to {@code maxDepth} levels deep (1 to {@link #MAX_DEPTH}). */
    ProtoValues(ProtoReader in, int maxDepth) {
        if (maxDepth < 1 || maxDepth > MAX_DEPTH) {
            throw new IllegalArgumentException("maxDepth must be between 1 and " + MAX_DEPTH + ": " + maxDepth);
        }
        this.in = in;
        this.maxDepth = maxDepth;
    }

    /** The JSON writer the decoders share for nested values (reset before each use). */
    JsonWriter json() {
        return json;
    }

    /** The spellings of values in JSON, with a scratch buffer. */
    ValueText.Json text() {
        return text;
    }

    /** Reads a length-delimited string field (tag already read) and returns its offset; its length is {@link #lastLength}. */
    int readString(int tag) throws OtlpFormatException {
        int off = readBytes(tag);
        in.checkUtf8(off, lastLength);
        return off;
    }

    /** Reads a length-delimited bytes field (tag already read) and returns its offset; see {@link #lastLength}. */
    int readBytes(int tag) throws OtlpFormatException {
        in.expect(tag, ProtoReader.LEN);
        int len = in.readLength();
        int off = in.position();
        in.skipBytes(len);
        lastLength = len;
        return off;
    }

    /** The length of the string or bytes read last. */
    int lastLength;

    /**
     * Reads one KeyValue (tag already read) into {@code block} as the field {@code prefix + key}; an attribute
     * without a value is NULL.
     */
    void attribute(int tag, FieldBlock block, byte[] prefix) throws OtlpFormatException {
        if (prefix.length == 0 && (tag & 7) == ProtoReader.LEN && SmallKeyValue.read(in, keys, block)) {
            return;
        }
        int old = in.enterMessage(tag);
        int start = in.position();
        if (canonical(block, prefix)) {
            in.leave(old);
            return;
        }
        in.position(start);
        readKeyValue();
        in.leave(old);
        block.key(prefix, in.buffer(), keyOff, keyLen);
        valueTo(block);
    }

    /** The tags of KeyValue's key (field 1) and value (field 2), both length-delimited. */
    static final int KEY_TAG = 1 << 3 | ProtoReader.LEN;
    static final int VALUE_TAG = 2 << 3 | ProtoReader.LEN;

    /**
     * Reads the KeyValue the reader is in the way every encoder writes it, the key and then the value and nothing
     * else, straight into {@code block}; returns false (having added nothing) for anything else, which the general
     * path then reads: a missing key or value, other fields, fields in another order or twice.
     */
    private boolean canonical(FieldBlock block, byte[] prefix) throws OtlpFormatException {
        if (!in.hasMore() || in.readTag() != KEY_TAG) {
            return false;
        }
        int ko;
        int kl;
        int hash = 0;
        if (prefix.length == 0) { // a record's or point's attribute: the key is most likely the one cached
            kl = in.readLength();
            ko = in.position();
            hash = keys.hash(in.buffer(), ko, kl, block.size(), in);
            in.skipBytes(kl);
        } else {
            ko = readString(KEY_TAG);
            kl = lastLength;
        }
        if (!in.hasMore() || in.readTag() != VALUE_TAG) {
            return false;
        }
        int len = in.readLength();
        if (in.position() + len != in.limit()) {
            return false;
        }
        int anyStart = in.position();
        int old = in.enter(len);
        if (prefix.length == 0) {
            block.key(in.buffer(), ko, kl, hash);
        } else {
            block.key(prefix, in.buffer(), ko, kl);
        }
        writeValue(block, anyStart);
        in.leave(old);
        return true;
    }

    /** Reads the AnyValue the reader is in, which starts at {@code start}, and ends the field in {@code block}. */
    private void writeValue(FieldBlock block, int start) throws OtlpFormatException {
        readAnyValue();
        switch (type) {
            case STRING -> block.string(in.buffer(), valueOff, valueLen);
            case BOOL -> block.bool(bits != 0);
            case INT -> block.signed(bits);
            case DOUBLE -> block.dbl(Double.longBitsToDouble(bits));
            case ARRAY, KVLIST, BYTES -> {
                json.reset();
                in.position(start);
                writeJson(1);
                block.json(json.buffer(), 0, json.length());
            }
            default -> block.nul();
        }
    }

    /** Reads the fields of the KeyValue the reader is in: the key's range and the value's (anyLen -1: none). */
    private void readKeyValue() throws OtlpFormatException {
        keyOff = in.position();
        keyLen = 0;
        anyLen = -1;
        while (in.hasMore()) {
            int t = in.readTag();
            switch (ProtoReader.field(t)) {
                case 1 -> {
                    keyOff = readString(t);
                    keyLen = lastLength;
                }
                case 2 -> {
                    in.expect(t, ProtoReader.LEN);
                    anyLen = in.readLength();
                    anyOff = in.position();
                    in.skipBytes(anyLen);
                }
                default -> in.skip(t);
            }
        }
    }

    /** Reads the AnyValue at [anyOff, anyOff+anyLen) (none: anyLen -1) and writes it into {@code block}. */
    private void valueTo(FieldBlock block) throws OtlpFormatException {
        if (anyLen < 0) {
            block.nul();
            return;
        }
        int save = in.position();
        in.position(anyOff);
        int old = in.enter(anyLen);
        writeValue(block, anyOff);
        in.leave(old);
        in.position(save);
    }

    /**
     * Reads the AnyValue the reader is in (to its limit): {@link #type} is the oneof field set last (0: none);
     * {@link #bits} holds a scalar, {@link #valueOff}/{@link #valueLen} a string, bytes or nested message.
     */
    private void readAnyValue() throws OtlpFormatException {
        type = 0;
        while (in.hasMore()) {
            int t = in.readTag();
            int f = ProtoReader.field(t);
            switch (f) {
                case STRING -> {
                    valueOff = readString(t);
                    valueLen = lastLength;
                }
                case BOOL, INT -> {
                    in.expect(t, ProtoReader.VARINT);
                    bits = in.readVarint();
                }
                case DOUBLE -> {
                    in.expect(t, ProtoReader.I64);
                    bits = in.readFixed64();
                }
                case ARRAY, KVLIST, BYTES -> {
                    valueOff = readBytes(t);
                    valueLen = lastLength;
                }
                default -> {
                    in.skip(t);
                    continue;
                }
            }
            type = f;
        }
    }

    /**
     * Writes the AnyValue the reader is in as JSON into {@link #json}, {@code depth} levels below the attribute
     * (1 for the attribute's own value). The reader is left at the end of the value.
     */
    private void writeJson(int depth) throws OtlpFormatException {
        if (depth > maxDepth) {
            throw in.error("values nested deeper than " + maxDepth + " levels");
        }
        readAnyValue();
        byte[] b = in.buffer();
        switch (type) {
            case STRING -> json.string(b, valueOff, valueLen);
            case BOOL -> json.bool(bits != 0);
            case INT -> text.signed(json, bits);
            case DOUBLE -> text.dbl(json, Double.longBitsToDouble(bits));
            case BYTES -> text.bytes(json, b, valueOff, valueLen);
            case ARRAY -> writeArray(depth, valueOff, valueLen);
            case KVLIST -> writeKvList(depth, valueOff, valueLen);
            default -> text.nul(json);
        }
    }

    private void writeArray(int depth, int off, int len) throws OtlpFormatException {
        in.position(off);
        int old = in.enter(len);
        json.beginArray();
        while (in.hasMore()) {
            int t = in.readTag();
            if (ProtoReader.field(t) == 1) {
                int o = in.enterMessage(t);
                writeJson(depth + 1);
                in.leave(o);
            } else {
                in.skip(t);
            }
        }
        json.endArray();
        in.leave(old);
    }

    private void writeKvList(int depth, int off, int len) throws OtlpFormatException {
        in.position(off);
        int old = in.enter(len);
        json.beginObject();
        while (in.hasMore()) {
            int t = in.readTag();
            if (ProtoReader.field(t) == 1) {
                member(t, depth + 1);
            } else {
                in.skip(t);
            }
        }
        json.endObject();
        in.leave(old);
    }

    /**
     * Reads a KeyValue (tag already read) and writes it into {@link #json()} as an object member {@code "key":value},
     * its value {@code depth} levels deep (1 for a member of a top-level object).
     */
    void member(int tag, int depth) throws OtlpFormatException {
        int o = in.enterMessage(tag);
        readKeyValue();
        int end = in.limit();
        json.name(in.buffer(), keyOff, keyLen);
        if (anyLen < 0) {
            text.nul(json);
        } else {
            in.position(anyOff);
            int o2 = in.enter(anyLen);
            writeJson(depth);
            in.leave(o2);
        }
        in.position(end);
        in.leave(o);
    }

    /**
     * Reads the AnyValue in {@code [off, off+len)} of the input as a log body and returns its oneof field (0: empty):
     * a string's range is {@link #valueOff()}/{@link #valueLen()}; bytes are written into {@link #json()} as a
     * base64 JSON string (the caller drops the quotes); anything else as JSON into {@link #json()}.
     */
    int body(int off, int len) throws OtlpFormatException {
        byte[] buf = in.buffer();
        if (len >= 2 && buf[off] == (1 << 3 | ProtoReader.LEN) && buf[off + 1] == len - 2) { // a string (< 128 B)
            in.checkUtf8(off + 2, len - 2);
            json.reset();
            valueOff = off + 2;
            valueLen = len - 2;
            type = STRING;
            return STRING;
        }
        int save = in.position();
        in.position(off);
        int old = in.enter(len);
        readAnyValue();
        json.reset();
        int t = type;
        switch (t) {
            case STRING, 0 -> { }
            case BYTES -> text.base64(json, in.buffer(), valueOff, valueLen);
            default -> {
                in.position(off);
                writeJson(1);
            }
        }
        in.leave(old);
        in.position(save);
        type = t;
        return t;
    }

    /** The range of the string or bytes value read last. */
    int valueOff() {
        return valueOff;
    }

    int valueLen() {
        return valueLen;
    }
}
