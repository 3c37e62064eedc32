package io.sluice.otlp.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.sluice.core.message.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsDecoderTest {
    /** Every point of {@code req}, as OtlpExpected computes it from the objects. */
    static List<OtlpExpected.Point> expected(ExportMetricsServiceRequest req) {
        List<OtlpExpected.Point> out = new ArrayList<>();
        for (ResourceMetrics rm : req.getResourceMetricsList()) {
            for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                Map<String, String> prefix = OtlpExpected.prefix("metric", rm.hasResource() ? rm.getResource() : null,
                        rm.getSchemaUrl(), sm.hasScope() ? sm.getScope() : null, sm.getSchemaUrl());
                for (Metric m : sm.getMetricsList()) {
                    if (m.getDataCase() != Metric.DataCase.DATA_NOT_SET) {
                        out.addAll(OtlpExpected.points(OtlpExpected.metric(prefix, m), m));
                    }
                }
            }
        }
        return out;
    }

    static void assertDecodesAsExpected(ExportMetricsServiceRequest req, Decoded out) {
        List<OtlpExpected.Point> expected = expected(req);
        assertThat(out.size()).isEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            Message m = out.get(i);
            OtlpExpected.Point p = expected.get(i);
            assertThat(m.timestamp()).as("point %d", i).isEqualTo(p.timestamp());
            assertThat(m.payloadString()).as("point %d", i).isEqualTo(p.payload());
            assertThat(OtlpExpected.metadata(m)).as("point %d", i).containsExactlyEntriesOf(p.metadata());
        }
    }

    @Test
    void corpusDecodesToOneMessagePerDataPoint() throws Exception {
        ExportMetricsServiceRequest req = OtlpCorpus.metricsRequest();
        byte[] bytes = req.toByteArray();
        Decoded out = new Decoded();
        int n = new MetricsDecoder().decode(bytes, 0, bytes.length, out);
        assertThat(n).isEqualTo(out.size()).isEqualTo(4 * 15);
        assertDecodesAsExpected(req, out);
        assertThat(MetricsDecoder.countPoints(bytes, 0, bytes.length)).isEqualTo(n);
    }

    @Test
    void unpackedRepeatedScalarsDecodeAsPacked() throws Exception {
        // bucket_counts (6) and explicit_bounds (7) one element per field, as a proto2-style writer sends them.
        Wire point = Wire.of().fixed64Field(4, 3).fixed64Field(6, 1).fixed64Field(6, 2)
                .fixed64Field(7, Double.doubleToLongBits(2.5));
        byte[] histogram = Wire.of().bytesField(1, point.bytes()).varintField(2, 2).bytes();
        byte[] metric = Wire.of().stringField(1, "h").bytesField(9, histogram).bytes();
        byte[] req = Wire.request(metric);
        Decoded out = new Decoded();
        assertThat(new MetricsDecoder().decode(req, 0, req.length, out)).isEqualTo(1);
        assertThat(out.get(0).metadata().getString("otlp.histogram"))
                .isEqualTo("{\"count\":3,\"bucketCounts\":[1,2],\"explicitBounds\":[2.5]}");
        assertThat(out.get(0).metadata().getString("otlp.metric.temporality")).isEqualTo("2");
    }

    @Test
    void truncatedAtEveryByteEitherFailsOrDecodesAPrefix() throws Exception {
        byte[] full = OtlpCorpus.metricsRequest().toByteArray();
        MetricsDecoder decoder = new MetricsDecoder();
        Decoded out = new Decoded();
        for (int cut = 0; cut < full.length; cut++) {
            out.batch.clear();
            try {
                decoder.decode(full, 0, cut, out);
            } catch (OtlpFormatException e) {
                assertThat(e.getMessage()).isNotBlank();
            } catch (RuntimeException | StackOverflowError e) {
                fail("cut at " + cut + ": " + e, e);
            }
            try {
                MetricsDecoder.countPoints(full, 0, cut);
            } catch (OtlpFormatException e) {
                // fine
            }
        }
    }

    private static com.google.protobuf.UnknownFieldSet unknown() {
        return com.google.protobuf.UnknownFieldSet.newBuilder()
                .addField(99, com.google.protobuf.UnknownFieldSet.Field.newBuilder().addVarint(-1).addFixed32(7)
                        .addFixed64(8).addLengthDelimited(com.google.protobuf.ByteString.copyFromUtf8("x")).build())
                .build();
    }

    @Test
    void unknownFieldsAtEveryLevelAreIgnored() throws Exception {
        ExportMetricsServiceRequest plain = OtlpCorpus.metricsRequest();
        ExportMetricsServiceRequest.Builder req = plain.toBuilder().setUnknownFields(unknown());
        for (ResourceMetrics.Builder rm : req.getResourceMetricsBuilderList()) {
            rm.setUnknownFields(unknown());
            for (ScopeMetrics.Builder sm : rm.getScopeMetricsBuilderList()) {
                sm.setUnknownFields(unknown());
                for (Metric.Builder m : sm.getMetricsBuilderList()) {
                    m.setUnknownFields(unknown());
                    switch (m.getDataCase()) {
                        case GAUGE -> m.getGaugeBuilder().getDataPointsBuilderList().forEach(p -> {
                            p.setUnknownFields(unknown());
                            p.getExemplarsBuilderList().forEach(e -> e.setUnknownFields(unknown()));
                        });
                        case SUM -> m.getSumBuilder().setUnknownFields(unknown());
                        case HISTOGRAM -> m.getHistogramBuilder().getDataPointsBuilderList()
                                .forEach(p -> p.setUnknownFields(unknown()));
                        case EXPONENTIAL_HISTOGRAM -> m.getExponentialHistogramBuilder().getDataPointsBuilderList()
                                .forEach(p -> p.setUnknownFields(unknown()).getPositiveBuilder().setUnknownFields(unknown()));
                        case SUMMARY -> m.getSummaryBuilder().getDataPointsBuilderList().forEach(p -> {
                            p.setUnknownFields(unknown());
                            p.getQuantileValuesBuilderList().forEach(q -> q.setUnknownFields(unknown()));
                        });
                        default -> { }
                    }
                }
            }
        }
        byte[] bytes = req.build().toByteArray();
        Decoded out = new Decoded();
        new MetricsDecoder().decode(bytes, 0, bytes.length, out);
        // The reference reads known fields only; what it reads here includes the positive buckets made to hold
        // unknown fields (present, so kept present), and nothing of the unknown fields themselves.
        assertDecodesAsExpected(ExportMetricsServiceRequest.parseFrom(bytes), out);
        assertThat(out.size()).isEqualTo(MetricsDecoder.countPoints(plain.toByteArray(), 0, plain.getSerializedSize()));
        assertThat(MetricsDecoder.countPoints(bytes, 0, bytes.length)).isEqualTo(out.size());
    }

    @Test
    void theLastDataOfAMetricWins() throws Exception {
        // Metric.data is a oneof: a second member replaces the first, as protobuf parses it.
        byte[] gauge = Wire.of().bytesField(1, Wire.of().fixed64Field(6, 5).bytes()).bytes();
        byte[] sum = Wire.of().bytesField(1, Wire.of().fixed64Field(6, 7).bytes())
                .bytesField(1, Wire.of().fixed64Field(6, 8).bytes()).varintField(3, 1).bytes();
        byte[] req = Wire.request(Wire.of().stringField(1, "m").bytesField(5, gauge).bytesField(7, sum).bytes());
        Decoded out = new Decoded();
        assertThat(new MetricsDecoder().decode(req, 0, req.length, out)).isEqualTo(2);
        assertThat(MetricsDecoder.countPoints(req, 0, req.length)).isEqualTo(2);
        assertThat(OtlpExpected.metadata(out.get(1))).containsEntry("otlp.metric.type", "S:sum")
                .containsEntry("otlp.metric.monotonic", "B:true").containsEntry("metric_name:m", "N:8");
    }

    @Test
    void badPointsAreRejected() {
        byte[] wrongType = Wire.request(Wire.of().stringField(1, "g")
                .bytesField(5, Wire.of().bytesField(1, Wire.of().varintField(4, 1).bytes()).bytes()).bytes());
        assertThatThrownBy(() -> new MetricsDecoder().decode(wrongType, 0, wrongType.length, new Decoded()))
                .isInstanceOf(OtlpFormatException.class).hasMessageContaining("wire type");
        // A packed fixed64 array whose length is not a multiple of 8.
        byte[] ragged = Wire.request(Wire.of().stringField(1, "h").bytesField(9, Wire.of().bytesField(1,
                Wire.of().bytesField(6, new byte[12]).bytes()).bytes()).bytes());
        assertThatThrownBy(() -> new MetricsDecoder().decode(ragged, 0, ragged.length, new Decoded()))
                .isInstanceOf(OtlpFormatException.class).hasMessageContaining("truncated");
        byte[] badExemplarId = Wire.request(Wire.of().stringField(1, "g").bytesField(5, Wire.of().bytesField(1,
                Wire.of().bytesField(5, Wire.of().bytesField(5, new byte[3]).bytes()).bytes()).bytes()).bytes());
        assertThatThrownBy(() -> new MetricsDecoder().decode(badExemplarId, 0, badExemplarId.length, new Decoded()))
                .isInstanceOf(OtlpFormatException.class).hasMessageContaining("trace_id");
        byte[] badName = Wire.request(Wire.of().bytesField(1, new byte[] {'a', (byte) 0xFF}).bytesField(5,
                Wire.of().bytesField(1, new byte[0]).bytes()).bytes());
        assertThatThrownBy(() -> new MetricsDecoder().decode(badName, 0, badName.length, new Decoded()))
                .isInstanceOf(OtlpFormatException.class).hasMessageContaining("UTF-8");
    }
}
