package io.sluice.otlp.codec;

import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
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
        if (r != null && r.getEntityRefsCount() > 0) {
            f.put("otlp.resource.entity_refs", "J:" + r.getEntityRefsList().stream().map(OtlpExpected::entityRef)
                    .collect(java.util.stream.Collectors.joining(",", "[", "]")));
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

    /** An EntityRef as OTLP JSON spells it, members that are set only (plain ASCII in the corpus: no escaping). */
    private static String entityRef(io.opentelemetry.proto.common.v1.EntityRef e) {
        StringBuilder b = new StringBuilder("{");
        if (!e.getSchemaUrl().isEmpty()) {
            b.append("\"schemaUrl\":\"").append(e.getSchemaUrl()).append("\",");
        }
        if (!e.getType().isEmpty()) {
            b.append("\"type\":\"").append(e.getType()).append("\",");
        }
        if (e.getIdKeysCount() > 0) {
            b.append("\"idKeys\":").append(e.getIdKeysList().stream().map(k -> "\"" + k + "\"")
                    .collect(java.util.stream.Collectors.joining(",", "[", "]"))).append(',');
        }
        if (e.getDescriptionKeysCount() > 0) {
            b.append("\"descriptionKeys\":").append(e.getDescriptionKeysList().stream().map(k -> "\"" + k + "\"")
                    .collect(java.util.stream.Collectors.joining(",", "[", "]"))).append(',');
        }
        if (b.length() > 1) {
            b.setLength(b.length() - 1);
        }
        return b.append('}').toString();
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

    /** The metadata a metric's points start with after the prefix: the metric's own fields. */
    public static Map<String, String> metric(Map<String, String> prefix, Metric m) {
        Map<String, String> f = new LinkedHashMap<>(prefix);
        f.put("otlp.metric.type", "S:" + switch (m.getDataCase()) {
            case GAUGE -> "gauge";
            case SUM -> "sum";
            case HISTOGRAM -> "histogram";
            case EXPONENTIAL_HISTOGRAM -> "exponential_histogram";
            case SUMMARY -> "summary";
            default -> throw new IllegalArgumentException("no data");
        });
        if (!m.getDescription().isEmpty()) {
            f.put("otlp.metric.description", "S:" + m.getDescription());
        }
        if (!m.getUnit().isEmpty()) {
            f.put("otlp.metric.unit", "S:" + m.getUnit());
        }
        if (m.getMetadataCount() > 0) {
            StringBuilder b = new StringBuilder();
            object(m.getMetadataList(), b);
            f.put("otlp.metric.metadata", "J:" + b);
        }
        switch (m.getDataCase()) {
            case SUM -> {
                f.put("otlp.metric.temporality", "N:" + m.getSum().getAggregationTemporalityValue());
                f.put("otlp.metric.monotonic", "B:" + m.getSum().getIsMonotonic());
            }
            case HISTOGRAM -> f.put("otlp.metric.temporality", "N:" + m.getHistogram().getAggregationTemporalityValue());
            case EXPONENTIAL_HISTOGRAM -> f.put("otlp.metric.temporality",
                    "N:" + m.getExponentialHistogram().getAggregationTemporalityValue());
            default -> { }
        }
        return f;
    }

    /** One expected point message: timestamp, payload (the metric name) and metadata. */
    public record Point(long timestamp, String payload, Map<String, String> metadata) {
    }

    /** Every point of {@code m}, in order, after the metric's fields {@code metric}. */
    public static List<Point> points(Map<String, String> metric, Metric m) {
        List<Point> out = new java.util.ArrayList<>();
        switch (m.getDataCase()) {
            case GAUGE -> m.getGauge().getDataPointsList().forEach(p -> out.add(number(metric, m.getName(), p)));
            case SUM -> m.getSum().getDataPointsList().forEach(p -> out.add(number(metric, m.getName(), p)));
            case HISTOGRAM -> m.getHistogram().getDataPointsList().forEach(p -> {
                Map<String, String> f = point(metric, p.getAttributesList(), p.getStartTimeUnixNano(), p.getFlags(),
                        p.getExemplarsList());
                StringBuilder b = new StringBuilder("{\"count\":").append(Long.toUnsignedString(p.getCount()));
                optional(b, "sum", p.hasSum(), p.getSum());
                optional(b, "min", p.hasMin(), p.getMin());
                optional(b, "max", p.hasMax(), p.getMax());
                b.append(",\"bucketCounts\":");
                unsigned(p.getBucketCountsList(), b);
                b.append(",\"explicitBounds\":[");
                for (int i = 0; i < p.getExplicitBoundsCount(); i++) {
                    b.append(i > 0 ? "," : "");
                    dbl(p.getExplicitBounds(i), b);
                }
                f.put("otlp.histogram", "J:" + b.append("]}"));
                out.add(new Point(p.getTimeUnixNano(), m.getName(), f));
            });
            case EXPONENTIAL_HISTOGRAM -> m.getExponentialHistogram().getDataPointsList().forEach(p -> {
                Map<String, String> f = point(metric, p.getAttributesList(), p.getStartTimeUnixNano(), p.getFlags(),
                        p.getExemplarsList());
                StringBuilder b = new StringBuilder("{\"count\":").append(Long.toUnsignedString(p.getCount()));
                optional(b, "sum", p.hasSum(), p.getSum());
                optional(b, "min", p.hasMin(), p.getMin());
                optional(b, "max", p.hasMax(), p.getMax());
                b.append(",\"scale\":").append(p.getScale());
                b.append(",\"zeroCount\":").append(Long.toUnsignedString(p.getZeroCount()));
                b.append(",\"zeroThreshold\":");
                dbl(p.getZeroThreshold(), b);
                if (p.hasPositive()) {
                    b.append(",\"positive\":{\"offset\":").append(p.getPositive().getOffset()).append(",\"bucketCounts\":");
                    unsigned(p.getPositive().getBucketCountsList(), b);
                    b.append('}');
                }
                if (p.hasNegative()) {
                    b.append(",\"negative\":{\"offset\":").append(p.getNegative().getOffset()).append(",\"bucketCounts\":");
                    unsigned(p.getNegative().getBucketCountsList(), b);
                    b.append('}');
                }
                f.put("otlp.exponential_histogram", "J:" + b.append("}"));
                out.add(new Point(p.getTimeUnixNano(), m.getName(), f));
            });
            case SUMMARY -> m.getSummary().getDataPointsList().forEach(p -> {
                Map<String, String> f = point(metric, p.getAttributesList(), p.getStartTimeUnixNano(), p.getFlags(),
                        List.of());
                StringBuilder b = new StringBuilder("{\"count\":").append(Long.toUnsignedString(p.getCount()));
                b.append(",\"sum\":");
                dbl(p.getSum(), b);
                b.append(",\"quantileValues\":[");
                for (int i = 0; i < p.getQuantileValuesCount(); i++) {
                    b.append(i > 0 ? "," : "").append("{\"quantile\":");
                    dbl(p.getQuantileValues(i).getQuantile(), b);
                    b.append(",\"value\":");
                    dbl(p.getQuantileValues(i).getValue(), b);
                    b.append('}');
                }
                f.put("otlp.summary", "J:" + b.append("]}"));
                out.add(new Point(p.getTimeUnixNano(), m.getName(), f));
            });
            default -> { }
        }
        return out;
    }

    private static Point number(Map<String, String> metric, String name, NumberDataPoint p) {
        Map<String, String> f = point(metric, p.getAttributesList(), p.getStartTimeUnixNano(), p.getFlags(),
                p.getExemplarsList());
        f.put("metric_name:" + name, switch (p.getValueCase()) {
            case AS_DOUBLE -> Double.isFinite(p.getAsDouble()) ? "N:" + p.getAsDouble() : "S:" + p.getAsDouble();
            case AS_INT -> "N:" + p.getAsInt();
            default -> "0:null";
        });
        return new Point(p.getTimeUnixNano(), name, f);
    }

    private static Map<String, String> point(Map<String, String> metric, List<KeyValue> attributes, long start, int flags,
                                             List<Exemplar> exemplars) {
        Map<String, String> f = new LinkedHashMap<>(metric);
        for (KeyValue kv : attributes) {
            f.put(kv.getKey(), field(kv));
        }
        if (start != 0) {
            f.put("otlp.start_time_unix_nano", "N:" + Long.toUnsignedString(start));
        }
        if (flags != 0) {
            f.put("otlp.flags", "N:" + Integer.toUnsignedString(flags));
        }
        if (!exemplars.isEmpty()) {
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < exemplars.size(); i++) {
                Exemplar e = exemplars.get(i);
                b.append(i > 0 ? "," : "").append("{\"timeUnixNano\":").append(Long.toUnsignedString(e.getTimeUnixNano()));
                if (e.getValueCase() == Exemplar.ValueCase.AS_DOUBLE) {
                    b.append(",\"asDouble\":");
                    dbl(e.getAsDouble(), b);
                } else if (e.getValueCase() == Exemplar.ValueCase.AS_INT) {
                    b.append(",\"asInt\":").append(e.getAsInt());
                }
                if (!e.getSpanId().isEmpty() && !allZero(e.getSpanId().toByteArray())) {
                    b.append(",\"spanId\":\"").append(HexFormat.of().formatHex(e.getSpanId().toByteArray())).append('"');
                }
                if (!e.getTraceId().isEmpty() && !allZero(e.getTraceId().toByteArray())) {
                    b.append(",\"traceId\":\"").append(HexFormat.of().formatHex(e.getTraceId().toByteArray())).append('"');
                }
                if (e.getFilteredAttributesCount() > 0) {
                    b.append(",\"filteredAttributes\":");
                    object(e.getFilteredAttributesList(), b);
                }
                b.append('}');
            }
            f.put("otlp.exemplars", "J:" + b.append(']'));
        }
        return f;
    }

    private static void optional(StringBuilder b, String name, boolean has, double v) {
        if (has) {
            b.append(",\"").append(name).append("\":");
            dbl(v, b);
        }
    }

    private static void unsigned(List<Long> values, StringBuilder b) {
        b.append('[');
        for (int i = 0; i < values.size(); i++) {
            b.append(i > 0 ? "," : "").append(Long.toUnsignedString(values.get(i)));
        }
        b.append(']');
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
