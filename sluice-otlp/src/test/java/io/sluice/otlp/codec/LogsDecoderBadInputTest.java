package io.sluice.otlp.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.resource.v1.Resource;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogsDecoderBadInputTest {
    private static int decode(byte[] b) throws OtlpFormatException {
        return new LogsDecoder().decode(b, 0, b.length, new Decoded());
    }

    private static void assertRejected(byte[] b, String reason) {
        assertThatThrownBy(() -> decode(b)).isInstanceOf(OtlpFormatException.class).hasMessageContaining(reason);
    }

    private static List<Map<String, String>> messages(Decoded d, int n) {
        List<Map<String, String>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(message(d, i));
        }
        return out;
    }

    private static Map<String, String> message(Decoded d, int i) {
        Map<String, String> m = new java.util.LinkedHashMap<>(OtlpExpected.metadata(d.get(i)));
        m.put("(payload)", d.get(i).payloadString());
        m.put("(timestamp)", Long.toString(d.get(i).timestamp()));
        return m;
    }

    @Test
    void truncatedAtEveryByteEitherFailsOrDecodesAPrefix() throws Exception {
        // The corpus' first and last resource groups: every kind of field and value, and a group without scopes
        // (the whole corpus takes four times as long and covers nothing more).
        ExportLogsServiceRequest corpus = OtlpCorpus.logs();
        byte[] full = ExportLogsServiceRequest.newBuilder().addResourceLogs(corpus.getResourceLogs(0))
                .addResourceLogs(corpus.getResourceLogs(corpus.getResourceLogsCount() - 1)).build().toByteArray();
        Decoded all = new Decoded();
        int total = new LogsDecoder().decode(full, 0, full.length, all);
        List<Map<String, String>> expected = messages(all, total);
        LogsDecoder decoder = new LogsDecoder();
        Decoded out = new Decoded();
        int prefixes = 0;
        int lastCount = 0;
        for (int cut = 0; cut < full.length; cut++) {
            out.batch.clear();
            try {
                int n = decoder.decode(full, 0, cut, out);
                assertThat(n).isEqualTo(out.size()).isLessThanOrEqualTo(total);
                prefixes++;
            } catch (OtlpFormatException e) {
                assertThat(e.getMessage()).isNotBlank();
                assertThat(e.getStackTrace()).isEmpty();
            } catch (RuntimeException | StackOverflowError e) {
                fail("cut at " + cut + ": " + e, e);
            }
            // What was handed out is whole records, in order. Checked for the last one only when the count grew (the
            // ones before it were checked at earlier cuts): comparing them all at every cut takes minutes.
            if (out.size() > lastCount) {
                int last = out.size() - 1;
                assertThat(message(out, last)).as("cut at %d", cut).isEqualTo(expected.get(last));
                lastCount = out.size();
            }
            try {
                assertThat(LogsDecoder.countRecords(full, 0, cut)).isLessThanOrEqualTo(total);
            } catch (OtlpFormatException e) {
                // fine: the framing is broken
            }
        }
        assertThat(prefixes).as("cuts between resource groups decode what precedes them").isGreaterThan(0);
    }

    @Test
    void aTruncatedRecordSaysWhere() {
        byte[] full = OtlpCorpus.benchmarkLogs(1).toByteArray();
        byte[] cut = java.util.Arrays.copyOf(full, full.length - 3);
        assertThatThrownBy(() -> decode(cut)).isInstanceOf(OtlpFormatException.class).hasMessageContaining("byte");
    }

    @Test
    void knownFieldsWithTheWrongWireTypeAreRejected() {
        assertRejected(Wire.request(Wire.of().varintField(1, 5).bytes()), "wire type"); // time: fixed64
        assertRejected(Wire.request(Wire.of().fixed64Field(2, 5).bytes()), "wire type"); // severity: varint
        assertRejected(Wire.request(Wire.of().varintField(3, 1).bytes()), "wire type"); // severity_text: string
        assertRejected(Wire.request(Wire.of().varintField(5, 1).bytes()), "wire type"); // body: message
        assertRejected(Wire.request(Wire.of().fixed32Field(6, 1).bytes()), "wire type"); // attributes: message
        assertRejected(Wire.request(Wire.of().varintField(8, 1).bytes()), "wire type"); // flags: fixed32
        byte[] anyValue = Wire.of().fixed64Field(3, 7).bytes(); // int_value: varint
        byte[] kv = Wire.of().stringField(1, "k").bytesField(2, anyValue).bytes();
        assertRejected(Wire.request(Wire.of().bytesField(6, kv).bytes()), "wire type");
        assertRejected(Wire.of().varintField(1, 3).bytes(), "wire type"); // resource_logs: message
    }

    @Test
    void lengthsPastTheEndOfTheEnclosingMessageAreRejected() {
        // A record declaring 100 bytes in a buffer with 3.
        assertRejected(Wire.of().tag(1, 2).varint(100).raw((byte) 1, (byte) 2, (byte) 3).bytes(), "runs past");
        // A string that fits in the buffer but not in its record.
        byte[] record = Wire.of().tag(3, 2).varint(10).bytes();
        byte[] req = Wire.request(record);
        byte[] padded = java.util.Arrays.copyOf(req, req.length + 20);
        assertThatThrownBy(() -> new LogsDecoder().decode(padded, 0, padded.length, new Decoded()))
                .isInstanceOf(OtlpFormatException.class);
    }

    @Test
    void hugeDeclaredLengthsAreRejectedWithoutAllocating() {
        assertRejected(Wire.of().tag(1, 2).varint(Integer.MAX_VALUE).bytes(), "runs past");
        assertRejected(Wire.of().tag(1, 2).varint(0xFFFF_FFFFL).bytes(), "runs past");
        assertRejected(Wire.of().tag(1, 2).varint(-1L).bytes(), "runs past"); // ten bytes, 2^64-1
        assertRejected(Wire.request(Wire.of().tag(12, 2).varint(Long.MAX_VALUE).bytes()), "runs past");
        assertThatThrownBy(() -> LogsDecoder.countRecords(Wire.of().tag(1, 2).varint(1L << 40).bytes(), 0, 6))
                .isInstanceOf(OtlpFormatException.class);
    }

    @Test
    void varintsOfElevenBytesAreRejected() {
        byte[] eleven = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
            (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01};
        assertRejected(Wire.request(Wire.of().tag(2, 0).raw(eleven).bytes()), "varint longer than 10 bytes");
        assertRejected(Wire.of().raw(eleven).bytes(), "varint longer than 10 bytes"); // as a tag
        // Ten bytes are fine (a negative severity number is sent so).
        byte[] ten = Wire.request(Wire.of().varintField(2, -5).bytes());
        assertThat(ten).hasSizeGreaterThan(10);
    }

    @Test
    void groupsAndFieldNumberZeroAreRejected() {
        assertRejected(Wire.request(Wire.of().tag(20, 3).tag(20, 4).bytes()), "group");
        assertRejected(Wire.of().tag(1, 4).bytes(), "group");
        assertRejected(Wire.of().tag(0, 0).varint(1).bytes(), "field number 0");
        assertRejected(Wire.of().tag(1, 6).bytes(), "wire type 6");
    }

    @Test
    void idsOfTheWrongSizeAreRejected() {
        assertRejected(Wire.request(Wire.of().bytesField(9, new byte[5]).bytes()), "trace_id");
        assertRejected(Wire.request(Wire.of().bytesField(10, new byte[16]).bytes()), "span_id");
    }

    private static byte[] nestedArrays(int depth) {
        byte[] value = Wire.of().stringField(1, "x").bytes(); // AnyValue{string_value}
        for (int i = 0; i < depth - 1; i++) {
            byte[] array = Wire.of().bytesField(1, value).bytes(); // ArrayValue{values}
            value = Wire.of().bytesField(5, array).bytes(); // AnyValue{array_value}
        }
        return value;
    }

    private static byte[] nestedKvLists(int depth) {
        byte[] value = Wire.of().varintField(3, 1).bytes();
        for (int i = 0; i < depth - 1; i++) {
            byte[] kv = Wire.of().stringField(1, "k").bytesField(2, value).bytes();
            byte[] list = Wire.of().bytesField(1, kv).bytes();
            value = Wire.of().bytesField(6, list).bytes();
        }
        return value;
    }

    private static byte[] recordWithAttribute(byte[] anyValue) {
        byte[] kv = Wire.of().stringField(1, "deep").bytesField(2, anyValue).bytes();
        return Wire.request(Wire.of().bytesField(6, kv).bytes());
    }

    @Test
    void nestingTenThousandDeepIsRejectedWithoutOverflowingTheStack() throws Exception {
        for (byte[] deep : List.of(nestedArrays(10_000), nestedKvLists(10_000))) {
            assertRejected(recordWithAttribute(deep), "nested deeper than 64");
            assertRejected(Wire.request(Wire.of().bytesField(5, deep).bytes()), "nested deeper than 64"); // as body
            // Counting does not look inside records.
            byte[] req = recordWithAttribute(deep);
            assertThat(LogsDecoder.countRecords(req, 0, req.length)).isEqualTo(1);
        }
    }

    @Test
    void nestingUpToTheCapIsDecoded() throws Exception {
        byte[] flat = recordWithAttribute(nestedArrays(1));
        Decoded one = new Decoded();
        new LogsDecoder(1).decode(flat, 0, flat.length, one);
        assertThat(one.get(0).metadata().getString("deep")).isEqualTo("x");
        for (int cap : new int[] {2, 5, 64}) {
            byte[] ok = recordWithAttribute(nestedArrays(cap));
            Decoded out = new Decoded();
            assertThat(new LogsDecoder(cap).decode(ok, 0, ok.length, out)).isEqualTo(1);
            String json = out.get(0).metadata().getString("deep");
            assertThat(out.get(0).metadata().kind(out.get(0).metadata().indexOf("deep"))).isEqualTo(Metadata.JSON);
            assertThat(json).startsWith("[".repeat(cap - 1) + "\"x\"").endsWith("]".repeat(cap - 1));
            byte[] deeper = recordWithAttribute(nestedArrays(cap + 1));
            assertThatThrownBy(() -> new LogsDecoder(cap).decode(deeper, 0, deeper.length, new Decoded()))
                    .isInstanceOf(OtlpFormatException.class).hasMessageContaining("nested deeper than " + cap);
        }
        assertThatThrownBy(() -> new LogsDecoder(65)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LogsDecoder(0)).isInstanceOf(IllegalArgumentException.class);
    }

    private static ExportLogsServiceRequest one(Resource resource, InstrumentationScope scope, LogRecord record) {
        return ExportLogsServiceRequest.newBuilder().addResourceLogs(ResourceLogs.newBuilder().setResource(resource)
                .addScopeLogs(ScopeLogs.newBuilder().setScope(scope).addLogRecords(record))).build();
    }

    /** Stands for a string the generated builders refuse to hold; {@link #breakUtf8} swaps the bytes in. */
    private static final String MARK = "MARK-UTF8";

    /** The serialized request with every {@link #MARK} replaced by invalid UTF-8 of the same length. */
    private static byte[] breakUtf8(ExportLogsServiceRequest req) {
        byte[] b = req.toByteArray();
        byte[] mark = MARK.getBytes(StandardCharsets.US_ASCII);
        int found = 0;
        for (int i = 0; i + mark.length <= b.length; i++) {
            if (java.util.Arrays.equals(b, i, i + mark.length, mark, 0, mark.length)) {
                b[i + 4] = (byte) 0xC3; // C3 followed by '(' (0x28): a lead byte without its continuation
                b[i + 5] = 0x28;
                found++;
            }
        }
        assertThat(found).isPositive();
        return b;
    }

    @Test
    void invalidUtf8IsRejectedWherever() {
        Resource r = Resource.getDefaultInstance();
        InstrumentationScope s = InstrumentationScope.getDefaultInstance();
        LogRecord rec = LogRecord.getDefaultInstance();
        KeyValue badKey = OtlpCorpus.kv(MARK, OtlpCorpus.str("v"));
        KeyValue badValue = OtlpCorpus.kv("k", OtlpCorpus.str(MARK));
        AnyValue badNested = OtlpCorpus.array(OtlpCorpus.kvlist(badValue));
        AnyValue badNestedKey = OtlpCorpus.kvlist(badKey);
        List<ExportLogsServiceRequest> cases = List.of(
                one(r, s, rec.toBuilder().setBody(OtlpCorpus.str(MARK)).build()),
                one(r, s, rec.toBuilder().setSeverityText(MARK).build()),
                one(r, s, rec.toBuilder().setEventName(MARK).build()),
                one(r, s, rec.toBuilder().addAttributes(badKey).build()),
                one(r, s, rec.toBuilder().addAttributes(badValue).build()),
                one(r, s, rec.toBuilder().addAttributes(OtlpCorpus.kv("a", badNested)).build()),
                one(r, s, rec.toBuilder().addAttributes(OtlpCorpus.kv("a", badNestedKey)).build()),
                one(r, s, rec.toBuilder().setBody(badNested).build()),
                one(r.toBuilder().addAttributes(badValue).build(), s, rec),
                one(r, s.toBuilder().setName(MARK).build(), rec),
                one(r, s.toBuilder().setVersion(MARK).build(), rec),
                one(r, s.toBuilder().addAttributes(badKey).build(), rec),
                ExportLogsServiceRequest.newBuilder().addResourceLogs(ResourceLogs.newBuilder().setSchemaUrl(MARK)
                        .addScopeLogs(ScopeLogs.newBuilder().addLogRecords(rec))).build(),
                ExportLogsServiceRequest.newBuilder().addResourceLogs(ResourceLogs.newBuilder()
                        .addScopeLogs(ScopeLogs.newBuilder().setSchemaUrl(MARK).addLogRecords(rec))).build());
        for (ExportLogsServiceRequest req : cases) {
            assertRejected(breakUtf8(req), "UTF-8");
        }
        // Bytes are bytes: the same bytes as a bytes value are fine.
        byte[] ok = breakUtf8(one(r, s, rec.toBuilder().addAttributes(OtlpCorpus.kv("b",
                OtlpCorpus.bytes(MARK.getBytes(StandardCharsets.US_ASCII)))).build()));
        assertThat(catchDecode(ok)).isEqualTo(1);
    }

    private static int catchDecode(byte[] b) {
        try {
            return decode(b);
        } catch (OtlpFormatException e) {
            throw new AssertionError(e);
        }
    }

    private static UnknownFieldSet unknown() {
        return UnknownFieldSet.newBuilder()
                .addField(99, UnknownFieldSet.Field.newBuilder().addVarint(-1).addFixed32(7).addFixed64(8)
                        .addLengthDelimited(ByteString.copyFromUtf8("ignored")).build())
                .addField(1000, UnknownFieldSet.Field.newBuilder().addLengthDelimited(ByteString.copyFrom(
                        new byte[] {'o', 'k', (byte) 0xC3, 0x28})).build())
                .build();
    }

    @Test
    void unknownFieldsAtEveryLevelAreIgnored() throws Exception {
        ExportLogsServiceRequest plain = OtlpCorpus.logs();
        ExportLogsServiceRequest.Builder req = plain.toBuilder().setUnknownFields(unknown());
        for (ResourceLogs.Builder rl : req.getResourceLogsBuilderList()) {
            rl.setUnknownFields(unknown());
            if (rl.hasResource()) {
                rl.getResourceBuilder().setUnknownFields(unknown());
                for (KeyValue.Builder kv : rl.getResourceBuilder().getAttributesBuilderList()) {
                    kv.setUnknownFields(unknown());
                    kv.getValueBuilder().setUnknownFields(unknown());
                }
            }
            for (ScopeLogs.Builder sl : rl.getScopeLogsBuilderList()) {
                sl.setUnknownFields(unknown());
                sl.getScopeBuilder().setUnknownFields(unknown());
                for (LogRecord.Builder r : sl.getLogRecordsBuilderList()) {
                    r.setUnknownFields(unknown());
                    for (KeyValue.Builder kv : r.getAttributesBuilderList()) {
                        kv.setUnknownFields(unknown());
                    }
                }
            }
        }
        byte[] bytes = req.build().toByteArray();
        assertThat(bytes.length).isGreaterThan(plain.toByteArray().length);
        Decoded out = new Decoded();
        new LogsDecoder().decode(bytes, 0, bytes.length, out);
        LogsDecoderTest.assertDecodesAsExpected(plain, out);
        assertThat(LogsDecoder.countRecords(bytes, 0, bytes.length)).isEqualTo(out.size());
    }

    @Test
    void fieldsOutOfOrderDecodeAsInOrder() throws Exception {
        // The schema URL before the scopes, the resource after them: protobuf allows any order.
        byte[] record = Wire.of().stringField(3, "WARN").fixed64Field(1, 42).bytes();
        byte[] scope = Wire.of().stringField(3, "https://s").bytesField(2, record)
                .bytesField(1, Wire.of().stringField(1, "scope-name").bytes()).bytes();
        byte[] resource = Wire.of().stringField(3, "https://r").bytesField(2, scope)
                .bytesField(1, Wire.of().bytesField(1, Wire.of().stringField(1, "a")
                        .bytesField(2, Wire.of().stringField(1, "b").bytes()).bytes()).bytes()).bytes();
        byte[] req = Wire.of().bytesField(1, resource).bytes();
        Decoded out = new Decoded();
        assertThat(new LogsDecoder().decode(req, 0, req.length, out)).isEqualTo(1);
        assertThat(OtlpExpected.metadata(out.get(0))).containsExactly(
                Map.entry("otlp.signal", "S:log"), Map.entry("resource.a", "S:b"),
                Map.entry("otlp.resource.schema_url", "S:https://r"), Map.entry("scope.name", "S:scope-name"),
                Map.entry("otlp.scope.schema_url", "S:https://s"), Map.entry("otlp.severity_text", "S:WARN"),
                Map.entry("otlp.body_type", "S:empty"));
        assertThat(out.get(0).timestamp()).isEqualTo(42);
    }
}
