package io.sluice.hec.codec;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * What an {@link HecEncoder} writes: the default {@code host}, {@code source}, {@code sourcetype} and
 * {@code index} (pre-encoded once), how the payload becomes {@code event}, which metadata become
 * {@code fields}, multi-metric merging, raw mode, and the size limits. Immutable; shared by encoders.
 */
public final class HecFormat {
    /** How a message payload becomes the event's {@code event} value. */
    public enum EventFormat {
        /** A payload that is one valid JSON object or array is sent as JSON, anything else as a string. */
        AUTO,
        /** Always a JSON string. */
        STRING,
        /** Always embedded as JSON, unchecked: only for payloads known to be valid JSON. */
        JSON;

        /** The spelling of producer.SplunkHEC's EventFormat setting: auto, string or json. */
        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    final byte[] host;
    final byte[] source;
    final byte[] sourcetype;
    final byte[] index;
    final EventFormat eventFormat;
    final byte[][] fieldKeys;
    final boolean multiMetric;
    final boolean raw;
    final int maxEventSize;
    final int maxContentLength;
    final boolean gzip;
    final int gzipLevel;
    /** Bytes of the four encoded defaults together, for the encoder's worst-case room. */
    final int defaultsLength;
    /** The configured default host as text (null when empty): OTLP events fall back to it before "unknown". */
    final byte[] hostValue;
    /** The configured default source, sourcetype and index as text (null when empty), for OTLP events. */
    final byte[] sourceValue;
    final byte[] sourcetypeValue;
    final byte[] indexValue;
    /**
     * OTLP: the resource or record attributes that become host, source, sourcetype and index (the exporter's
     * {@code otel_attrs_to_hec_metadata}), and the {@code fields} keys of a log record's severity (its
     * {@code otel_to_hec_fields}).
     */
    final byte[] otelHostKey;
    final byte[] otelSourceKey;
    final byte[] otelSourcetypeKey;
    final byte[] otelIndexKey;
    final byte[] severityTextKey;
    final byte[] severityNumberKey;

    private HecFormat(Builder b) {
        host = encoded("host", b.host);
        source = encoded("source", b.source);
        sourcetype = encoded("sourcetype", b.sourcetype);
        index = encoded("index", b.index);
        eventFormat = b.eventFormat;
        fieldKeys = b.fields == null || b.fields.isEmpty() ? null
                : b.fields.stream().map(s -> s.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        multiMetric = b.multiMetric;
        raw = b.raw;
        maxEventSize = b.maxEventSize;
        maxContentLength = b.maxContentLength;
        gzip = b.gzip;
        gzipLevel = b.gzipLevel;
        defaultsLength = length(host) + length(source) + length(sourcetype) + length(index);
        hostValue = text(b.host);
        sourceValue = text(b.source);
        sourcetypeValue = text(b.sourcetype);
        indexValue = text(b.index);
        otelHostKey = utf8(b.otelHost);
        otelSourceKey = utf8(b.otelSource);
        otelSourcetypeKey = utf8(b.otelSourcetype);
        otelIndexKey = utf8(b.otelIndex);
        severityTextKey = utf8(b.severityText);
        severityNumberKey = utf8(b.severityNumber);
    }

    private static byte[] text(String v) {
        return v == null || v.isEmpty() ? null : v.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String v) {
        return v.getBytes(StandardCharsets.UTF_8);
    }

    private static int length(byte[] b) {
        return b == null ? 0 : b.length;
    }

    /** {@code "key":"value",} ready to copy, or null when the default is empty. */
    private static byte[] encoded(String key, String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        ByteOut o = new ByteOut(key.length() + value.length() + 8);
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        o.writeQuoted(k, 0, k.length);
        o.write(':');
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        o.writeQuoted(v, 0, v.length);
        o.write(',');
        return java.util.Arrays.copyOf(o.array(), o.length());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Settings for {@link HecFormat}; defaults are Splunk's and the OTel exporter's. */
    public static final class Builder {
        private String host;
        private String source;
        private String sourcetype;
        private String index;
        private EventFormat eventFormat = EventFormat.AUTO;
        private List<String> fields;
        private boolean multiMetric;
        private boolean raw;
        private int maxEventSize = 5 * 1024 * 1024;
        private int maxContentLength = 2 * 1024 * 1024;
        private boolean gzip = true;
        private int gzipLevel = 6;
        // The OTel exporter's defaults (config.go, factory.go: otel_attrs_to_hec_metadata, otel_to_hec_fields).
        private String otelHost = "host.name";
        private String otelSource = "com.splunk.source";
        private String otelSourcetype = "com.splunk.sourcetype";
        private String otelIndex = "com.splunk.index";
        private String severityText = "otel.log.severity.text";
        private String severityNumber = "otel.log.severity.number";

        public Builder host(String v) { host = v; return this; }
        public Builder source(String v) { source = v; return this; }
        public Builder sourcetype(String v) { sourcetype = v; return this; }
        public Builder index(String v) { index = v; return this; }
        public Builder eventFormat(EventFormat v) { eventFormat = v; return this; }
        /** Metadata keys sent as {@code fields}; empty or null sends every non-reserved key. */
        public Builder fields(List<String> v) { fields = v; return this; }
        public Builder multiMetric(boolean v) { multiMetric = v; return this; }
        public Builder raw(boolean v) { raw = v; return this; }
        public Builder maxEventSize(int v) { maxEventSize = v; return this; }
        public Builder maxContentLength(int v) { maxContentLength = v; return this; }
        public Builder gzip(boolean v) { gzip = v; return this; }
        public Builder gzipLevel(int v) { gzipLevel = v; return this; }
        /** OTLP: the attribute whose value becomes {@code host} (default {@code host.name}). */
        public Builder otelHostAttribute(String v) { otelHost = v; return this; }
        /** OTLP: the attribute whose value becomes {@code source} (default {@code com.splunk.source}). */
        public Builder otelSourceAttribute(String v) { otelSource = v; return this; }
        /** OTLP: the attribute whose value becomes {@code sourcetype} (default {@code com.splunk.sourcetype}). */
        public Builder otelSourcetypeAttribute(String v) { otelSourcetype = v; return this; }
        /** OTLP: the attribute whose value becomes {@code index} (default {@code com.splunk.index}). */
        public Builder otelIndexAttribute(String v) { otelIndex = v; return this; }
        /** OTLP logs: the {@code fields} key of the severity text (default {@code otel.log.severity.text}). */
        public Builder severityTextField(String v) { severityText = v; return this; }
        /** OTLP logs: the {@code fields} key of the severity number (default {@code otel.log.severity.number}). */
        public Builder severityNumberField(String v) { severityNumber = v; return this; }

        public HecFormat build() {
            if (maxContentLength < 64) {
                throw new IllegalArgumentException("MaxContentLength must be at least 64 bytes");
            }
            return new HecFormat(this);
        }
    }
}
