package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
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

/** format.ProcessJSON: Gollum's doc example and tests, then Sluice's own cases. */
class ProcessJSONTest {
    static final String PROFILE = "{\"test\":\" t \",\"foo\":\"a |b\",\"bar\":\"x\",\"thisisquitealongstring\":\" long \"}";

    /**
     * Gollum's doc example: split host into host and @timestamp, rewrite the time, keep valid IPs, geoip (without
     * a GeoIP file: nothing) and the user agent's os, engine and engine_version (the unknown field "ua" is
     * skipped, as Gollum does).
     */
    @Test
    void gollumDocExample_splitTimeIpGeoipAndAgent() {
        Message m = message("{\"host\":\"web-1 20240102030405\",\"client\":\"1.2.3.4\",\"ua\":\"Mozilla/5.0 "
                + "(Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36\"}");
        Modulator p = mod("format.ProcessJSON", Map.of("Directives", List.of(
                "host:split: :host:@timestamp",
                "@timestamp:time:20060102150405:2006-01-02 15\\:04\\:05",
                "client:ip",
                "client:geoip:location:country",
                "ua:agent:ua:os:engine:engine_version")));
        assertThat(p.modulate(m)).isEqualTo(Result.CONTINUE);
        Metadata md = parsed(m);
        assertThat(md.getString("host")).isEqualTo("web-1");
        assertThat(md.getString("@timestamp")).isEqualTo("2024-01-02 03:04:05");
        assertThat(md.getString("client")).isEqualTo("[\"1.2.3.4\"]");
        assertThat(md.getString("ua_os")).isEqualTo("Windows 10");
        assertThat(md.getString("ua_engine")).isEqualTo("AppleWebKit");
        assertThat(md.getString("ua_engine_version")).isEqualTo("537.36");
        assertThat(md.indexOf("ua_ua")).isEqualTo(-1);
    }

    /** Gollum's TestProcessJSONRename, ...Replace, ...TrimValues, ...TrimValuesFalse and ...ApplyTo. */
    @Test
    void gollumTests_renameReplaceTrimAndApplyTo() {
        String in = "{\"foo\":\"value1\",\"bar\":\"value2\"}";
        Message rename = message(in);
        mod("format.ProcessJSON", Map.of("Directives", List.of("foo:rename:foobar"))).modulate(rename);
        assertThat(rename.payloadString()).contains("\"foobar\":\"value1\"").contains("\"bar\":\"value2\"");
        Message replace = message(in);
        mod("format.ProcessJSON", Map.of("Directives", List.of("foo:replace:value:new"))).modulate(replace);
        assertThat(replace.payloadString()).contains("\"foo\":\"new1\"");
        String spaced = "{\"foo\":\"value1 \",\"bar\":\" value2\"}";
        Message trimmed = message(spaced);
        mod("format.ProcessJSON", Map.of("Directives", List.of("foo:rename:foo2", "bar:rename:bar2"), "TrimValues", true))
                .modulate(trimmed);
        assertThat(trimmed.payloadString()).contains("\"foo2\":\"value1\"").contains("\"bar2\":\"value2\"");
        Message kept = message(spaced);
        mod("format.ProcessJSON", Map.of("Directives", List.of("foo:rename:foo2", "bar:rename:bar2"), "TrimValues", false))
                .modulate(kept);
        assertThat(kept.payloadString()).contains("\"foo2\":\"value1 \"").contains("\"bar2\":\" value2\"");
        Message field = message("TEST PAYLOAD");
        field.metadata().setString("foo", "{\"test\":\"foobar\"}");
        mod("format.ProcessJSON", Map.of("Directives", List.of("test:rename:foo"), "ApplyTo", "foo")).modulate(field);
        assertThat(field.payloadString()).isEqualTo("TEST PAYLOAD");
        assertThat(field.metadata().getString("foo")).contains("\"foo\":\"foobar\"");
    }

    private static Metadata parsed(Message processed) {
        Message out = message(processed.payloadString());
        assertThat(mod("format.JSON", Map.of()).modulate(out)).isEqualTo(Result.CONTINUE);
        return out.metadata();
    }

    @Test
    void gollum05ProfileDirectives() {
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
    void recordedIndexEqualsAScanOfThePayload() {
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
    void indexIsDroppedWhenThePayloadChanges() {
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
    void leavesThePayloadPendingAndWritesItBeforeItsNextMessage() {
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

    @Test
    void trimValuesFalseKeepsSpaces() {
        Message m = message("{\"a\":\" x \"}");
        mod("format.ProcessJSON", Map.of("Directives", List.of("a:rename:b"), "TrimValues", false)).modulate(m);
        assertThat(m.payloadString()).isEqualTo("{\"b\":\" x \"}");
    }

    @Test
    void everyDirective() {
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
    void rejectsBadDirectivesAndGeoIpFiles() {
        assertThatThrownBy(() -> mod("format.ProcessJSON", Map.of("Directives", List.of("a:explode"))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("unknown action");
        assertThatThrownBy(() -> mod("format.ProcessJSON", Map.of("Directives", List.of("a:pick:x:y"))))
                .isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> mod("format.ProcessJSON", Map.of("GeoIPFile", "/x.mmdb")))
                .isInstanceOf(ConfigException.class);
    }

    @Test
    void invalidJsonIsDropped() {
        Message m = message("not json");
        Modulator p = mod("format.ProcessJSON", Map.of("Directives", List.of("a:remove")));
        assertThat(p.modulate(m)).isEqualTo(Result.DROP);
        assertThat(m.metadata().getString(FormatErrors.JSON_ERROR)).isEqualTo("expected '{'");
    }
}
