package io.sluice.otlp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.EntityRef;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.resource.v1.Resource;
import io.sluice.otlp.TestMessages;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Messages built by the contract (OtlpFields) → LogsEncoder → the official generated parser, field by field. */
class LogsEncoderTest {
    static ExportLogsServiceRequest encode(TestMessages t, int start) throws Exception {
        LogsEncoder enc = new LogsEncoder();
        int n = enc.encode(t.batch(), 0, t.batch().size(), start);
        assertThat(n).isPositive();
        return ExportLogsServiceRequest.parseFrom(Arrays.copyOfRange(enc.buffer(), start, start + enc.length()));
    }

    static KeyValue kv(String k, AnyValue v) {
        return KeyValue.newBuilder().setKey(k).setValue(v).build();
    }

    static AnyValue s(String v) {
        return AnyValue.newBuilder().setStringValue(v).build();
    }

    static AnyValue i(long v) {
        return AnyValue.newBuilder().setIntValue(v).build();
    }

    static AnyValue d(double v) {
        return AnyValue.newBuilder().setDoubleValue(v).build();
    }

    static AnyValue b(boolean v) {
        return AnyValue.newBuilder().setBoolValue(v).build();
    }

    static AnyValue arr(AnyValue... vs) {
        return AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder().addAllValues(Arrays.asList(vs))).build();
    }

    static AnyValue kvl(KeyValue... kvs) {
        return AnyValue.newBuilder().setKvlistValue(KeyValueList.newBuilder().addAllValues(Arrays.asList(kvs))).build();
    }

    static AnyValue empty() {
        return AnyValue.getDefaultInstance();
    }

    @Test
    void recordsOfEqualResourceAndScopeShareOneGroupWhereverTheyAre() throws Exception {
        TestMessages t = new TestMessages(8);
        t.add("a", 1).log().str("resource.service.name", "api").str("scope.name", "x").str("k", "1");
        t.add("b", 2).log().str("resource.service.name", "db").str("scope.name", "x");
        t.add("c", 3).log().str("resource.service.name", "api").str("scope.name", "x");
        t.add("d", 4).log().str("resource.service.name", "api").str("scope.name", "y").str("scope.version", "2");
        t.add("e", 5).log().str("resource.service.name", "db").str("scope.name", "x");
        ExportLogsServiceRequest r = encode(t, 0);

        Resource api = Resource.newBuilder().addAttributes(kv("service.name", s("api"))).build();
        Resource db = Resource.newBuilder().addAttributes(kv("service.name", s("db"))).build();
        InstrumentationScope x = InstrumentationScope.newBuilder().setName("x").build();
        InstrumentationScope y = InstrumentationScope.newBuilder().setName("y").setVersion("2").build();
        ExportLogsServiceRequest want = ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(ResourceLogs.newBuilder().setResource(api)
                        .addScopeLogs(ScopeLogs.newBuilder().setScope(x)
                                .addLogRecords(rec("a", 1).addAttributes(kv("k", s("1"))))
                                .addLogRecords(rec("c", 3)))
                        .addScopeLogs(ScopeLogs.newBuilder().setScope(y).addLogRecords(rec("d", 4))))
                .addResourceLogs(ResourceLogs.newBuilder().setResource(db)
                        .addScopeLogs(ScopeLogs.newBuilder().setScope(x)
                                .addLogRecords(rec("b", 2)).addLogRecords(rec("e", 5))))
                .build();
        assertThat(r).isEqualTo(want);
    }

    private static LogRecord.Builder rec(String body, long time) {
        return LogRecord.newBuilder().setTimeUnixNano(time).setBody(s(body));
    }

    @Test
    void everyFieldOfARecordResourceAndScope() throws Exception {
        TestMessages t = new TestMessages(4);
        t.add("hello \"world\"\n", 1_700_000_000_123_456_789L).log()
                .str("resource.host.name", "h1").num("resource.pid", "42")
                .str("otlp.resource.schema_url", "https://opentelemetry.io/schemas/1.21.0")
                .num("otlp.resource.dropped_attributes_count", "3")
                .json("otlp.resource.entity_refs", "[{\"schemaUrl\":\"https://e\",\"type\":\"service\","
                        + "\"idKeys\":[\"service.name\",\"pid\"],\"descriptionKeys\":[\"d\\u00e9\"]},{\"type\":\"host\"}]")
                .str("scope.name", "lib").str("scope.version", "1.2").bool("scope.attributes.sc", true)
                .str("otlp.scope.schema_url", "https://scope").num("otlp.scope.dropped_attributes_count", "4")
                .num("otlp.severity_number", "17").str("otlp.severity_text", "ERROR")
                .str("otlp.trace_id", "0102030405060708090a0b0c0d0e0f10").str("otlp.span_id", "1112131415161718")
                .num("otlp.flags", "1").str("otlp.event_name", "ev").num("otlp.observed_time_unix_nano", "1700000000999000000")
                .num("otlp.dropped_attributes_count", "5")
                .str("s", "text").bool("t", true).bool("f", false).num("i", "-7").num("big", "9223372036854775807")
                .num("d", "1.0").num("e", "2.5e-3").num("huge", "18446744073709551616").nul("n")
                .json("a", "[1,\"two\",true,null,1.5,[\"x\"],{\"k\":\"v\"}]")
                .json("o", "{\"x\":{\"y\":[]},\"esc\":\"a\\\"b\\u00e9\",\"\\u006bey\":1}")
                .json("bytes", "{\"bytesValue\":\"AAEC\\/w==\"}").json("emptyo", "{}").json("emptya", "[]")
                .str("nan", "NaN");
        ExportLogsServiceRequest r = encode(t, 5);

        LogRecord want = LogRecord.newBuilder().setTimeUnixNano(1_700_000_000_123_456_789L)
                .setObservedTimeUnixNano(1700000000999000000L)
                .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_ERROR).setSeverityText("ERROR")
                .setBody(s("hello \"world\"\n"))
                .addAttributes(kv("s", s("text"))).addAttributes(kv("t", b(true))).addAttributes(kv("f", b(false)))
                .addAttributes(kv("i", i(-7))).addAttributes(kv("big", i(Long.MAX_VALUE)))
                .addAttributes(kv("d", d(1.0))).addAttributes(kv("e", d(2.5e-3)))
                .addAttributes(kv("huge", d(18446744073709551616.0))).addAttributes(kv("n", empty()))
                .addAttributes(kv("a", arr(i(1), s("two"), b(true), empty(), d(1.5), arr(s("x")), kvl(kv("k", s("v"))))))
                .addAttributes(kv("o", kvl(kv("x", kvl(kv("y", arr()))), kv("esc", s("a\"bé")), kv("key", i(1)))))
                .addAttributes(kv("bytes", AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {0, 1, 2, -1})).build()))
                .addAttributes(kv("emptyo", kvl())).addAttributes(kv("emptya", arr()))
                .addAttributes(kv("nan", s("NaN")))
                .setDroppedAttributesCount(5).setFlags(1)
                .setTraceId(ByteString.copyFrom(hex("0102030405060708090a0b0c0d0e0f10")))
                .setSpanId(ByteString.copyFrom(hex("1112131415161718"))).setEventName("ev")
                .build();
        ResourceLogs rl = r.getResourceLogs(0);
        assertThat(r.getResourceLogsCount()).isEqualTo(1);
        assertThat(rl.getResource()).isEqualTo(Resource.newBuilder().addAttributes(kv("host.name", s("h1")))
                .addAttributes(kv("pid", i(42))).setDroppedAttributesCount(3)
                .addEntityRefs(EntityRef.newBuilder().setSchemaUrl("https://e").setType("service")
                        .addIdKeys("service.name").addIdKeys("pid").addDescriptionKeys("dé"))
                .addEntityRefs(EntityRef.newBuilder().setType("host")).build());
        assertThat(rl.getSchemaUrl()).isEqualTo("https://opentelemetry.io/schemas/1.21.0");
        assertThat(rl.getScopeLogs(0).getScope()).isEqualTo(InstrumentationScope.newBuilder().setName("lib")
                .setVersion("1.2").addAttributes(kv("sc", b(true))).setDroppedAttributesCount(4).build());
        assertThat(rl.getScopeLogs(0).getSchemaUrl()).isEqualTo("https://scope");
        assertThat(rl.getScopeLogs(0).getLogRecords(0)).isEqualTo(want);
    }

    @Test
    void bodiesOfEveryType() throws Exception {
        TestMessages t = new TestMessages(11);
        t.add("42", 1).log().str("otlp.body_type", "int");
        t.add("-1.5", 2).log().str("otlp.body_type", "double");
        t.add("3.0", 3).log().str("otlp.body_type", "double");
        t.add("true", 4).log().str("otlp.body_type", "bool");
        t.add("AAEC", 5).log().str("otlp.body_type", "bytes");
        t.add("[1,\"x\"]", 6).log().str("otlp.body_type", "array");
        t.add("{\"k\":{\"bytesValue\":\"AQ==\"}}", 7).log().str("otlp.body_type", "kvlist");
        t.add("", 8).log().str("otlp.body_type", "empty");
        t.add("", 9).log();
        t.add("NaN", 10).log().str("otlp.body_type", "double");
        t.add("[\"not an array\"]", 11).log().str("otlp.body_type", "string");
        ExportLogsServiceRequest r = encode(t, 0);
        var recs = r.getResourceLogs(0).getScopeLogs(0).getLogRecordsList();
        assertThat(recs).hasSize(11);
        assertThat(recs.get(0).getBody()).isEqualTo(i(42));
        assertThat(recs.get(1).getBody()).isEqualTo(d(-1.5));
        assertThat(recs.get(2).getBody()).isEqualTo(d(3.0));
        assertThat(recs.get(3).getBody()).isEqualTo(b(true));
        assertThat(recs.get(4).getBody().getBytesValue().toByteArray()).containsExactly(0, 1, 2);
        assertThat(recs.get(5).getBody()).isEqualTo(arr(i(1), s("x")));
        assertThat(recs.get(6).getBody()).isEqualTo(kvl(kv("k",
                AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {1})).build())));
        assertThat(recs.get(7).hasBody()).isFalse();
        assertThat(recs.get(8).getBody()).isEqualTo(s(""));
        assertThat(recs.get(9).getBody().getDoubleValue()).isNaN();
        assertThat(recs.get(10).getBody()).isEqualTo(s("[\"not an array\"]"));
    }

    @Test
    void messagesOfOtherInputsBecomeRecordsOfTheEmptyResource() throws Exception {
        TestMessages t = new TestMessages(4);
        t.add("plain line", 123).str("host", "h").num("n", "1").str("resource.x", "kept as attribute").tag("app.logs");
        t.add("second", 0);
        t.add("otlp without resource", 7).log();
        ExportLogsServiceRequest r = encode(t, 0);
        assertThat(r.getResourceLogsCount()).isEqualTo(1);
        ResourceLogs rl = r.getResourceLogs(0);
        assertThat(rl.getResource()).isEqualTo(Resource.getDefaultInstance());
        assertThat(rl.hasResource()).isTrue();
        assertThat(rl.getScopeLogsCount()).isEqualTo(1);
        var recs = rl.getScopeLogs(0).getLogRecordsList();
        assertThat(recs.get(0)).isEqualTo(LogRecord.newBuilder().setTimeUnixNano(123).setObservedTimeUnixNano(123)
                .setBody(s("plain line")).addAttributes(kv("host", s("h"))).addAttributes(kv("n", i(1)))
                .addAttributes(kv("resource.x", s("kept as attribute"))).addAttributes(kv("fluent.tag", s("app.logs")))
                .build());
        assertThat(recs.get(1)).isEqualTo(LogRecord.newBuilder().setBody(s("second")).build());
        assertThat(recs.get(2)).isEqualTo(LogRecord.newBuilder().setTimeUnixNano(7).setBody(s("otlp without resource")).build());
    }

    @Test
    void largeNestedMessagesGetMultiByteLengths() throws Exception {
        TestMessages t = new TestMessages(300);
        String big = "x".repeat(70_000);
        for (int k = 0; k < 300; k++) {
            t.add(k % 100 == 0 ? big : "m" + k, k + 1).log().str("resource.r", "r" + (k % 3));
        }
        ExportLogsServiceRequest r = encode(t, 0);
        assertThat(r.getResourceLogsCount()).isEqualTo(3);
        int total = 0;
        for (ResourceLogs rl : r.getResourceLogsList()) {
            total += rl.getScopeLogs(0).getLogRecordsCount();
        }
        assertThat(total).isEqualTo(300);
        assertThat(r.getResourceLogs(0).getScopeLogs(0).getLogRecords(0).getBody().getStringValue()).isEqualTo(big);
        assertThat(r.getResourceLogs(1).getScopeLogs(0).getLogRecords(0).getBody().getStringValue()).isEqualTo("m1");
    }

    @Test
    void numberFieldsWhoseTextIsNoNumberStayText() throws Exception {
        TestMessages t = new TestMessages(2);
        t.add("x", 1).log().num("bad", "12abc").num("otlp.severity_number", "x").json("j", "{\"a\":1");
        LogRecord r = encode(t, 0).getResourceLogs(0).getScopeLogs(0).getLogRecords(0);
        assertThat(r.getAttributesList()).containsExactly(kv("bad", s("12abc")), kv("j", s("{\"a\":1")));
        assertThat(r.getSeverityNumberValue()).isZero();
    }

    @Test
    void textThatIsNotUtf8GoesAsBytesOrWithReplacementCharacters() throws Exception {
        TestMessages t = new TestMessages(2);
        io.sluice.core.message.Message m = t.add("", 1).message();
        byte[] binary = {(byte) 0x93, 0x01, (byte) 0xff, 'a'};
        m.setPayload(binary);
        m.metadata().set(new byte[] {'k', (byte) 0xc3}, new byte[] {'v'}, io.sluice.core.message.Metadata.STRING);
        m.metadata().set(new byte[] {'b'}, new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, io.sluice.core.message.Metadata.STRING);
        LogRecord r = encode(t, 0).getResourceLogs(0).getScopeLogs(0).getLogRecords(0); // parses: strings are valid
        assertThat(r.getBody().getBytesValue().toByteArray()).isEqualTo(binary);
        assertThat(r.getAttributes(0).getKey()).isEqualTo("k\uFFFD");
        assertThat(r.getAttributes(0).getValue()).isEqualTo(s("v"));
        assertThat(r.getAttributes(1).getValue().getBytesValue().toByteArray())
                .containsExactly((byte) 0xed, (byte) 0xa0, (byte) 0x80);
    }

    @Test
    void metricMessagesAreLeftOut() throws Exception {
        TestMessages t = new TestMessages(4);
        t.add("cpu", 1).metric().num("metric_name:cpu", "1");
        t.add("hec", 1).num("metric_name:mem", "2");
        LogsEncoder enc = new LogsEncoder();
        assertThat(enc.encode(t.batch(), 0, 2, 0)).isZero();
        assertThat(enc.length()).isZero();
    }

    static byte[] hex(String h) {
        byte[] b = new byte[h.length() / 2];
        for (int k = 0; k < b.length; k++) {
            b[k] = (byte) Integer.parseInt(h.substring(2 * k, 2 * k + 2), 16);
        }
        return b;
    }
}
