package io.sluice.core.message;

/**
 * How an OpenTelemetry log record or metric data point lives in a {@link Message}: the one contract that
 * consumer.OTLP writes, producer.OTLP reads back (rebuilding the resource and scope grouping, losslessly) and
 * producer.SplunkHEC maps as the OpenTelemetry Collector's splunkhec exporter does. It lives in core because
 * producers in other modules read it; docs/otlp.md is the user's version of this page.
 *
 * <h2>Keys</h2>
 * <ul>
 *   <li>{@code otlp.signal}: {@code log} or {@code metric}. Written first; its presence is what marks a message
 *       as coming from OTLP.</li>
 *   <li>Order: after {@code otlp.signal}, the resource's and scope's fields, then (a metric's fields and) the
 *       record's or point's attributes, then its {@code otlp.*} fields and value. A key set twice keeps its first
 *       place and its last value, so a record's own {@code otlp.*} fields win over attributes of the same name,
 *       and an attribute wins over a resource or scope field of the same name.</li>
 *   <li>Record attributes (a log record's, a data point's): their own key, unprefixed, so that filters and
 *       formatters see them as they see any other field, and Forward/HEC fields map back to attributes.</li>
 *   <li>Resource attributes: {@code resource.<key>}; {@code otlp.resource.schema_url},
 *       {@code otlp.resource.dropped_attributes_count}; {@code otlp.resource.entity_refs} when there are any (JSON
 *       array of objects with {@code schemaUrl}, {@code type}, {@code idKeys} and {@code descriptionKeys}, as OTLP
 *       JSON names them).</li>
 *   <li>Instrumentation scope: {@code scope.name}, {@code scope.version}, attributes as
 *       {@code scope.attributes.<key>}; {@code otlp.scope.schema_url},
 *       {@code otlp.scope.dropped_attributes_count}.</li>
 *   <li>A log record's own fields, each only when set (non-zero, non-empty): {@code otlp.severity_number}
 *       (NUMBER), {@code otlp.severity_text}, {@code otlp.trace_id} and {@code otlp.span_id} (lower-case hex),
 *       {@code otlp.flags} (NUMBER), {@code otlp.event_name}, {@code otlp.observed_time_unix_nano} (NUMBER),
 *       {@code otlp.dropped_attributes_count} (NUMBER), {@code otlp.body_type} (see the payload). An all-zero
 *       trace or span id counts as not set, as in OTLP.</li>
 *   <li>A metric data point: {@code otlp.metric.type} ({@code gauge}, {@code sum}, {@code histogram},
 *       {@code exponential_histogram}, {@code summary}); {@code otlp.metric.description}, {@code otlp.metric.unit},
 *       {@code otlp.metric.metadata} (JSON object) when set; {@code otlp.metric.temporality} (NUMBER, the enum's
 *       integer) for sum and both histograms; {@code otlp.metric.monotonic} (BOOLEAN) for sum;
 *       {@code otlp.start_time_unix_nano} and {@code otlp.flags} when set; {@code otlp.exemplars} (JSON array) when
 *       there are any. The value: a number point (gauge, sum) as {@code metric_name:<name>} (NUMBER), which is also
 *       what consumer.HEC makes of a HEC metric (a NaN or infinite value as the STRING, by the rules for values
 *       below; a point without a value as NULL); a histogram as {@code otlp.histogram}, an exponential histogram as
 *       {@code otlp.exponential_histogram}, a summary as {@code otlp.summary} (JSON objects, fields named as in OTLP
 *       JSON: {@code count}, {@code sum}, {@code min}, {@code max}, {@code bucketCounts}, {@code explicitBounds},
 *       {@code scale}, {@code zeroCount}, {@code zeroThreshold}, {@code positive}/{@code negative} with
 *       {@code offset} and {@code bucketCounts}, {@code quantileValues} with {@code quantile} and {@code value};
 *       numbers as JSON numbers, unsigned 64-bit counts in decimal; {@code sum}, {@code min} and {@code max} of the
 *       histograms only when the point has them, every other member always, arrays possibly empty). Exemplars:
 *       objects with {@code timeUnixNano}, {@code asDouble} or {@code asInt}, {@code spanId}, {@code traceId} (hex),
 *       {@code filteredAttributes} (a JSON object, values as below), ids and attributes only when set.</li>
 * </ul>
 *
 * <h2>Values</h2>
 * An attribute's {@code AnyValue} becomes: string as {@link Metadata#STRING}; bool as {@link Metadata#BOOLEAN};
 * int as {@link Metadata#NUMBER} in decimal; double as {@link Metadata#NUMBER} always written with a fraction or
 * exponent ({@code 1.0}, never {@code 1}), so that int and double stay apart (NaN and the infinities, which JSON
 * cannot write, as the strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}, as OTLP JSON does); an
 * array as a JSON array and a key-value list as a JSON object ({@link Metadata#JSON}), their elements by the same
 * rules; bytes as the JSON object {@code {"bytesValue":"<base64>"}} (OTLP JSON's own spelling), so that bytes stay
 * bytes; an empty value as JSON {@code null} ({@link Metadata#NULL} at the top).
 *
 * <h2>Payload and time</h2>
 * A log record's payload is its body: a string body as its UTF-8 bytes; any other body as JSON by the rules
 * above, with {@code otlp.body_type} naming it ({@code int}, {@code double}, {@code bool}, {@code bytes} (payload:
 * the base64 text), {@code array}, {@code kvlist}), or {@code empty} for a record without a body (empty
 * payload). A metric point's payload is the metric's name. The message's timestamp is the record's or point's
 * {@code time_unix_nano}, 0 when unset (no arrival time is made up).
 */
public final class OtlpFields {
    private OtlpFields() {
    }

    public static final String SIGNAL = "otlp.signal";
    public static final String SIGNAL_LOG = "log";
    public static final String SIGNAL_METRIC = "metric";

    public static final String RESOURCE_PREFIX = "resource.";
    public static final String RESOURCE_SCHEMA_URL = "otlp.resource.schema_url";
    public static final String RESOURCE_DROPPED = "otlp.resource.dropped_attributes_count";
    public static final String RESOURCE_ENTITY_REFS = "otlp.resource.entity_refs";

    public static final String SCOPE_NAME = "scope.name";
    public static final String SCOPE_VERSION = "scope.version";
    public static final String SCOPE_ATTRIBUTE_PREFIX = "scope.attributes.";
    public static final String SCOPE_SCHEMA_URL = "otlp.scope.schema_url";
    public static final String SCOPE_DROPPED = "otlp.scope.dropped_attributes_count";

    public static final String SEVERITY_NUMBER = "otlp.severity_number";
    public static final String SEVERITY_TEXT = "otlp.severity_text";
    public static final String TRACE_ID = "otlp.trace_id";
    public static final String SPAN_ID = "otlp.span_id";
    public static final String FLAGS = "otlp.flags";
    public static final String EVENT_NAME = "otlp.event_name";
    public static final String OBSERVED_TIME = "otlp.observed_time_unix_nano";
    public static final String DROPPED_ATTRIBUTES = "otlp.dropped_attributes_count";
    public static final String BODY_TYPE = "otlp.body_type";

    public static final String METRIC_TYPE = "otlp.metric.type";
    public static final String METRIC_DESCRIPTION = "otlp.metric.description";
    public static final String METRIC_UNIT = "otlp.metric.unit";
    public static final String METRIC_METADATA = "otlp.metric.metadata";
    public static final String METRIC_TEMPORALITY = "otlp.metric.temporality";
    public static final String METRIC_MONOTONIC = "otlp.metric.monotonic";
    public static final String START_TIME = "otlp.start_time_unix_nano";
    public static final String EXEMPLARS = "otlp.exemplars";
    /** A number point's value: {@code metric_name:<name>}, as HEC's multi-metric format spells a measurement. */
    public static final String METRIC_VALUE_PREFIX = "metric_name:";
    public static final String HISTOGRAM = "otlp.histogram";
    public static final String EXPONENTIAL_HISTOGRAM = "otlp.exponential_histogram";
    public static final String SUMMARY = "otlp.summary";

    public static final String TYPE_GAUGE = "gauge";
    public static final String TYPE_SUM = "sum";
    public static final String TYPE_HISTOGRAM = "histogram";
    public static final String TYPE_EXPONENTIAL_HISTOGRAM = "exponential_histogram";
    public static final String TYPE_SUMMARY = "summary";
}
