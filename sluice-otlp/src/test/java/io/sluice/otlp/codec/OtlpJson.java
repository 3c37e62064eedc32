package io.sluice.otlp.codec;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.MessageOrBuilder;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Writes any generated OTLP message as OTLP/JSON, from its descriptor (independently of the decoders): field names
 * in lowerCamelCase or as in the .proto, ids (trace_id, span_id) in hex and other bytes in base64, enums as
 * integers, 64-bit integers as strings or as numbers, doubles as numbers or "NaN"/"Infinity"/"-Infinity". Only
 * set fields are written, as protobuf's JSON printer does.
 */
public final class OtlpJson {
    private final boolean protoNames;
    private final boolean int64AsNumbers;

    /** A writer; {@code protoNames}: snake_case names; {@code int64AsNumbers}: 64-bit integers unquoted. */
    public OtlpJson(boolean protoNames, boolean int64AsNumbers) {
        this.protoNames = protoNames;
        this.int64AsNumbers = int64AsNumbers;
    }

    /** OTLP JSON as the spec writes it: lowerCamelCase names, 64-bit integers as strings. */
    public static String of(MessageOrBuilder m) {
        return new OtlpJson(false, false).write(m);
    }

    public String write(MessageOrBuilder m) {
        StringBuilder b = new StringBuilder();
        message(m, b);
        return b.toString();
    }

    private void message(MessageOrBuilder m, StringBuilder b) {
        b.append('{');
        boolean first = true;
        for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
            FieldDescriptor f = e.getKey();
            b.append(first ? "" : ",");
            first = false;
            OtlpExpected.string(protoNames ? f.getName() : f.getJsonName(), b);
            b.append(':');
            if (f.isRepeated()) {
                b.append('[');
                List<?> values = (List<?>) e.getValue();
                for (int i = 0; i < values.size(); i++) {
                    b.append(i > 0 ? "," : "");
                    value(f, values.get(i), b);
                }
                b.append(']');
            } else {
                value(f, e.getValue(), b);
            }
        }
        b.append('}');
    }

    private void value(FieldDescriptor f, Object v, StringBuilder b) {
        switch (f.getJavaType()) {
            case MESSAGE -> message((MessageOrBuilder) v, b);
            case STRING -> OtlpExpected.string((String) v, b);
            case BOOLEAN -> b.append(v);
            case INT -> b.append(f.getType() == FieldDescriptor.Type.UINT32 || f.getType() == FieldDescriptor.Type.FIXED32
                    ? Integer.toUnsignedString((Integer) v) : v.toString());
            case LONG -> {
                boolean unsigned = f.getType() == FieldDescriptor.Type.UINT64 || f.getType() == FieldDescriptor.Type.FIXED64;
                String s = unsigned ? Long.toUnsignedString((Long) v) : v.toString();
                b.append(int64AsNumbers ? s : '"' + s + '"');
            }
            case DOUBLE -> OtlpExpected.dbl((Double) v, b);
            case FLOAT -> b.append(v);
            case ENUM -> b.append(((EnumValueDescriptor) v).getNumber());
            case BYTE_STRING -> {
                byte[] bytes = ((ByteString) v).toByteArray();
                boolean id = f.getName().equals("trace_id") || f.getName().equals("span_id");
                b.append('"').append(id ? HexFormat.of().formatHex(bytes) : Base64.getEncoder().encodeToString(bytes))
                        .append('"');
            }
            default -> throw new IllegalArgumentException(f.toString());
        }
    }
}
