package io.sluice.otlp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.sluice.core.message.Message;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogsDecoderTest {
    /** Decodes {@code req} and checks every message against what OtlpExpected computes from the objects. */
    static void assertDecodesAsExpected(ExportLogsServiceRequest req, Decoded out) {
        int i = 0;
        for (ResourceLogs rl : req.getResourceLogsList()) {
            for (ScopeLogs sl : rl.getScopeLogsList()) {
                Map<String, String> prefix = OtlpExpected.prefix("log", rl.hasResource() ? rl.getResource() : null,
                        rl.getSchemaUrl(), sl.hasScope() ? sl.getScope() : null, sl.getSchemaUrl());
                for (LogRecord r : sl.getLogRecordsList()) {
                    Message m = out.get(i);
                    String where = "record " + i + " (" + r.getBody().getValueCase() + ")";
                    assertThat(m.timestamp()).as(where).isEqualTo(r.getTimeUnixNano());
                    assertThat(m.payloadString()).as(where).isEqualTo(OtlpExpected.logPayload(r));
                    Map<String, String> md = OtlpExpected.metadata(m);
                    assertThat(md).as(where).containsExactlyEntriesOf(OtlpExpected.logRecord(prefix, r));
                    assertThat(md.keySet().iterator().next()).isEqualTo("otlp.signal");
                    i++;
                }
            }
        }
        assertThat(out.size()).isEqualTo(i);
    }

    @Test
    void corpusDecodesToTheMessagesOtlpFieldsDescribes() throws Exception {
        ExportLogsServiceRequest req = OtlpCorpus.logs();
        byte[] bytes = req.toByteArray();
        Decoded out = new Decoded();
        int n = new LogsDecoder().decode(bytes, 0, bytes.length, out);
        assertThat(n).isEqualTo(out.size()).isGreaterThan(50);
        assertDecodesAsExpected(req, out);
    }

    @Test
    void aResourceGroupWithoutAResourceDoesNotInheritTheEntityRefsOfTheGroupBefore() throws Exception {
        LogRecord rec = LogRecord.newBuilder().setTimeUnixNano(1)
                .setBody(io.opentelemetry.proto.common.v1.AnyValue.newBuilder().setStringValue("x")).build();
        ExportLogsServiceRequest req = ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(ResourceLogs.newBuilder()
                        .setResource(io.opentelemetry.proto.resource.v1.Resource.newBuilder().addEntityRefs(
                                io.opentelemetry.proto.common.v1.EntityRef.newBuilder().setType("service")))
                        .addScopeLogs(ScopeLogs.newBuilder().addLogRecords(rec)))
                .addResourceLogs(ResourceLogs.newBuilder().addScopeLogs(ScopeLogs.newBuilder().addLogRecords(rec)))
                .build();
        byte[] bytes = req.toByteArray();
        Decoded out = new Decoded();
        assertThat(new LogsDecoder().decode(bytes, 0, bytes.length, out)).isEqualTo(2);
        assertDecodesAsExpected(req, out);
    }

    @Test
    void countRecordsCountsWhatDecodeMakes() throws Exception {
        byte[] bytes = OtlpCorpus.logs().toByteArray();
        int expected = OtlpCorpus.logs().getResourceLogsList().stream()
                .flatMap(rl -> rl.getScopeLogsList().stream()).mapToInt(ScopeLogs::getLogRecordsCount).sum();
        assertThat(LogsDecoder.countRecords(bytes, 0, bytes.length)).isEqualTo(expected);
        assertThat(LogsDecoder.countRecords(new byte[0], 0, 0)).isZero();
    }

    @Test
    void decodesARequestInTheMiddleOfABuffer() throws Exception {
        ExportLogsServiceRequest req = OtlpCorpus.benchmarkLogs(20);
        byte[] bytes = req.toByteArray();
        byte[] framed = new byte[bytes.length + 10];
        java.util.Arrays.fill(framed, (byte) 0xff);
        System.arraycopy(bytes, 0, framed, 5, bytes.length);
        Decoded out = new Decoded();
        assertThat(new LogsDecoder().decode(framed, 5, bytes.length, out)).isEqualTo(20);
        assertDecodesAsExpected(req, out);
    }

    @Test
    void aReusedDecoderAndReusedMessagesGiveTheSameResult() throws Exception {
        ExportLogsServiceRequest req = OtlpCorpus.logs();
        byte[] bytes = req.toByteArray();
        LogsDecoder decoder = new LogsDecoder();
        Decoded out = new Decoded();
        decoder.decode(bytes, 0, bytes.length, out);
        out.batch.clear();
        byte[] small = OtlpCorpus.benchmarkLogs(3).toByteArray();
        decoder.decode(small, 0, small.length, out);
        out.batch.clear();
        decoder.decode(bytes, 0, bytes.length, out);
        assertDecodesAsExpected(req, out);
    }

    @Test
    void anEmptyRequestHasNoRecords() throws Exception {
        Decoded out = new Decoded();
        assertThat(new LogsDecoder().decode(new byte[0], 0, 0, out)).isZero();
        assertThat(out.size()).isZero();
    }

    @Test
    void aStringBodyIsThePayloadAsItCame() throws Exception {
        String text = "line with \"quotes\" and \\ and ü";
        ExportLogsServiceRequest req = ExportLogsServiceRequest.newBuilder().addResourceLogs(ResourceLogs.newBuilder()
                .addScopeLogs(ScopeLogs.newBuilder().addLogRecords(LogRecord.newBuilder()
                        .setBody(OtlpCorpus.str(text))))).build();
        byte[] bytes = req.toByteArray();
        Decoded out = new Decoded();
        new LogsDecoder().decode(bytes, 0, bytes.length, out);
        Message m = out.get(0);
        assertThat(new String(m.payload(), 0, m.length(), StandardCharsets.UTF_8)).isEqualTo(text);
        assertThat(m.metadata().indexOf("otlp.body_type")).isNegative();
        assertThat(OtlpExpected.metadata(m)).containsExactly(Map.entry("otlp.signal", "S:log"));
    }

    /**
     * Keys that meet: attributes named like a resource or scope field, like a record's own otlp.* field, the same
     * attribute twice, with records whose attributes change order and set between records (the decoder caches
     * keys per position). A key set twice keeps its first place and its last value (OtlpFields).
     */
    @Test
    void keysSetTwiceKeepTheirFirstPlaceAndTheirLastValue() throws Exception {
        ScopeLogs.Builder sl = ScopeLogs.newBuilder().setScope(io.opentelemetry.proto.common.v1.InstrumentationScope
                .newBuilder().setName("scope-name").addAttributes(OtlpCorpus.kv("a", OtlpCorpus.str("scope a"))));
        String[][] keySets = {
            {"resource.service.name", "otlp.severity_text", "scope.name", "x", "x", "otlp.signal"},
            {"x", "y", "x", "scope.attributes.a", "otlp.trace_id", "otlp.body_type"},
            {"y", "x", "otlp.dropped_attributes_count", "otlp.observed_time_unix_nano", "otlp.flags", "z"},
            {"a", "b", "c", "d", "e", "f"},
            {"a", "b", "c", "d", "e", "a"},
            {"a", "b", "c", "d", "e", "f"},
            {"resource.service.name", "b", "c", "d", "e", "f"},
            {"otlp.span_id", "otlp.event_name", "otlp.severity_number", "b", "b", "b"},
        };
        for (int round = 0; round < 3; round++) {
            for (int k = 0; k < keySets.length; k++) {
                LogRecord.Builder r = LogRecord.newBuilder().setSeverityText("WARN").setSeverityNumberValue(13)
                        .setFlags(1).setObservedTimeUnixNano(5).setDroppedAttributesCount(1).setEventName("ev")
                        .setTraceId(com.google.protobuf.ByteString.copyFrom(OtlpCorpus.TRACE_ID))
                        .setSpanId(com.google.protobuf.ByteString.copyFrom(OtlpCorpus.SPAN_ID));
                if (k % 2 == 0) {
                    r.setBody(OtlpCorpus.integer(k));
                }
                String[] keys = keySets[k];
                for (int a = 0; a < keys.length; a++) {
                    r.addAttributes(OtlpCorpus.kv(keys[a], a % 2 == 0 ? OtlpCorpus.str("v" + k + "." + a)
                            : OtlpCorpus.integer(k * 10 + a)));
                }
                sl.addLogRecords(r);
            }
        }
        ExportLogsServiceRequest req = ExportLogsServiceRequest.newBuilder().addResourceLogs(ResourceLogs.newBuilder()
                .setResource(OtlpCorpus.resource(1).toBuilder()
                        .addAttributes(OtlpCorpus.kv("service.name", OtlpCorpus.str("twice"))))
                .addScopeLogs(sl)).build();
        byte[] bytes = req.toByteArray();
        Decoded out = new Decoded();
        LogsDecoder decoder = new LogsDecoder();
        assertThat(decoder.decode(bytes, 0, bytes.length, out)).isEqualTo(3 * keySets.length);
        assertDecodesAsExpected(req, out);
        out.batch.clear();
        decoder.decode(bytes, 0, bytes.length, out);
        assertDecodesAsExpected(req, out);
    }
}
