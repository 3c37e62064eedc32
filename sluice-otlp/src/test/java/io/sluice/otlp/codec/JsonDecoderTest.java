package io.sluice.otlp.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.sluice.core.message.Message;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonDecoderTest {
    private static final OtlpJson[] SPELLINGS = {new OtlpJson(false, false), new OtlpJson(true, false),
        new OtlpJson(false, true), new OtlpJson(true, true)};

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Every message of {@code d} as comparable values: timestamp, payload, metadata in order. */
    static List<Object> messages(Decoded d) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < d.size(); i++) {
            Message m = d.get(i);
            out.add(List.of(m.timestamp(), m.payloadString(), new ArrayList<>(OtlpExpected.metadata(m).entrySet())));
        }
        return out;
    }

    @Test
    void logsInEveryJsonSpellingDecodeAsExpectedAndAsTheProtobuf() throws Exception {
        ExportLogsServiceRequest req = OtlpCorpus.logs();
        byte[] proto = req.toByteArray();
        Decoded fromProto = new Decoded();
        new LogsDecoder().decode(proto, 0, proto.length, fromProto);
        for (OtlpJson spelling : SPELLINGS) {
            byte[] json = utf8(spelling.write(req));
            Decoded out = new Decoded();
            int n = new JsonLogsDecoder().decode(json, 0, json.length, out);
            assertThat(n).isEqualTo(out.size()).isEqualTo(fromProto.size());
            LogsDecoderTest.assertDecodesAsExpected(req, out);
            assertThat(messages(out)).isEqualTo(messages(fromProto));
            assertThat(JsonLogsDecoder.countRecords(json, 0, json.length)).isEqualTo(n);
        }
    }

    @Test
    void metricsInEveryJsonSpellingDecodeAsExpectedAndAsTheProtobuf() throws Exception {
        ExportMetricsServiceRequest req = OtlpCorpus.metricsRequest();
        byte[] proto = req.toByteArray();
        Decoded fromProto = new Decoded();
        new MetricsDecoder().decode(proto, 0, proto.length, fromProto);
        for (OtlpJson spelling : SPELLINGS) {
            byte[] json = utf8(spelling.write(req));
            Decoded out = new Decoded();
            int n = new JsonMetricsDecoder().decode(json, 0, json.length, out);
            assertThat(n).isEqualTo(out.size()).isEqualTo(fromProto.size());
            MetricsDecoderTest.assertDecodesAsExpected(req, out);
            assertThat(messages(out)).isEqualTo(messages(fromProto));
            assertThat(JsonMetricsDecoder.countPoints(json, 0, json.length)).isEqualTo(n);
        }
    }

    private static Decoded logs(String json) throws OtlpFormatException {
        byte[] b = utf8(json);
        Decoded out = new Decoded();
        new JsonLogsDecoder().decode(b, 0, b.length, out);
        return out;
    }

    private static String oneRecord(String record) {
        return "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[" + record + "]}]}]}";
    }

    @Test
    void handWrittenJsonAsTheSpecShowsIt() throws Exception {
        // The example of the OTLP specification's logs.json, trimmed.
        String json = """
                {
                  "resourceLogs": [
                    {
                      "resource": {
                        "attributes": [
                          { "key": "service.name", "value": { "stringValue": "my.service" } }
                        ]
                      },
                      "scopeLogs": [
                        {
                          "scope": {
                            "name": "my.library",
                            "version": "1.0.0",
                            "attributes": [ { "key": "my.scope.attribute", "value": { "stringValue": "some scope attribute" } } ]
                          },
                          "logRecords": [
                            {
                              "timeUnixNano": "1544712660300000000",
                              "observedTimeUnixNano": "1544712660300000000",
                              "severityNumber": 10,
                              "severityText": "Information",
                              "traceId": "5B8EFFF798038103D269B633813FC60C",
                              "spanId": "EEE19B7EC3C1B174",
                              "body": { "stringValue": "Example log record" },
                              "attributes": [
                                { "key": "string.attribute", "value": { "stringValue": "some string" } },
                                { "key": "boolean.attribute", "value": { "boolValue": true } },
                                { "key": "int.attribute", "value": { "intValue": "10" } },
                                { "key": "double.attribute", "value": { "doubleValue": 637.704 } },
                                { "key": "array.attribute", "value": { "arrayValue": { "values": [
                                      { "stringValue": "many" }, { "stringValue": "values" } ] } } },
                                { "key": "map.attribute", "value": { "kvlistValue": { "values": [
                                      { "key": "some.map.key", "value": { "stringValue": "some value" } } ] } } }
                              ]
                            }
                          ]
                        }
                      ]
                    }
                  ]
                }
                """;
        Decoded out = logs(json);
        assertThat(out.size()).isEqualTo(1);
        Message m = out.get(0);
        assertThat(m.payloadString()).isEqualTo("Example log record");
        assertThat(m.timestamp()).isEqualTo(1544712660300000000L);
        assertThat(OtlpExpected.metadata(m)).containsExactly(
                Map.entry("otlp.signal", "S:log"),
                Map.entry("resource.service.name", "S:my.service"),
                Map.entry("scope.name", "S:my.library"),
                Map.entry("scope.version", "S:1.0.0"),
                Map.entry("scope.attributes.my.scope.attribute", "S:some scope attribute"),
                Map.entry("string.attribute", "S:some string"),
                Map.entry("boolean.attribute", "B:true"),
                Map.entry("int.attribute", "N:10"),
                Map.entry("double.attribute", "N:637.704"),
                Map.entry("array.attribute", "J:[\"many\",\"values\"]"),
                Map.entry("map.attribute", "J:{\"some.map.key\":\"some value\"}"),
                Map.entry("otlp.severity_number", "N:10"),
                Map.entry("otlp.severity_text", "S:Information"),
                Map.entry("otlp.trace_id", "S:5b8efff798038103d269b633813fc60c"),
                Map.entry("otlp.span_id", "S:eee19b7ec3c1b174"),
                Map.entry("otlp.observed_time_unix_nano", "N:1544712660300000000"));
    }

    @Test
    void integersAsNumbersOrStringsNullsAndUnknownFields() throws Exception {
        Decoded out = logs(oneRecord("""
                {"time_unix_nano": 42, "unknownField": {"nested": [1, 2, {"x": null}]}, "flags": "1",
                 "body": {"doubleValue": "NaN"}, "severityText": null, "droppedAttributesCount": 3,
                 "attributes": [{"key": "a", "value": {"intValue": -9223372036854775808}},
                                {"key": "b", "value": {"doubleValue": 1}},
                                {"key": "c", "value": {"doubleValue": "-Infinity"}},
                                {"key": "d", "value": {"bytesValue": "AAH-_w"}},
                                {"key": "\\u0065", "value": {"stringValue": "esc\\u00e9\\n", "ignored": 1}},
                                {"key": "f"},
                                {"key": "g", "value": {}},
                                {"key": "h", "value": {"stringValue": null, "boolValue": false}}]}
                """));
        Message m = out.get(0);
        assertThat(m.timestamp()).isEqualTo(42);
        assertThat(m.payloadString()).isEqualTo("\"NaN\"");
        assertThat(OtlpExpected.metadata(m)).containsExactly(
                Map.entry("otlp.signal", "S:log"),
                Map.entry("a", "N:-9223372036854775808"),
                Map.entry("b", "N:1.0"),
                Map.entry("c", "S:-Infinity"),
                Map.entry("d", "J:{\"bytesValue\":\"AAH+/w==\"}"),
                Map.entry("e", "S:esc\u00e9\n"),
                Map.entry("f", "0:null"),
                Map.entry("g", "0:null"),
                Map.entry("h", "B:false"),
                Map.entry("otlp.flags", "N:1"),
                Map.entry("otlp.dropped_attributes_count", "N:3"),
                Map.entry("otlp.body_type", "S:double"));
    }

    @Test
    void badJsonIsRejected() {
        List<String> bad = List.of(
                "",
                "[]",
                "{\"resourceLogs\": {}}",
                "{\"resourceLogs\": [1]}",
                oneRecord("{\"timeUnixNano\": \"12x\"}"),
                oneRecord("{\"timeUnixNano\": -1}"),
                oneRecord("{\"timeUnixNano\": \"18446744073709551616\"}"),
                oneRecord("{\"timeUnixNano\": 1.5}"),
                oneRecord("{\"severityNumber\": 2147483648}"),
                oneRecord("{\"flags\": 4294967296}"),
                oneRecord("{\"traceId\": \"0102\"}"),
                oneRecord("{\"traceId\": \"zz1b2c3d4e5f60718293a4b5c6d7e8f9\"}"),
                oneRecord("{\"spanId\": \"AQIDBAUGBwg=\"}"),
                oneRecord("{\"body\": {\"intValue\": \"1e3\"}}"),
                oneRecord("{\"body\": {\"doubleValue\": \"0x1p3\"}}"),
                oneRecord("{\"body\": {\"boolValue\": \"true\"}}"),
                oneRecord("{\"body\": {\"bytesValue\": \"not base64!\"}}"),
                oneRecord("{\"body\": {\"stringValue\": \"\\ud800\"}}"),
                oneRecord("{\"body\": \"text\"}"),
                oneRecord("{\"attributes\": [{\"key\": 1}]}"),
                oneRecord("{\"attributes\": {\"key\": \"a\"}}"),
                oneRecord("{\"timeUnixNano\": 1,}"),
                oneRecord("{\"timeUnixNano\": 1}") + " trailing");
        for (String json : bad) {
            assertThatThrownBy(() -> logs(json)).as(json).isInstanceOf(OtlpFormatException.class);
        }
        byte[] invalidUtf8 = utf8(oneRecord("{\"severityText\": \"ok\"}"));
        invalidUtf8[invalidUtf8.length - 9] = (byte) 0xC3; // the 'o' of "ok", followed by 'k'
        assertThatThrownBy(() -> new JsonLogsDecoder().decode(invalidUtf8, 0, invalidUtf8.length, new Decoded()))
                .isInstanceOf(OtlpFormatException.class).hasMessageContaining("UTF-8");
    }

    private static String nestedArrays(int depth) {
        return "{\"arrayValue\":{\"values\":[".repeat(depth - 1) + "{\"stringValue\":\"x\"}" + "]}}".repeat(depth - 1);
    }

    @Test
    void nestingIsCappedAsInProtobuf() throws Exception {
        String ok = oneRecord("{\"attributes\":[{\"key\":\"deep\",\"value\":" + nestedArrays(64) + "}]}");
        assertThat(logs(ok).get(0).metadata().getString("deep")).startsWith("[".repeat(63) + "\"x\"");
        for (int depth : new int[] {65, 10_000}) {
            String deep = oneRecord("{\"attributes\":[{\"key\":\"deep\",\"value\":" + nestedArrays(depth) + "}]}");
            assertThatThrownBy(() -> logs(deep)).isInstanceOf(OtlpFormatException.class)
                    .hasMessageContaining("nested deeper than 64");
            String body = oneRecord("{\"body\":" + nestedArrays(depth) + "}");
            assertThatThrownBy(() -> logs(body)).isInstanceOf(OtlpFormatException.class)
                    .hasMessageContaining("nested deeper than 64");
        }
    }

    @Test
    void truncatedJsonIsRejected() {
        byte[] json = utf8(OtlpJson.of(OtlpCorpus.benchmarkLogs(2)));
        JsonLogsDecoder decoder = new JsonLogsDecoder();
        Decoded out = new Decoded();
        int rejected = 0;
        for (int cut = 0; cut < json.length; cut++) {
            out.batch.clear();
            try {
                decoder.decode(json, 0, cut, out);
            } catch (OtlpFormatException e) {
                rejected++;
            }
        }
        assertThat(rejected).as("every cut of a document without trailing space is invalid JSON").isEqualTo(json.length);
    }
}
