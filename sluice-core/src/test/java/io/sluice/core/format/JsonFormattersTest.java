package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.bytes;
import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static io.sluice.core.format.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.JSON, format.ToJSON, format.ProcessJSON and format.ExtractJSON, and the tricky-JSON corpus. */
class JsonFormattersTest {
    private final Modulator json = mod("format.JSON", Map.of());
    private final Modulator toJson = mod("format.ToJSON", Map.of());

    /** Parses and writes back: the bytes must come back exactly. */
    private byte[] roundTrip(byte[] in) {
        Message m = message(in);
        assertThat(json.modulate(m)).isEqualTo(Result.CONTINUE);
        assertThat(toJson.modulate(m)).isEqualTo(Result.CONTINUE);
        return bytes(m);
    }

    @Test
    void parsesTheObjectIntoMetadataAndKeepsThePayload() {
        Message m = message("{\"a\":\"x\",\"n\":-1.5E+300,\"big\":123456789012345678901234567890,\"t\":true,"
                + "\"z\":null,\"o\":{\"p\":[1,2]}}");
        String before = m.payloadString();
        assertThat(json.modulate(m)).isEqualTo(Result.CONTINUE);
        Metadata md = m.metadata();
        assertThat(m.payloadString()).isEqualTo(before);
        assertThat(md.getString("a")).isEqualTo("x");
        assertThat(md.getString("n")).isEqualTo("-1.5E+300");
        assertThat(md.getString("big")).isEqualTo("123456789012345678901234567890");
        assertThat(md.kind(md.indexOf("n"))).isEqualTo(Metadata.NUMBER);
        assertThat(md.kind(md.indexOf("t"))).isEqualTo(Metadata.BOOLEAN);
        assertThat(md.kind(md.indexOf("z"))).isEqualTo(Metadata.NULL);
        assertThat(md.getString("o")).isEqualTo("{\"p\":[1,2]}");
        assertThat(md.kind(md.indexOf("o"))).isEqualTo(Metadata.JSON);
    }

    @Test
    void tricky_corpus_roundTripsExactly() {
        String[] corpus = {
            "{\"esc\":\"q\\\"b\\\\s\\/n\\nr\\rt\\tb\\bf\\f\"}",
            "{\"u\":\"\\u00e9\\u20AC\\ud83d\\ude00\",\"lone\":\"\\udc00\"}",
            "{\"neg\":-0,\"exp\":-1.25e-7,\"huge\":1e999,\"long\":-98765432109876543210987654321}",
            "{\"deep\":" + "[{\"a\":".repeat(200) + "1" + "}]".repeat(200) + "}",
            "{\"empty\":\"\",\"eo\":{},\"ea\":[]}",
            "{\"ünï\":\"中文\",\"emoji\":\"😀\"}",
        };
        for (String c : corpus) {
            assertThat(new String(roundTrip(utf8(c)), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(c);
        }
    }

    @Test
    void nonUtf8BytesRoundTripExactly() {
        byte[] in = {'{', '"', 'k', '"', ':', '"', (byte) 0xFF, (byte) 0xED, (byte) 0xA0, (byte) 0x80, 'x', '"', '}'};
        assertThat(roundTrip(in)).isEqualTo(in);
    }

    @Test
    void escapedValuesAreDecodedOnlyWhenReadAndThenReEscaped() {
        Message m = message("{\"s\":\"a\\u0041\\n\"}");
        json.modulate(m);
        Metadata md = m.metadata();
        assertThat(md.isEscaped(0)).isTrue();
        assertThat(md.getString("s")).isEqualTo("aA\n");
        assertThat(md.isEscaped(0)).isFalse();
        toJson.modulate(m);
        assertThat(m.payloadString()).isEqualTo("{\"s\":\"aA\\n\"}");
    }

    @Test
    void duplicateKeysLastWinsAndEscapedKeysAreDecoded() {
        Message m = message("{\"a\":1,\"b\":2,\"a\":3,\"k\\u0065y\":4}");
        json.modulate(m);
        Metadata md = m.metadata();
        assertThat(md.size()).isEqualTo(3);
        assertThat(md.getString("a")).isEqualTo("3");
        assertThat(md.getString("key")).isEqualTo("4");
    }

    @Test
    void mergesIntoExistingMetadata() {
        Message m = message("{\"a\":\"new\"}");
        m.metadata().setString("a", "old");
        m.metadata().setString("keep", "me");
        json.modulate(m);
        assertThat(m.metadata().getString("a")).isEqualTo("new");
        assertThat(m.metadata().getString("keep")).isEqualTo("me");
    }

    @Test
    void targetStoresTheObjectAsOneNestedField_goldumDocExample() {
        Message m = message("{\"a\":1}");
        mod("format.JSON", Map.of("Target", "data")).modulate(m);
        assertThat(m.metadata().size()).isEqualTo(1);
        assertThat(m.metadata().getString("data")).isEqualTo("{\"a\":1}");
    }

    @Test
    void invalidJsonIsDroppedWithOffsetAndReasonAndCounted() {
        long before = FormatErrors.invalidJson();
        Message m = message("{\"a\":1,\"b\" 2}");
        assertThat(json.modulate(m)).isEqualTo(Result.DROP);
        assertThat(m.metadata().getString(FormatErrors.JSON_ERROR)).isEqualTo("expected ':' after key");
        assertThat(m.metadata().getString(FormatErrors.JSON_ERROR_OFFSET)).isEqualTo("11");
        assertThat(m.metadata().indexOf("a")).isEqualTo(-1); // nothing half-parsed
        assertThat(m.payloadString()).isEqualTo("{\"a\":1,\"b\" 2}");
        assertThat(FormatErrors.invalidJson()).isEqualTo(before + 1);
        assertThat(json.modulate(message("[1,2]"))).isEqualTo(Result.DROP);
        assertThat(json.modulate(message(""))).isEqualTo(Result.DROP);
    }

    @Test
    void sourceReadsAMetadataField() {
        Message m = message("ignored");
        m.metadata().setString("raw", "{\"x\":\"y\"}");
        mod("format.JSON", Map.of("Source", "raw")).modulate(m);
        assertThat(m.metadata().getString("x")).isEqualTo("y");
    }

    @Test
    void toJsonRootIgnoreAndTarget() {
        Message m = message("{\"tree\":{\"a\":1,\"b\":\"s\"},\"c\":2}");
        json.modulate(m);
        mod("format.ToJSON", Map.of("Root", "tree", "Ignore", List.of("a"))).modulate(m);
        assertThat(m.payloadString()).isEqualTo("{\"b\":\"s\"}");
        mod("format.ToJSON", Map.of("Ignore", List.of("tree"), "Target", "out")).modulate(m);
        assertThat(m.metadata().getString("out")).isEqualTo("{\"c\":2}");
        mod("format.ToJSON", Map.of("Root", "missing")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("null");
        Message empty = message("x");
        toJson.modulate(empty);
        assertThat(empty.payloadString()).isEqualTo("{}");
    }

    @Test
    void toJsonEscapesValuesSetByOtherFormatters() {
        Message m = message("x");
        m.metadata().setString("msg", "say \"hi\"\n");
        toJson.modulate(m);
        assertThat(m.payloadString()).isEqualTo("{\"msg\":\"say \\\"hi\\\"\\n\"}");
    }

    private static final String PROFILE = "{\"test\":\" t \",\"foo\":\"a |b\",\"bar\":\"x\",\"thisisquitealongstring\":\" long \"}";

    @Test
    void processJson_gollum05ProfileDirectives() {
        Message m = message(PROFILE);
        Modulator p = mod("format.ProcessJSON", Map.of("Directives",
                List.of("test:rename:foobar", "bar:remove", "foo:split:|:foo1:foo2")));
        assertThat(p.modulate(m)).isEqualTo(Result.CONTINUE);
        assertThat(m.payloadString()).isEqualTo(
                "{\"foobar\":\"t\",\"foo\":\"a |b\",\"thisisquitealongstring\":\"long\",\"foo1\":\"a\",\"foo2\":\"b\"}");
        mod("format.ExtractJSON", Map.of("Field", "thisisquitealongstring")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("long");
    }

    /**
     * ProcessJSON records the members of the object it writes (so ExtractJSON after it skips a scan): for every
     * input of the tricky corpus, and keys and values that need escaping, that index must equal a fresh scan.
     */
    @Test
    void processJson_recordedIndexEqualsAScanOfThePayload() {
        Modulator p = mod("format.ProcessJSON", Map.of("Directives",
                List.of("a:rename:re\"named", "s:split:|:s1:s\\2", "gone:remove"), "TrimValues", true));
        String[] inputs = {
            PROFILE,
            "{\"a\":\" x \",\"s\":\"p|q\\\"r\",\"gone\":1,\"n\":-1.5e3,\"t\":true,\"z\":null,\"o\":{\"p\":[1,\"}\"]},\"arr\":[]}",
            "{\"esc\\u0041key\":\"q\\\"b\\\\s\\/n\\n\",\"u\":\"\\u00e9\\ud83d\\ude00\",\"ünï\":\"中文\"}",
            "{\"deep\":" + "[{\"a\":".repeat(50) + "1" + "}]".repeat(50) + ",\"e\":\"\",\"eo\":{}}",
            "{\"dup\":1,\"dup\":\"last\",\"ctl\":\"tab\\tend\"}",
        };
        JsonScanner scanner = new JsonScanner();
        JsonFields scanned = new JsonFields();
        for (String in : inputs) {
            Message m = message(in);
            assertThat(p.modulate(m)).as(in).isEqualTo(Result.CONTINUE);
            JsonFields recorded = m.jsonIndex();
            assertThat(recorded).as(in).isNotNull();
            assertThat(scanner.scanObject(m.payload(), 0, m.length(), scanned)).as(m.payloadString()).isTrue();
            assertThat(recorded.size()).as(m.payloadString()).isEqualTo(scanned.size());
            for (int i = 0; i < scanned.size(); i++) {
                String at = m.payloadString() + " member " + i;
                assertThat(recorded.keyOffset(i)).as(at).isEqualTo(scanned.keyOffset(i));
                assertThat(recorded.keyLength(i)).as(at).isEqualTo(scanned.keyLength(i));
                assertThat(recorded.keyEscaped(i)).as(at).isEqualTo(scanned.keyEscaped(i));
                assertThat(recorded.valueOffset(i)).as(at).isEqualTo(scanned.valueOffset(i));
                assertThat(recorded.valueLength(i)).as(at).isEqualTo(scanned.valueLength(i));
                assertThat(recorded.valueEscaped(i)).as(at).isEqualTo(scanned.valueEscaped(i));
                assertThat(recorded.kind(i)).as(at).isEqualTo(scanned.kind(i));
            }
        }
    }

    @Test
    void processJson_indexIsDroppedWhenThePayloadChanges() {
        Message m = message(PROFILE);
        mod("format.ProcessJSON", Map.of("Directives", List.of("bar:remove"))).modulate(m);
        assertThat(m.jsonIndex()).isNotNull();
        m.setPayload("{\"thisisquitealongstring\":\"replaced\"}");
        assertThat(m.jsonIndex()).isNull();
        mod("format.ExtractJSON", Map.of("Field", "thisisquitealongstring")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("replaced");
        // An in-place write announced through ensureCapacity/setLength drops it too.
        mod("format.ProcessJSON", Map.of("Directives", List.of("x:remove"))).modulate(message(PROFILE));
        Message n = message(PROFILE);
        mod("format.ProcessJSON", Map.of("Directives", List.of("bar:remove"))).modulate(n);
        n.setLength(n.length());
        assertThat(n.jsonIndex()).isNull();
    }

    @Test
    void processJson_leavesThePayloadPendingAndWritesItBeforeItsNextMessage() {
        Modulator p = mod("format.ProcessJSON", Map.of("Directives", List.of("a:rename:b")));
        Message first = message("{\"a\":\" 1 \"}");
        p.modulate(first);
        assertThat(first.pending()).isNotNull();
        Message second = message("{\"a\":2}");
        p.modulate(second);
        assertThat(first.pending()).as("written before the fields were reused").isNull();
        assertThat(first.payloadString()).isEqualTo("{\"b\":\"1\"}");
        assertThat(second.length()).isEqualTo("{\"b\":2}".length());
        assertThat(second.payloadString()).isEqualTo("{\"b\":2}");
    }

    /**
     * ExtractJSON after ProcessJSON takes its field from ProcessJSON's pending fields; the result must be what
     * it extracts from the object once written (forced here by reading the length in between): strings raw,
     * escaped, split, trimmed or changed by a directive (which the writer must escape), numbers at both
     * precisions, literals, nested values, missing fields, paths, and keys that need escaping.
     */
    @Test
    void extractJson_fromPendingFieldsEqualsFromTheWrittenObject() {
        String[] docs = {
            PROFILE,
            "{\"a\":\" x \",\"s\":\"p|q\\\"r\",\"gone\":1,\"n\":-1.50e3,\"i\":12345678901234567890,\"t\":true,"
                    + "\"z\":null,\"o\":{\"p\":[1,\"}\"]},\"arr\":[],\"r\":\" axb \",\"e\":\"\\u00e9\\t \\n\"}",
            "{\"esc\\u0041key\":\"q\\\"b\",\"u\":\"\\ud83d\\ude00 \",\"ünï\":\"中文\",\"k\\\"q\":1,\"dup\":1,\"dup\":\"last\"}",
        };
        String[] fields = {"thisisquitealongstring", "foobar", "foo1", "a", "renamed", "s1", "s2", "s", "gone", "n",
            "i", "t", "z", "o", "o/p/1", "arr", "r", "e", "escAkey", "u", "ünï", "k\"q", "dup", "missing", ""};
        List<String> directives = List.of("test:rename:foobar", "bar:remove", "foo:split:|:foo1:foo2",
                "a:rename:renamed", "s:split:|:s1:s2", "gone:remove", "r:replace:x:\\n");
        for (int both = 0; both < 4; both++) {
            boolean processTrim = (both & 1) != 0;
            boolean trim = (both & 2) != 0;
            Modulator p1 = mod("format.ProcessJSON", Map.of("Directives", directives, "TrimValues", processTrim));
            Modulator p2 = mod("format.ProcessJSON", Map.of("Directives", directives, "TrimValues", processTrim));
            for (String field : fields) {
                for (int precision : new int[] {-1, 2}) {
                    Map<String, Object> settings = Map.of("Field", field, "TrimValues", trim, "Precision", precision);
                    Modulator e1 = mod("format.ExtractJSON", settings);
                    Modulator e2 = mod("format.ExtractJSON", settings);
                    for (String doc : docs) {
                        Message pending = message(doc);
                        Message written = message(doc);
                        p1.modulate(pending);
                        p2.modulate(written);
                        assertThat(pending.pending()).isNotNull();
                        assertThat(written.length()).isPositive();
                        assertThat(e1.modulate(pending)).isEqualTo(e2.modulate(written));
                        assertThat(pending.payloadString()).as("%s from %s (trim %s, %s)", field, doc, processTrim, trim)
                                .isEqualTo(written.payloadString());
                    }
                }
            }
        }
    }

    @Test
    void processJson_trimValuesFalseKeepsSpaces() {
        Message m = message("{\"a\":\" x \"}");
        mod("format.ProcessJSON", Map.of("Directives", List.of("a:rename:b"), "TrimValues", false)).modulate(m);
        assertThat(m.payloadString()).isEqualTo("{\"b\":\" x \"}");
    }

    @Test
    void processJson_everyDirective() {
        Message m = message("{\"arr\":[\"a\",\"b\",1,\"c\"],\"ips\":[\"10.0.0.1\",\"nope\",\"::1\",\"2001:db8::8a2e:370:7334\",\"256.1.1.1\"],"
                + "\"one\":\"192.168.0.1\",\"ts\":\"20240102030405 junk\",\"unix\":1700000000,\"err\":\"a°b\","
                + "\"txt\":\"\\t-x-\\t\",\"tr\":\"xxhixx\",\"obj\":{\"k\":1,\"s\":\"v\"},\"list\":[true,null],"
                + "\"ua\":\"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36\","
                + "\"client\":\"1.2.3.4\",\"missing_is_ignored\":0}");
        Modulator p = mod("format.ProcessJSON", Map.of("Directives", List.of(
                "arr:pick:-1:last", "arr:pick:0:first", "arr:remove:a:c",
                "ips:ip", "one:ip",
                "ts:time:20060102150405:2006-01-02 15\\:04\\:05",
                "unix:unixtimestamp:s:2006",
                "err:replace:°:\\n", "txt:trim", "tr:trim:x",
                "obj:flatten", "list:flatten:_",
                "ua:agent:browser:version:os:platform:engine",
                "client:geoip:country", "nothere:remove")));
        assertThat(p.modulate(m)).isEqualTo(Result.CONTINUE);
        Modulator parse = mod("format.JSON", Map.of());
        Message out = message(m.payloadString());
        parse.modulate(out);
        Metadata md = out.metadata();
        assertThat(md.getString("last")).isEqualTo("c");
        assertThat(md.getString("first")).isEqualTo("a");
        assertThat(md.getString("arr")).isEqualTo("[\"b\",1]");
        assertThat(md.getString("ips")).isEqualTo("[\"10.0.0.1\",\"::1\",\"2001:db8::8a2e:370:7334\"]");
        assertThat(md.getString("one")).isEqualTo("[\"192.168.0.1\"]");
        assertThat(md.getString("ts")).isEqualTo("2024-01-02 03:04:05");
        assertThat(md.getString("unix")).isEqualTo(java.time.Instant.ofEpochSecond(1700000000L)
                .atZone(java.time.ZoneId.systemDefault()).getYear() + "");
        assertThat(md.getString("err")).isEqualTo("a\nb");
        assertThat(md.getString("txt")).isEqualTo("-x-");
        assertThat(md.getString("tr")).isEqualTo("hi");
        assertThat(md.indexOf("obj")).isEqualTo(-1);
        assertThat(md.getString("obj.k")).isEqualTo("1");
        assertThat(md.getString("obj.s")).isEqualTo("v");
        assertThat(md.getString("list_0")).isEqualTo("true");
        assertThat(md.getString("list_1")).isEqualTo("null");
        assertThat(md.getString("ua_browser")).isEqualTo("Chrome");
        assertThat(md.getString("ua_version")).isEqualTo("120.0.0.0");
        assertThat(md.getString("ua_os")).isEqualTo("Windows 10");
        assertThat(md.getString("ua_platform")).isEqualTo("Windows");
        assertThat(md.getString("ua_engine")).isEqualTo("AppleWebKit");
        assertThat(md.getString("client")).isEqualTo("1.2.3.4");
    }

    @Test
    void processJson_rejectsBadDirectivesAndGeoIpFiles() {
        assertThatThrownBy(() -> mod("format.ProcessJSON", Map.of("Directives", List.of("a:explode"))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("unknown action");
        assertThatThrownBy(() -> mod("format.ProcessJSON", Map.of("Directives", List.of("a:pick:x:y"))))
                .isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> mod("format.ProcessJSON", Map.of("GeoIPFile", "/x.mmdb")))
                .isInstanceOf(ConfigException.class);
    }

    @Test
    void processJson_invalidJsonIsDropped() {
        Message m = message("not json");
        Modulator p = mod("format.ProcessJSON", Map.of("Directives", List.of("a:remove")));
        assertThat(p.modulate(m)).isEqualTo(Result.DROP);
        assertThat(m.metadata().getString(FormatErrors.JSON_ERROR)).isEqualTo("expected '{'");
    }

    @Test
    void extractJson_valuesAsGollumPrintsThem() {
        String doc = "{\"s\":\"  a\\tb \",\"i\":12345678901234567890,\"f\":1.50,\"e\":2.5e3,\"b\":true,\"z\":null,"
                + "\"o\":{\"p\":{\"q\":\"deep\"},\"arr\":[\"x\",\"y\"]}}";
        assertThat(extract(doc, Map.of("Field", "s"))).isEqualTo("a\tb");
        assertThat(extract(doc, Map.of("Field", "s", "TrimValues", false))).isEqualTo("  a\tb ");
        assertThat(extract(doc, Map.of("Field", "i"))).isEqualTo("12345678901234567890");
        assertThat(extract(doc, Map.of("Field", "f"))).isEqualTo("1.5");
        assertThat(extract(doc, Map.of("Field", "e"))).isEqualTo("2500");
        assertThat(extract(doc, Map.of("Field", "f", "Precision", 3))).isEqualTo("1.500");
        assertThat(extract(doc, Map.of("Field", "b"))).isEqualTo("true");
        assertThat(extract(doc, Map.of("Field", "z"))).isEqualTo("<nil>");
        assertThat(extract(doc, Map.of("Field", "o/p/q"))).isEqualTo("deep");
        assertThat(extract(doc, Map.of("Field", "o/arr/1"))).isEqualTo("y");
        assertThat(extract(doc, Map.of("Field", "nope"))).isEqualTo("");
    }

    @Test
    void extractJson_applyToAMetadataField_gollumDocExample() {
        Message m = message("payload");
        m.metadata().setString("host", "{\"host\":\"web-1\"}");
        mod("format.ExtractJSON", Map.of("Field", "host", "ApplyTo", "host")).modulate(m);
        assertThat(m.metadata().getString("host")).isEqualTo("web-1");
        assertThat(m.payloadString()).isEqualTo("payload");
    }

    private static String extract(String doc, Map<String, Object> settings) {
        Message m = message(doc);
        assertThat(mod("format.ExtractJSON", settings).modulate(m)).isEqualTo(Result.CONTINUE);
        return m.payloadString();
    }
}
