package io.sluice.hec.codec;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.OtlpFields;
import java.nio.charset.StandardCharsets;

/**
 * Builds messages as consumer.OTLP writes a log record or metric data point ({@link OtlpFields}): {@code
 * otlp.signal} first, resource attributes as {@code resource.<key>}, the record's own fields as {@code otlp.*},
 * its attributes unprefixed, values by the contract's rules. What the exporter's tests build with pdata, re-typed.
 */
final class OtlpMessages {
    private OtlpMessages() {
    }

    /** An attribute value that is a JSON array, key-value list or bytes, as its contract JSON text. */
    record Json(String text) {
    }

    /** Bytes, as the contract spells them. */
    static Json bytes(String base64) {
        return new Json("{\"bytesValue\":\"" + base64 + "\"}");
    }

    static Builder log(Batch b) {
        return new Builder(b.add(), OtlpFields.SIGNAL_LOG);
    }

    static Builder metric(Batch b, String name) {
        Builder m = new Builder(b.add(), OtlpFields.SIGNAL_METRIC);
        m.m.setPayload(name);
        return m;
    }

    static final class Builder {
        final Message m;

        Builder(Message m, String signal) {
            this.m = m;
            m.setPayload("");
            m.setTimestamp(0);
            m.metadata().setString(OtlpFields.SIGNAL, signal);
        }

        private Builder put(String key, Object v) {
            byte[] k = key.getBytes(StandardCharsets.UTF_8);
            Metadata md = m.metadata();
            if (v == null) {
                md.set(k, "null".getBytes(StandardCharsets.US_ASCII), Metadata.NULL);
            } else if (v instanceof String s) {
                md.set(k, s.getBytes(StandardCharsets.UTF_8), Metadata.STRING);
            } else if (v instanceof Boolean bool) {
                md.set(k, bool.toString().getBytes(StandardCharsets.US_ASCII), Metadata.BOOLEAN);
            } else if (v instanceof Double d) {
                if (d.isNaN() || d.isInfinite()) { // JSON cannot write them: strings, as OTLP JSON does
                    md.set(k, (d.isNaN() ? "NaN" : d > 0 ? "Infinity" : "-Infinity").getBytes(StandardCharsets.US_ASCII),
                            Metadata.STRING);
                } else {
                    md.set(k, d.toString().getBytes(StandardCharsets.US_ASCII), Metadata.NUMBER); // "123.0": a double
                }
            } else if (v instanceof Number n) {
                md.set(k, n.toString().getBytes(StandardCharsets.US_ASCII), Metadata.NUMBER);
            } else if (v instanceof Json j) {
                md.set(k, j.text().getBytes(StandardCharsets.UTF_8), Metadata.JSON);
            } else {
                throw new IllegalArgumentException(String.valueOf(v));
            }
            return this;
        }

        Builder resource(String key, Object v) {
            return put(OtlpFields.RESOURCE_PREFIX + key, v);
        }

        Builder scope(String name) {
            return put(OtlpFields.SCOPE_NAME, name);
        }

        Builder attr(String key, Object v) {
            return put(key, v);
        }

        Builder time(long nanos) {
            m.setTimestamp(nanos);
            return this;
        }

        Builder observed(long nanos) {
            return put(OtlpFields.OBSERVED_TIME, nanos);
        }

        Builder body(String s) {
            m.setPayload(s);
            return this;
        }

        /** A body that is not a string: its JSON text and {@code otlp.body_type}. */
        Builder body(String type, String json) {
            m.setPayload(json);
            return put(OtlpFields.BODY_TYPE, type);
        }

        Builder noBody() {
            m.setPayload("");
            return put(OtlpFields.BODY_TYPE, "empty");
        }

        Builder severity(String text, int number) {
            if (text != null) {
                put(OtlpFields.SEVERITY_TEXT, text);
            }
            return number == 0 ? this : put(OtlpFields.SEVERITY_NUMBER, number);
        }

        Builder ids(String traceHex, String spanHex) {
            put(OtlpFields.TRACE_ID, traceHex);
            return put(OtlpFields.SPAN_ID, spanHex);
        }

        Builder type(String type) {
            return put(OtlpFields.METRIC_TYPE, type);
        }

        /** A gauge or sum point's value, {@code metric_name:<name>}: Long or Double. */
        Builder value(Object v) {
            return put(OtlpFields.METRIC_VALUE_PREFIX + m.payloadString(), v);
        }

        Builder histogram(String json) {
            put(OtlpFields.METRIC_TEMPORALITY, 2);
            return put(OtlpFields.HISTOGRAM, new Json(json));
        }

        Builder summary(String json) {
            return put(OtlpFields.SUMMARY, new Json(json));
        }

        Builder exponentialHistogram(String json) {
            return put(OtlpFields.EXPONENTIAL_HISTOGRAM, new Json(json));
        }
    }
}
