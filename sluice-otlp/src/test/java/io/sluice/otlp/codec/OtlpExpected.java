package io.sluice.otlp.codec;

import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.resource.v1.Resource;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What OtlpFields says a message should hold, computed from the generated objects with plain JDK code (Strings,
 * Double.toString, Base64, HexFormat), independently of the decoders. Metadata is a map from key to
 * {@code "<kind>:<value>"} (kind S string, N number, B boolean, 0 null, J JSON), last key wins.
 */
public final class OtlpExpected {
    private OtlpExpected() {
    }

    /** The decoded metadata of {@code m} in the same form, in order. */
    public static Map<String, String> metadata(Message m) {
        Map<String, String> out = new LinkedHashMap<>();
        Metadata md = m.metadata();
        for (int i = 0; i < md.size(); i++) {
            String prev = out.put(md.key(i), "SNB0J".charAt(md.kind(i)) + ":" + md.value(i));
            if (prev != null) {
                throw new AssertionError("key twice in metadata: " + md.key(i));
            }
        }
        return out;
    }

    /** The metadata every message of a resource and scope starts with. */
    public static Map<String, String> prefix(String signal, Resource r, String resourceSchema, InstrumentationScope s,
                                             String scopeSchema) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("otlp.signal", "S:" + signal);
        if (r != null) {
            for (KeyValue kv : r.getAttributesList()) {
                f.put("resource." + kv.getKey(), field(kv));
            }
        }
        if (!resourceSchema.isEmpty()) {
            f.put("otlp.resource.schema_url", "S:" + resourceSchema);
        }
        if (r != null && r.getDroppedAttributesCount() != 0) {
            f.put("otlp.resource.dropped_attributes_count", "N:" + Integer.toUnsignedString(r.getDroppedAttributesCount()));
        }
        if (s != null) {
            if (!s.getName().isEmpty()) {
                f.put("scope.name", "S:" + s.getName());
            }
            if (!s.getVersion().isEmpty()) {
                f.put("scope.version", "S:" + s.getVersion());
            }
            for (KeyValue kv : s.getAttributesList()) {
                f.put("scope.attributes." + kv.getKey(), field(kv));
            }
        }
        if (!scopeSchema.isEmpty()) {
            f.put("otlp.scope.schema_url", "S:" + scopeSchema);
        }
        if (s != null && s.getDroppedAttributesCount() != 0) {
            f.put("otlp.scope.dropped_attributes_count", "N:" + Integer.toUnsignedString(s.getDroppedAttributesCount()));
        }
        return f;
    }

    /** A log record's message metadata after the prefix: its attributes, then its own fields. */
    public static Map<String, String> logRecord(Map<String, String> prefix, LogRecord r) {
        Map<String, String> f = new LinkedHashMap<>(prefix);
        for (KeyValue kv : r.getAttributesList()) {
            f.put(kv.getKey(), field(kv));
        }
        if (r.getSeverityNumberValue() != 0) {
            f.put("otlp.severity_number", "N:" + r.getSeverityNumberValue());
        }
        if (!r.getSeverityText().isEmpty()) {
            f.put("otlp.severity_text", "S:" + r.getSeverityText());
        }
        if (!r.getTraceId().isEmpty() && !allZero(r.getTraceId().toByteArray())) {
            f.put("otlp.trace_id", "S:" + HexFormat.of().formatHex(r.getTraceId().toByteArray()));
        }
        if (!r.getSpanId().isEmpty() && !allZero(r.getSpanId().toByteArray())) {
            f.put("otlp.span_id", "S:" + HexFormat.of().formatHex(r.getSpanId().toByteArray()));
        }
        if (r.getFlags() != 0) {
            f.put("otlp.flags", "N:" + Integer.toUnsignedString(r.getFlags()));
        }
        if (!r.getEventName().isEmpty()) {
            f.put("otlp.event_name", "S:" + r.getEventName());
        }
        if (r.getObservedTimeUnixNano() != 0) {
            f.put("otlp.observed_time_unix_nano", "N:" + Long.toUnsignedString(r.getObservedTimeUnixNano()));
        }
        if (r.getDroppedAttributesCount() != 0) {
            f.put("otlp.dropped_attributes_count", "N:" + Integer.toUnsignedString(r.getDroppedAttributesCount()));
        }
        String type = bodyType(r);
        if (!type.equals("string")) {
            f.put("otlp.body_type", "S:" + type);
        }
        return f;
    }

    /** The payload of a log record's message. */
    public static String logPayload(LogRecord r) {
        if (!r.hasBody()) {
            return "";
        }
        AnyValue b = r.getBody();
        return switch (b.getValueCase()) {
            case STRING_VALUE -> b.getStringValue();
            case BYTES_VALUE -> Base64.getEncoder().encodeToString(b.getBytesValue().toByteArray());
            case VALUE_NOT_SET -> "";
            default -> json(b);
        };
    }

    static String bodyType(LogRecord r) {
        if (!r.hasBody()) {
            return "empty";
        }
        return switch (r.getBody().getValueCase()) {
            case STRING_VALUE -> "string";
            case BOOL_VALUE -> "bool";
            case INT_VALUE -> "int";
            case DOUBLE_VALUE -> "double";
            case ARRAY_VALUE -> "array";
            case KVLIST_VALUE -> "kvlist";
            case BYTES_VALUE -> "bytes";
            default -> "empty";
        };
    }

    /** An attribute's metadata value. */
    public static String field(KeyValue kv) {
        if (!kv.hasValue()) {
            return "0:null";
        }
        AnyValue v = kv.getValue();
        return switch (v.getValueCase()) {
            case STRING_VALUE -> "S:" + v.getStringValue();
            case BOOL_VALUE -> "B:" + v.getBoolValue();
            case INT_VALUE -> "N:" + v.getIntValue();
            case DOUBLE_VALUE -> Double.isFinite(v.getDoubleValue()) ? "N:" + v.getDoubleValue()
                    : "S:" + v.getDoubleValue();
            case VALUE_NOT_SET -> "0:null";
            default -> "J:" + json(v);
        };
    }

    /** An AnyValue as OtlpFields' JSON. */
    public static String json(AnyValue v) {
        StringBuilder b = new StringBuilder();
        json(v, b);
        return b.toString();
    }

    private static void json(AnyValue v, StringBuilder b) {
        switch (v.getValueCase()) {
            case STRING_VALUE -> string(v.getStringValue(), b);
            case BOOL_VALUE -> b.append(v.getBoolValue());
            case INT_VALUE -> b.append(v.getIntValue());
            case DOUBLE_VALUE -> dbl(v.getDoubleValue(), b);
            case BYTES_VALUE -> b.append("{\"bytesValue\":\"")
                    .append(Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray())).append("\"}");
            case ARRAY_VALUE -> {
                b.append('[');
                List<AnyValue> values = v.getArrayValue().getValuesList();
                for (int i = 0; i < values.size(); i++) {
                    b.append(i > 0 ? "," : "");
                    json(values.get(i), b);
                }
                b.append(']');
            }
            case KVLIST_VALUE -> object(v.getKvlistValue().getValuesList(), b);
            default -> b.append("null");
        }
    }

    /** Key-value pairs as a JSON object, values as {@link #json}. */
    public static void object(List<KeyValue> kvs, StringBuilder b) {
        b.append('{');
        for (int i = 0; i < kvs.size(); i++) {
            b.append(i > 0 ? "," : "");
            string(kvs.get(i).getKey(), b);
            b.append(':');
            json(kvs.get(i).getValue(), b);
        }
        b.append('}');
    }

    /** A double as a JSON number (Double.toString), or as the string OTLP JSON writes for NaN and infinities. */
    public static void dbl(double d, StringBuilder b) {
        if (Double.isFinite(d)) {
            b.append(d);
        } else {
            b.append('"').append(d).append('"');
        }
    }

    /** A JSON string: quotes, backslashes and control characters escaped, everything else as it is. */
    public static void string(String s, StringBuilder b) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    static boolean allZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }
}
