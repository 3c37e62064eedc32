package io.sluice.forward.codec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * msgpack decoded to Java objects through a {@link MsgPackReader} (the mapping is in its class comment): what
 * {@link MsgPackReader#readValue} and {@link MsgPackReader#readMap} do, for handshakes, tests and callers that want
 * a record as a map rather than its bytes. Values nested deeper than {@link MsgPackReader#MAX_DEPTH} are refused.
 */
final class ValueReader {
    private ValueReader() {
    }

    static Object readValue(MsgPackReader r, int depth) throws ForwardProtocolException {
        if (depth > MsgPackReader.MAX_DEPTH) {
            throw r.error("values nested deeper than " + MsgPackReader.MAX_DEPTH);
        }
        int b = r.peek();
        return switch (ValueType.of(b)) {
            case NIL -> { r.position(r.position() + 1); yield null; }
            case BOOLEAN -> r.readBoolean();
            case INTEGER -> b == 0xcf ? r.readUint64() : (Object) r.readLong();
            case FLOAT -> b == 0xca ? (Object) (float) r.readDouble() : (Object) r.readDouble();
            case STRING -> r.readString();
            case BINARY -> r.readBytes();
            case ARRAY -> readList(r, r.readArrayHeader(), depth + 1);
            case MAP -> readMapBody(r, r.readMapHeader(), depth + 1);
            case EXTENSION -> readExt(r);
            case INVALID -> throw r.error("invalid msgpack format byte 0x" + Integer.toHexString(b));
        };
    }

    private static Object readExt(MsgPackReader r) throws ForwardProtocolException {
        long h = r.readExtHeader();
        int type = (int) (h >> 32);
        int len = (int) h;
        if (type == EventTime.EXT_TYPE && len == 8) {
            return new EventTime(r.readUint32Raw(), (int) r.readUint32Raw());
        }
        int at = r.position();
        byte[] data = Arrays.copyOfRange(r.array(), at, at + len);
        r.position(at + len);
        return new ExtValue((byte) type, data);
    }

    private static List<Object> readList(MsgPackReader r, int n, int depth) throws ForwardProtocolException {
        // Cap the pre-size by what the input can hold, so a forged count cannot allocate much.
        List<Object> list = new ArrayList<>(Math.min(n, r.limit() - r.position()));
        for (int i = 0; i < n; i++) {
            list.add(readValue(r, depth));
        }
        return list;
    }

    static Map<String, Object> readMapBody(MsgPackReader r, int n, int depth) throws ForwardProtocolException {
        Map<String, Object> map = new LinkedHashMap<>(Math.min(n, (r.limit() - r.position()) / 2) * 4 / 3 + 1);
        for (int i = 0; i < n; i++) {
            String key = readKey(r, depth);
            map.put(key, readValue(r, depth));
        }
        return map;
    }

    private static String readKey(MsgPackReader r, int depth) throws ForwardProtocolException {
        ValueType t = r.nextType();
        if (t == ValueType.STRING || t == ValueType.BINARY) {
            return r.readString();
        }
        Object k = readValue(r, depth);
        return String.valueOf(k);
    }
}
