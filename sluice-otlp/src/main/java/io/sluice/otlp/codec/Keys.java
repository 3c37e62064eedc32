package io.sluice.otlp.codec;

import io.sluice.core.message.Metadata;
import io.sluice.core.message.OtlpFields;
import java.nio.charset.StandardCharsets;

/** OtlpFields' keys and fixed values as UTF-8 bytes, encoded once. */
final class Keys {
    private Keys() {
    }

    static final byte[] EMPTY = {};
    static final byte[] SIGNAL = b(OtlpFields.SIGNAL);
    static final byte[] LOG = b(OtlpFields.SIGNAL_LOG);
    static final byte[] METRIC = b(OtlpFields.SIGNAL_METRIC);
    static final byte[] RESOURCE_PREFIX = b(OtlpFields.RESOURCE_PREFIX);
    static final byte[] RESOURCE_SCHEMA_URL = b(OtlpFields.RESOURCE_SCHEMA_URL);
    static final byte[] RESOURCE_DROPPED = b(OtlpFields.RESOURCE_DROPPED);
    static final byte[] RESOURCE_ENTITY_REFS = b(OtlpFields.RESOURCE_ENTITY_REFS);
    static final byte[] SCOPE_NAME = b(OtlpFields.SCOPE_NAME);
    static final byte[] SCOPE_VERSION = b(OtlpFields.SCOPE_VERSION);
    static final byte[] SCOPE_ATTRIBUTE_PREFIX = b(OtlpFields.SCOPE_ATTRIBUTE_PREFIX);
    static final byte[] SCOPE_SCHEMA_URL = b(OtlpFields.SCOPE_SCHEMA_URL);
    static final byte[] SCOPE_DROPPED = b(OtlpFields.SCOPE_DROPPED);
    static final byte[] SEVERITY_NUMBER = b(OtlpFields.SEVERITY_NUMBER);
    static final byte[] SEVERITY_TEXT = b(OtlpFields.SEVERITY_TEXT);
    static final byte[] TRACE_ID = b(OtlpFields.TRACE_ID);
    static final byte[] SPAN_ID = b(OtlpFields.SPAN_ID);
    static final byte[] FLAGS = b(OtlpFields.FLAGS);
    static final byte[] EVENT_NAME = b(OtlpFields.EVENT_NAME);
    static final byte[] OBSERVED_TIME = b(OtlpFields.OBSERVED_TIME);
    static final byte[] DROPPED_ATTRIBUTES = b(OtlpFields.DROPPED_ATTRIBUTES);
    static final byte[] BODY_TYPE = b(OtlpFields.BODY_TYPE);
    static final byte[] METRIC_TYPE = b(OtlpFields.METRIC_TYPE);
    static final byte[] METRIC_DESCRIPTION = b(OtlpFields.METRIC_DESCRIPTION);
    static final byte[] METRIC_UNIT = b(OtlpFields.METRIC_UNIT);
    static final byte[] METRIC_METADATA = b(OtlpFields.METRIC_METADATA);
    static final byte[] METRIC_TEMPORALITY = b(OtlpFields.METRIC_TEMPORALITY);
    static final byte[] METRIC_MONOTONIC = b(OtlpFields.METRIC_MONOTONIC);
    static final byte[] START_TIME = b(OtlpFields.START_TIME);
    static final byte[] EXEMPLARS = b(OtlpFields.EXEMPLARS);
    static final byte[] METRIC_VALUE_PREFIX = b(OtlpFields.METRIC_VALUE_PREFIX);
    static final byte[] HISTOGRAM = b(OtlpFields.HISTOGRAM);
    static final byte[] EXPONENTIAL_HISTOGRAM = b(OtlpFields.EXPONENTIAL_HISTOGRAM);
    static final byte[] SUMMARY = b(OtlpFields.SUMMARY);
    static final byte[] TYPE_GAUGE = b(OtlpFields.TYPE_GAUGE);
    static final byte[] TYPE_SUM = b(OtlpFields.TYPE_SUM);
    static final byte[] TYPE_HISTOGRAM = b(OtlpFields.TYPE_HISTOGRAM);
    static final byte[] TYPE_EXPONENTIAL_HISTOGRAM = b(OtlpFields.TYPE_EXPONENTIAL_HISTOGRAM);
    static final byte[] TYPE_SUMMARY = b(OtlpFields.TYPE_SUMMARY);

    // Hashes (Metadata.hash) of the keys written per record or point, so that no record hashes them again.
    static final int H_SEVERITY_NUMBER = h(SEVERITY_NUMBER);
    static final int H_SEVERITY_TEXT = h(SEVERITY_TEXT);
    static final int H_TRACE_ID = h(TRACE_ID);
    static final int H_SPAN_ID = h(SPAN_ID);
    static final int H_FLAGS = h(FLAGS);
    static final int H_EVENT_NAME = h(EVENT_NAME);
    static final int H_OBSERVED_TIME = h(OBSERVED_TIME);
    static final int H_DROPPED_ATTRIBUTES = h(DROPPED_ATTRIBUTES);
    static final int H_BODY_TYPE = h(BODY_TYPE);
    static final int H_START_TIME = h(START_TIME);
    static final int H_EXEMPLARS = h(EXEMPLARS);
    static final int H_HISTOGRAM = h(HISTOGRAM);
    static final int H_EXPONENTIAL_HISTOGRAM = h(EXPONENTIAL_HISTOGRAM);
    static final int H_SUMMARY = h(SUMMARY);

    private static int h(byte[] key) {
        return Metadata.hash(key, 0, key.length);
    }

    // Member names of the metric JSON values (OTLP JSON's).
    static final byte[] J_COUNT = b("count");
    static final byte[] J_SUM = b("sum");
    static final byte[] J_MIN = b("min");
    static final byte[] J_MAX = b("max");
    static final byte[] J_BUCKET_COUNTS = b("bucketCounts");
    static final byte[] J_EXPLICIT_BOUNDS = b("explicitBounds");
    static final byte[] J_SCALE = b("scale");
    static final byte[] J_ZERO_COUNT = b("zeroCount");
    static final byte[] J_ZERO_THRESHOLD = b("zeroThreshold");
    static final byte[] J_POSITIVE = b("positive");
    static final byte[] J_NEGATIVE = b("negative");
    static final byte[] J_OFFSET = b("offset");
    static final byte[] J_QUANTILE_VALUES = b("quantileValues");
    static final byte[] J_QUANTILE = b("quantile");
    static final byte[] J_VALUE = b("value");
    static final byte[] J_TIME_UNIX_NANO = b("timeUnixNano");
    static final byte[] J_AS_DOUBLE = b("asDouble");
    static final byte[] J_AS_INT = b("asInt");
    static final byte[] J_SPAN_ID = b("spanId");
    static final byte[] J_TRACE_ID = b("traceId");
    static final byte[] J_FILTERED_ATTRIBUTES = b("filteredAttributes");
    /** The members of an EntityRef (otlp.resource.entity_refs), by field number - 1: schema_url, type, id_keys, ... */
    static final byte[][] J_ENTITY_REF = {b("schemaUrl"), b("type"), b("idKeys"), b("descriptionKeys")};

    /** Values of otlp.body_type, indexed by the AnyValue oneof field number (0: empty). */
    static final byte[][] BODY_TYPES = {b("empty"), b("string"), b("bool"), b("int"), b("double"), b("array"),
        b("kvlist"), b("bytes")};

    /** A string's UTF-8 bytes: how every byte constant of the codec is made. */
    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
