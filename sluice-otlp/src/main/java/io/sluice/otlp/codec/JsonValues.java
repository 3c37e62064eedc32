package io.sluice.otlp.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonWriter;

/**
 * Reads common/v1 {@code KeyValue} and {@code AnyValue} from OTLP/JSON into metadata fields and JSON, spelling
 * them exactly as {@link ProtoValues} does for protobuf. Nesting is capped at {@link LogsDecoder#DEFAULT_MAX_DEPTH}.
 */
final class JsonValues {
    static final byte[] KEY = Keys.b("key");
    static final byte[] VALUE = Keys.b("value");
    static final byte[] VALUES = Keys.b("values");
    private static final byte[][] CAMEL = {null, Keys.b("stringValue"), Keys.b("boolValue"), Keys.b("intValue"), Keys.b("doubleValue"),
        Keys.b("arrayValue"), Keys.b("kvlistValue"), Keys.b("bytesValue")};
    private static final byte[][] SNAKE = {null, Keys.b("string_value"), Keys.b("bool_value"), Keys.b("int_value"), Keys.b("double_value"),
        Keys.b("array_value"), Keys.b("kvlist_value"), Keys.b("bytes_value")};

    private final JsonDoc doc;
    private final JsonWriter json = new JsonWriter();
    private final ValueText.Json text = new ValueText.Json();
    /** Set by {@link #which}: the member of the AnyValue object holding its value. */
    private int member;

    JsonValues(JsonDoc doc) {
        this.doc = doc;
    }

    JsonWriter json() {
        return json;
    }

    /**
     * Reads the KeyValue object element {@code i} of {@code array} (scanned at {@code level}) into {@code block} as
     * the field {@code prefix + key}.
     */
    void attribute(JsonFields array, int i, int level, FieldBlock block, byte[] prefix) throws OtlpFormatException {
        JsonFields kv = doc.object(array, i, level);
        int k = doc.find(kv, KEY, null);
        int kl = k < 0 ? 0 : doc.text(kv, k);
        block.key(prefix, doc.text(), 0, kl);
        int v = doc.find(kv, VALUE, null);
        if (v < 0) {
            block.nul();
            return;
        }
        JsonFields any = doc.object(kv, v, level + 1);
        int type = which(any);
        switch (type) {
            case ProtoValues.STRING -> {
                int n = doc.text(any, member); // first: it may grow the buffer doc.text() returns
                block.string(doc.text(), 0, n);
            }
            case ProtoValues.BOOL -> block.bool(doc.bool(any, member));
            case ProtoValues.INT -> block.signed(doc.int64(any, member));
            case ProtoValues.DOUBLE -> block.dbl(doc.dbl(any, member));
            case ProtoValues.ARRAY, ProtoValues.KVLIST, ProtoValues.BYTES -> {
                json.reset();
                writeJson(kv, v, level + 1, 1);
                block.json(json.buffer(), 0, json.length());
            }
            default -> block.nul();
        }
    }

    /** Which oneof member the AnyValue object holds (ProtoValues' field numbers, 0: none; the last one wins). */
    private int which(JsonFields any) {
        int type = 0;
        member = -1;
        for (int i = any.size() - 1; i >= 0 && type == 0; i--) {
            if (any.kind(i) == JsonFields.NULL) {
                continue;
            }
            for (int t = 1; t < CAMEL.length; t++) {
                if (doc.named(any, i, CAMEL[t], SNAKE[t])) {
                    type = t;
                    member = i;
                    break;
                }
            }
        }
        return type;
    }

    /**
     * Writes the AnyValue object member {@code i} of {@code parent} as JSON into {@link #json()}, {@code depth} levels
     * below the attribute (1 for its own value), scanning it at {@code level}.
     */
    void writeJson(JsonFields parent, int i, int level, int depth) throws OtlpFormatException {
        if (depth > LogsDecoder.DEFAULT_MAX_DEPTH) {
            throw new OtlpFormatException("values nested deeper than " + LogsDecoder.DEFAULT_MAX_DEPTH
                    + " levels at byte " + doc.at(parent.valueOffset(i)));
        }
        JsonFields any = doc.object(parent, i, level);
        int type = which(any);
        int m = member;
        switch (type) {
            case ProtoValues.STRING -> {
                int n = doc.text(any, m);
                json.string(doc.text(), 0, n);
            }
            case ProtoValues.BOOL -> json.bool(doc.bool(any, m));
            case ProtoValues.INT -> text.signed(json, doc.int64(any, m));
            case ProtoValues.DOUBLE -> text.dbl(json, doc.dbl(any, m));
            case ProtoValues.BYTES -> {
                byte[] bytes = doc.base64(any, m);
                text.bytes(json, bytes, 0, bytes.length);
            }
            case ProtoValues.ARRAY -> {
                JsonFields values = values(any, m, level + 1);
                json.beginArray();
                for (int k = 0; k < values.size(); k++) {
                    writeJson(values, k, level + 3, depth + 1);
                }
                json.endArray();
            }
            case ProtoValues.KVLIST -> {
                JsonFields values = values(any, m, level + 1);
                json.beginObject();
                for (int k = 0; k < values.size(); k++) {
                    member(values, k, level + 3, depth + 1);
                }
                json.endObject();
            }
            default -> text.nul(json);
        }
    }

    /** The "values" array of the ArrayValue or KeyValueList object member {@code m} of {@code any}. */
    private JsonFields values(JsonFields any, int m, int level) throws OtlpFormatException {
        JsonFields list = doc.object(any, m, level);
        int v = doc.find(list, VALUES, null);
        if (v < 0) {
            return doc.empty(level + 1);
        }
        return doc.array(list, v, level + 1);
    }

    /**
     * Writes the KeyValue object element {@code i} of {@code array} into {@link #json()} as an object member
     * {@code "key":value}, its value {@code depth} levels deep.
     */
    void member(JsonFields array, int i, int level, int depth) throws OtlpFormatException {
        JsonFields kv = doc.object(array, i, level);
        int k = doc.find(kv, KEY, null);
        int kl = k < 0 ? 0 : doc.text(kv, k);
        json.name(doc.text(), 0, kl);
        int v = doc.find(kv, VALUE, null);
        if (v < 0) {
            text.nul(json);
        } else {
            writeJson(kv, v, level + 1, depth);
        }
    }

    /**
     * Reads the body AnyValue (member {@code i} of {@code record}) into {@code r}: a string's bytes are copied
     * into {@code own} (returned, grown if needed), bytes become base64 text and anything else JSON, in
     * {@link #json()}.
     */
    byte[] body(JsonFields record, int i, int level, LogRecordFields r, byte[] own) throws OtlpFormatException {
        JsonFields any = doc.object(record, i, level);
        int type = which(any);
        r.bodyType = type;
        json.reset();
        switch (type) {
            case 0 -> r.bodyLen = 0;
            case ProtoValues.STRING -> {
                int n = doc.text(any, member);
                if (own.length < n) {
                    own = new byte[n];
                }
                System.arraycopy(doc.text(), 0, own, 0, n);
                r.body = own;
                r.bodyOff = 0;
                r.bodyLen = n;
            }
            case ProtoValues.BYTES -> {
                byte[] bytes = doc.base64(any, member);
                text.base64(json, bytes, 0, bytes.length);
                r.body = json.buffer();
                r.bodyOff = 1;
                r.bodyLen = json.length() - 2;
            }
            default -> {
                writeJson(record, i, level, 1);
                r.body = json.buffer();
                r.bodyOff = 0;
                r.bodyLen = json.length();
            }
        }
        return own;
    }
}
