package io.sluice.hec.codec;

import static io.sluice.hec.codec.OtlpMessages.bytes;
import static io.sluice.hec.codec.OtlpMessages.log;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.hec.codec.OtlpMessages.Json;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * OTLP log records through producer.SplunkHEC's encoder, against what the OTel Collector's splunkhec exporter
 * makes of the same records: the inputs and expected events of its {@code logdata_to_splunk_test.go}
 * ({@code Test_mapLogRecordToSplunkEvent}, {@code Test_nanoTimestampToEpochMilliseconds}, {@code Test_mergeValue};
 * case names in the comments), re-typed. The expected text is the exporter's JSON (goccy/go-json: struct fields in
 * order, map keys sorted, {@code omitempty}); events are compared as parsed JSON and, where the exporter's bytes
 * are known, byte for byte (but for the newline this encoder ends every event with).
 */
class OtlpLogsTest {
    private static final long TS = 123; // pcommon.Timestamp(123): rounds to 0 ms, so no "time"

    static HecFormat.Builder config() {
        // configDataFn: createDefaultConfig() with Source "source" and SourceType "sourcetype".
        return HecFormat.builder().gzip(false).source("source").sourcetype("sourcetype");
    }

    static HecEncoder encode(Batch b, HecFormat.Builder f) {
        HecEncoder enc = new HecEncoder(f.build());
        enc.encode(b);
        return enc;
    }

    /** The events (one per line), each equal as parsed JSON and as bytes to the expected one. */
    static void assertEvents(HecEncoder enc, String... expected) {
        List<String> lines = enc.eventsText().isEmpty() ? List.of() : Arrays.asList(enc.eventsText().split("\n"));
        assertThat(lines).hasSize(expected.length);
        for (int i = 0; i < expected.length; i++) {
            assertThat(JsonValues.parse(lines.get(i))).as("event %d", i).isEqualTo(JsonValues.parse(expected[i]));
            assertThat(lines.get(i)).as("event %d bytes", i).isEqualTo(expected[i]);
        }
    }

    /** The attributes every case of the exporter's test puts on its record. */
    private static OtlpMessages.Builder appRecord(Batch b) {
        return log(b).attr("com.splunk.source", "myapp").attr("com.splunk.sourcetype", "myapp-type")
                .attr("host.name", "myhost").attr("custom", "custom").time(TS);
    }

    @Test
    void valid() { // "valid" (and "with_name", the same record)
        Batch b = new BatchPool(4).acquire();
        appRecord(b).body("mylog");
        assertEvents(encode(b, config()),
                "{\"host\":\"myhost\",\"source\":\"myapp\",\"sourcetype\":\"myapp-type\",\"event\":\"mylog\","
                        + "\"fields\":{\"custom\":\"custom\"}}");
    }

    @Test
    void withHecToken() { // "with_hec_token": the token attribute is not a field; no fields at all, none sent
        Batch b = new BatchPool(4).acquire();
        log(b).body("mylog").attr("com.splunk.hec.access_token", "mytoken").time(TS);
        assertEvents(encode(b, config()),
                "{\"host\":\"unknown\",\"source\":\"source\",\"sourcetype\":\"sourcetype\",\"event\":\"mylog\"}");
    }

    @Test
    void nonStringAttribute() { // "non-string attribute": PutDouble("foo", 123) is sent as 123
        Batch b = new BatchPool(4).acquire();
        log(b).body("mylog").attr("com.splunk.source", "myapp").attr("com.splunk.sourcetype", "myapp-type")
                .attr("host.name", "myhost").attr("foo", 123.0).time(TS);
        assertEvents(encode(b, config()),
                "{\"host\":\"myhost\",\"source\":\"myapp\",\"sourcetype\":\"myapp-type\",\"event\":\"mylog\","
                        + "\"fields\":{\"foo\":123}}");
    }

    @Test
    void withConfig() { // "with_config": the configured source and sourcetype, host "unknown"
        Batch b = new BatchPool(4).acquire();
        log(b).body("mylog").attr("custom", "custom").time(TS);
        assertEvents(encode(b, config()),
                "{\"host\":\"unknown\",\"source\":\"source\",\"sourcetype\":\"sourcetype\",\"event\":\"mylog\","
                        + "\"fields\":{\"custom\":\"custom\"}}");
    }

    @Test
    void withCustomMapping() { // "with_custom_mapping": other attributes for the metadata, other severity keys
        Batch b = new BatchPool(4).acquire();
        log(b).body("mylog").attr("custom", "custom").attr("mysource", "mysource").attr("mysourcetype", "mysourcetype")
                .attr("myindex", "myindex").attr("myhost", "myhost").severity("DEBUG", 5).time(TS);
        HecFormat.Builder f = HecFormat.builder().gzip(false).otelSourceAttribute("mysource")
                .otelSourcetypeAttribute("mysourcetype").otelIndexAttribute("myindex").otelHostAttribute("myhost")
                .severityNumberField("myseveritynum").severityTextField("myseverity");
        assertEvents(encode(b, f),
                "{\"host\":\"myhost\",\"source\":\"mysource\",\"sourcetype\":\"mysourcetype\",\"index\":\"myindex\","
                        + "\"event\":\"mylog\",\"fields\":{\"custom\":\"custom\",\"myseverity\":\"DEBUG\","
                        + "\"myseveritynum\":5}}");
    }

    @Test
    void logIsEmptyAndNilBodyAreSkipped() { // "log_is_empty", "with nil body", Test_emptyLogRecord: no event
        Batch b = new BatchPool(4).acquire();
        log(b);
        log(b).noBody().attr("com.splunk.source", "myapp").attr("host.name", "myhost").attr("custom", "custom").time(TS);
        log(b).body("kept");
        HecEncoder enc = encode(b, config());
        // Silently, as the exporter skips them ("events with no body are rejected by Splunk"): not failures.
        assertThat(enc.skippedMessages()).isEqualTo(2);
        assertThat(enc.failedMessages()).isZero();
        assertEvents(enc, "{\"host\":\"unknown\",\"source\":\"source\",\"sourcetype\":\"sourcetype\",\"event\":\"kept\"}");
    }

    @Test
    void withSpanAndTraceId() { // "with span and trace id"
        Batch b = new BatchPool(4).acquire();
        log(b).body("foo").ids("00000000000000000000000000000064", "0000000000000032");
        assertEvents(encode(b, config()),
                "{\"host\":\"unknown\",\"source\":\"source\",\"sourcetype\":\"sourcetype\",\"event\":\"foo\","
                        + "\"fields\":{\"span_id\":\"0000000000000032\",\"trace_id\":\"00000000000000000000000000000064\"}}");
    }

    @Test
    void bodiesOfEveryType() { // "with double body", "with int body", "with bool body", "with map body", "with array body"
        Batch b = new BatchPool(8).acquire();
        appRecord(b).body("double", "42.0");
        appRecord(b).body("int", "42");
        appRecord(b).body("bool", "true");
        appRecord(b).body("kvlist", "{\"foo\":\"bar\",\"23\":45.0}");
        appRecord(b).body("array", "[\"foo\"]");
        appRecord(b).body("bytes", "aGk="); // not in the exporter's tests: a []byte body is marshalled as base64
        String head = "{\"host\":\"myhost\",\"source\":\"myapp\",\"sourcetype\":\"myapp-type\",\"event\":";
        String tail = ",\"fields\":{\"custom\":\"custom\"}}";
        assertEvents(encode(b, config()),
                head + "42" + tail,
                head + "42" + tail,
                head + "true" + tail,
                head + "{\"23\":45,\"foo\":\"bar\"}" + tail, // map keys sorted, 45.0 as Go prints it
                head + "[\"foo\"]" + tail,
                head + "\"aGk=\"" + tail);
    }

    @Test
    void aStringBodyThatLooksLikeJsonStaysAString() {
        Batch b = new BatchPool(4).acquire();
        log(b).body("{\"a\":1}");
        assertEvents(encode(b, config()),
                "{\"host\":\"unknown\",\"source\":\"source\",\"sourcetype\":\"sourcetype\",\"event\":\"{\\\"a\\\":1}\"}");
    }

    @Test
    void logResourceAttribute() { // "log resource attribute": metadata from the resource, the rest as fields
        Batch b = new BatchPool(4).acquire();
        log(b).resource("resourceAttr1", "some_string").resource("com.splunk.sourcetype", "myapp-type-from-resource-attr")
                .resource("com.splunk.index", "index-resource").resource("com.splunk.source", "myapp-resource")
                .resource("host.name", "myhost-resource").body("mylog").time(TS);
        assertEvents(encode(b, HecFormat.builder().gzip(false)),
                "{\"host\":\"myhost-resource\",\"source\":\"myapp-resource\",\"sourcetype\":\"myapp-type-from-resource-attr\","
                        + "\"index\":\"index-resource\",\"event\":\"mylog\",\"fields\":{\"resourceAttr1\":\"some_string\"}}");
    }

    @Test
    void recordAttributesOverrideResourceAttributes() { // the exporter ranges the resource, then the record
        Batch b = new BatchPool(4).acquire();
        log(b).resource("host.name", "from-resource").resource("k", "resource").resource("r", 1L)
                .attr("host.name", "from-record").attr("k", "record").body("x");
        assertEvents(encode(b, HecFormat.builder().gzip(false)),
                "{\"host\":\"from-record\",\"event\":\"x\",\"fields\":{\"k\":\"record\",\"r\":1}}");
    }

    @Test
    void withSeverity() { // "with severity": the default keys otel.log.severity.text / .number
        Batch b = new BatchPool(4).acquire();
        appRecord(b).body("mylog").severity("DEBUG", 5);
        assertEvents(encode(b, config()),
                "{\"host\":\"myhost\",\"source\":\"myapp\",\"sourcetype\":\"myapp-type\",\"event\":\"mylog\","
                        + "\"fields\":{\"custom\":\"custom\",\"otel.log.severity.number\":5,\"otel.log.severity.text\":\"DEBUG\"}}");
    }

    @Test
    void validTimestampFallsBackToTheObservedTime() { // "valid timestamp": SetObservedTimestamp only
        Batch b = new BatchPool(4).acquire();
        appRecord(b).time(0).observed(TS).body("mylog");
        log(b).observed(1_001_000_000L).body("mylog");
        log(b).time(2_000_000_000L).observed(1_001_000_000L).body("mylog");
        assertEvents(encode(b, config()),
                "{\"host\":\"myhost\",\"source\":\"myapp\",\"sourcetype\":\"myapp-type\",\"event\":\"mylog\","
                        + "\"fields\":{\"custom\":\"custom\"}}",
                "{\"time\":1.001,\"host\":\"unknown\",\"source\":\"source\",\"sourcetype\":\"sourcetype\",\"event\":\"mylog\"}",
                "{\"time\":2,\"host\":\"unknown\",\"source\":\"source\",\"sourcetype\":\"sourcetype\",\"event\":\"mylog\"}");
    }

    @Test
    void nanoTimestampToEpochMilliseconds() { // Test_nanoTimestampToEpochMilliseconds: 1.001, 1.002, zero omitted
        Batch b = new BatchPool(4).acquire();
        log(b).time(1_001_000_000L).body("a");
        log(b).time(1_001_990_000L).body("b");
        log(b).time(1_001_500_000L).body("c"); // a half rounds up, as Duration.Round
        log(b).time(1_796_002_770_166_598_000L).body("d");
        String tail = "\"host\":\"unknown\",\"source\":\"source\",\"sourcetype\":\"sourcetype\",\"event\":";
        assertEvents(encode(b, config()),
                "{\"time\":1.001," + tail + "\"a\"}",
                "{\"time\":1.002," + tail + "\"b\"}",
                "{\"time\":1.002," + tail + "\"c\"}",
                "{\"time\":1796002770.167," + tail + "\"d\"}");
    }

    @Test
    void mergeValue() { // Test_mergeValue: every case, as attributes of one record each
        String[][] cases = {
            // name, attribute JSON (contract), expected fields
            {"int", null, "{\"intKey\":0}"},
            {"flat_array", "[0,1,2,3]", "{\"arrayKey\":[0,1,2,3]}"},
            {"nested_array", "[0,1,[2,3]]", "{\"arrayKey\":\"[0,1,[2,3]]\"}"},
            {"array_of_map", "[0,1,{\"3\":3}]", "{\"arrayKey\":\"[0,1,{\\\"3\\\":3}]\"}"},
            {"flat_map", "{\"1\":1,\"2\":2}", "{\"mapKey.1\":1,\"mapKey.2\":2}"},
            {"nested_map", "{\"1\":1,\"2\":2,\"nested\":{\"3\":3,\"4\":4}}",
                "{\"mapKey.1\":1,\"mapKey.2\":2,\"mapKey.nested.3\":3,\"mapKey.nested.4\":4}"},
            {"flat_array_in_nested_map", "{\"1\":1,\"2\":2,\"nested\":{\"3\":3,\"flat_array\":[4]}}",
                "{\"mapKey.1\":1,\"mapKey.2\":2,\"mapKey.nested.3\":3,\"mapKey.nested.flat_array\":[4]}"},
            {"nested_array_in_nested_map", "{\"1\":1,\"2\":2,\"nested\":{\"3\":3,\"nested_array\":[4,[5]]}}",
                "{\"mapKey.1\":1,\"mapKey.2\":2,\"mapKey.nested.3\":3,\"mapKey.nested.nested_array\":\"[4,[5]]\"}"},
        };
        for (String[] c : cases) {
            Batch b = new BatchPool(4).acquire();
            OtlpMessages.Builder r = log(b).body("x");
            if (c[1] == null) {
                r.attr("intKey", 0L);
            } else {
                r.attr(c[1].startsWith("[") ? "arrayKey" : "mapKey", new Json(c[1]));
            }
            assertEvents(encode(b, HecFormat.builder().gzip(false)), "{\"host\":\"unknown\",\"event\":\"x\",\"fields\":" + c[2] + "}");
        }
    }

    @Test
    void bytesDoublesAndEmptyValuesInAttributes() { // AsRaw(): []byte as base64, nil as null, doubles as Go prints them
        Batch b = new BatchPool(4).acquire();
        log(b).body("x").attr("b", bytes("aGk=")).attr("m", new Json("{\"b\":{\"bytesValue\":\"AAE=\"},\"d\":1.5,\"e\":{}}"))
                .attr("a", new Json("[{\"bytesValue\":\"AAE=\"},2.0,\"s\",true,null]")).attr("n", null).attr("tiny", 1.0E-7)
                .attr("huge", 1.0E21).attr("neg", -0.5);
        assertEvents(encode(b, HecFormat.builder().gzip(false)),
                "{\"host\":\"unknown\",\"event\":\"x\",\"fields\":{\"a\":[\"AAE=\",2,\"s\",true,null],\"b\":\"aGk=\","
                        + "\"huge\":1e+21,\"m.b\":\"AAE=\",\"m.d\":1.5,\"n\":null,\"neg\":-0.5,\"tiny\":1e-7}}");
    }

    @Test
    void scopeAndOtherRecordFieldsAreNotSent() { // the exporter ignores the scope, flags, event name, ...
        Batch b = new BatchPool(4).acquire();
        log(b).resource("service.name", "svc").scope("my.lib").attr("otlp.flags", 1L).attr("scope.version", "1.0")
                .attr("k", "v").body("x");
        b.get(0).metadata().setString("otlp.event_name", "ev");
        assertEvents(encode(b, HecFormat.builder().gzip(false)),
                "{\"host\":\"unknown\",\"event\":\"x\",\"fields\":{\"k\":\"v\",\"service.name\":\"svc\"}}");
    }

    @Test
    void theProducersHostIsTheDefaultBeforeUnknown() { // Sluice's Host setting; the exporter has none
        Batch b = new BatchPool(4).acquire();
        log(b).body("x");
        log(b).body("y").attr("host.name", 7L); // Str() of a non-string: ""
        assertEvents(encode(b, HecFormat.builder().gzip(false).host("h1").index("main")),
                "{\"host\":\"h1\",\"index\":\"main\",\"event\":\"x\"}",
                "{\"host\":\"\",\"index\":\"main\",\"event\":\"y\"}");
    }

    @Test
    void theExportersBenchmarkRecord() { // createLogData(i, j, k) in the exporter's client_test.go
        Batch b = new BatchPool(4).acquire();
        log(b).body("mylog").attr("otel.log.name", "0_0_1").attr("com.splunk.source", "myapp")
                .attr("com.splunk.sourcetype", "myapp-type").attr("com.splunk.index", "myindex")
                .attr("host.name", "myhost").attr("custom", "custom").time(1_000_000L);
        assertEvents(encode(b, HecFormat.builder().gzip(false)),
                "{\"time\":0.001,\"host\":\"myhost\",\"source\":\"myapp\",\"sourcetype\":\"myapp-type\",\"index\":\"myindex\","
                        + "\"event\":\"mylog\",\"fields\":{\"custom\":\"custom\",\"otel.log.name\":\"0_0_1\"}}");
    }

    @Test
    void nonOtlpMessagesInTheSameBatchAreUnchanged() {
        Batch b = new BatchPool(4).acquire();
        log(b).body("otlp");
        b.add().setPayload("plain");
        b.get(1).metadata().setString("host", "h");
        assertThat(encode(b, HecFormat.builder().gzip(false)).eventsText())
                .isEqualTo("{\"host\":\"unknown\",\"event\":\"otlp\"}\n{\"host\":\"h\",\"event\":\"plain\"}\n");
    }
}
