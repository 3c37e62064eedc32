package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The non-JSON formatters, parameter by parameter, with Gollum's doc examples. */
class FormattersTest {
    private static Message parsed(String json) {
        Message m = message(json);
        assertThat(mod("format.JSON", Map.of()).modulate(m)).isEqualTo(Result.CONTINUE);
        return m;
    }

    @Test
    void profileJsonChain_endsWithTheLongStringAsPayload() {
        Message m = parsed("{\"test\":\"T\",\"foo\":\"a|b\",\"bar\":\"B\",\"thisisquitealongstring\":\"L\"}");
        mod("format.Move", Map.of("Source", "test", "Target", "foobar")).modulate(m);
        mod("format.Delete", Map.of("Target", "bar")).modulate(m);
        mod("format.SplitToFields", Map.of("Source", "foo", "Delimiter", "|", "Fields", List.of("foo1", "foo2"))).modulate(m);
        mod("format.Copy", Map.of("Source", "thisisquitealongstring")).modulate(m);
        Metadata md = m.metadata();
        assertThat(m.payloadString()).isEqualTo("L");
        assertThat(md.toString()).isEqualTo("{foobar=T, foo=a|b, thisisquitealongstring=L, foo1=a, foo2=b}");
        mod("format.ToJSON", Map.of()).modulate(m);
        assertThat(m.payloadString()).isEqualTo(
                "{\"foobar\":\"T\",\"foo\":\"a|b\",\"thisisquitealongstring\":\"L\",\"foo1\":\"a\",\"foo2\":\"b\"}");
    }

    @Test
    void move_payloadToField_gollumDocExample_andBack() {
        Message m = message("hello");
        mod("format.Move", Map.of("Target", "data")).modulate(m);
        assertThat(m.length()).isZero();
        assertThat(m.metadata().getString("data")).isEqualTo("hello");
        mod("format.Move", Map.of("Source", "data")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("hello");
        assertThat(m.metadata().indexOf("data")).isEqualTo(-1);
        mod("format.Move", Map.of("Source", "absent", "Target", "t")).modulate(m);
        assertThat(m.metadata().getString("t")).isEmpty();
        Message n = parsed("{\"num\":42}");
        mod("format.Move", Map.of("Source", "num", "Target", "n2")).modulate(n);
        assertThat(n.metadata().kind(n.metadata().indexOf("n2"))).isEqualTo(Metadata.NUMBER);
    }

    @Test
    void copy_modesAndSeparator() {
        Message m = message("payload");
        mod("format.Copy", Map.of("Target", "key")).modulate(m);
        assertThat(m.metadata().getString("key")).isEqualTo("payload");
        mod("format.Copy", Map.of("Target", "key", "Mode", "append", "Separator", "-")).modulate(m);
        assertThat(m.metadata().getString("key")).isEqualTo("payload-payload");
        m.setPayload("P");
        mod("format.Copy", Map.of("Target", "key", "Mode", "PREPEND", "Separator", "+")).modulate(m);
        assertThat(m.metadata().getString("key")).isEqualTo("P+payload-payload");
        mod("format.Copy", Map.of("Source", "key", "Mode", "append")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("PP+payload-payload");
        assertThatThrownBy(() -> mod("format.Copy", Map.of("Mode", "merge"))).isInstanceOf(ConfigException.class);
    }

    @Test
    void delete_payloadOrField() {
        Message m = message("x");
        m.metadata().setString("pipe", "p");
        mod("format.Delete", Map.of("Target", "pipe")).modulate(m);
        assertThat(m.metadata().indexOf("pipe")).isEqualTo(-1);
        assertThat(m.payloadString()).isEqualTo("x");
        mod("format.Delete", Map.of()).modulate(m);
        assertThat(m.length()).isZero();
    }

    @Test
    void splitToFields_intoRootOrNestedTarget_gollumDocExample() {
        Message m = message("a:b:c:d");
        mod("format.SplitToFields", Map.of("Target", "values", "Delimiter", ":",
                "Fields", List.of("first", "second", "third"))).modulate(m);
        assertThat(m.metadata().getString("values")).isEqualTo("{\"first\":\"a\",\"second\":\"b\",\"third\":\"c\"}");
        assertThat(m.metadata().getString("values/second")).isNull(); // paths are for reading sources
        Message few = message("x,y");
        mod("format.SplitToFields", Map.of("Fields", List.of("f1", "f2", "f3"))).modulate(few);
        assertThat(few.metadata().toString()).isEqualTo("{f1=x, f2=y}");
        Message runes = message("aé");
        mod("format.SplitToFields", Map.of("Delimiter", "", "Fields", List.of("c1", "c2"))).modulate(runes);
        assertThat(runes.metadata().toString()).isEqualTo("{c1=a, c2=é}");
    }

    @Test
    void nestedSourcePathsAreReadable() {
        Message m = message("a:b");
        mod("format.SplitToFields", Map.of("Target", "v", "Delimiter", ":", "Fields", List.of("x", "y"))).modulate(m);
        mod("format.Copy", Map.of("Source", "v/y")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("b");
    }

    @Test
    void flatten_treeToDottedKeys_gollumDocExample() {
        Message m = parsed("{\"tree\":{\"a\":{\"b\":1,\"c\":\"s\\\"q\"},\"arr\":[1,2]},\"other\":0}");
        assertThat(mod("format.Flatten", Map.of("Source", "tree")).modulate(m)).isEqualTo(Result.CONTINUE);
        Metadata md = m.metadata();
        assertThat(md.getString("tree.a.b")).isEqualTo("1");
        assertThat(md.getString("tree.a.c")).isEqualTo("s\"q");
        assertThat(md.getString("tree.arr")).isEqualTo("[1,2]");
        assertThat(md.indexOf("tree")).isGreaterThanOrEqualTo(0);
        mod("format.Flatten", Map.of("Source", "tree", "Separator", "/", "Target", "flat")).modulate(m);
        assertThat(md.getString("flat")).isEqualTo("{\"tree/a/b\":1,\"tree/a/c\":\"s\\\"q\",\"tree/arr\":[1,2]}");
        assertThat(mod("format.Flatten", Map.of("Source", "other")).modulate(m)).isEqualTo(Result.DROP);
        assertThatThrownBy(() -> mod("format.Flatten", Map.of())).isInstanceOf(ConfigException.class);
    }

    @Test
    void override_setsValue_gollumDocExample() {
        Message m = message("x");
        mod("format.Override", Map.of("Target", "bar", "Value", "foo")).modulate(m);
        assertThat(m.metadata().getString("bar")).isEqualTo("foo");
        mod("format.Override", Map.of("Value", "new")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("new");
    }

    @Test
    void replace_allOccurrencesAndEmptySearch() {
        Message m = message("foo bar foo");
        mod("format.Replace", Map.of("Search", "foo", "ReplaceWith", "bar")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("bar bar bar");
        Message e = message("ab");
        mod("format.Replace", Map.of("ReplaceWith", "-")).modulate(e);
        assertThat(e.payloadString()).isEqualTo("-a-b-");
    }

    @Test
    void regexp_template_gollumDocExample() {
        Message m = message("1234 myhost: rest of line");
        mod("format.RegExp", Map.of("Expression", "^(\\d+) (\\w+): ", "Template", "time: ${1}, host: ${2}")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("time: 1234, host: myhost");
        Message named = message("k=v");
        mod("format.RegExp", Map.of("Expression", "(?P<k>\\w)=(?P<v>\\w)", "Template", "$v$$${k}")).modulate(named);
        assertThat(named.payloadString()).isEqualTo("v$k");
        Message none = message("zzz");
        mod("format.RegExp", Map.of("Expression", "(\\d+)", "Template", "[${1}]")).modulate(none);
        assertThat(none.payloadString()).isEqualTo("[]");
        Message dflt = message("all of it");
        mod("format.RegExp", Map.of()).modulate(dflt);
        assertThat(dflt.payloadString()).isEqualTo("all of it");
        assertThatThrownBy(() -> mod("format.RegExp", Map.of("Expression", "(")))
                .isInstanceOf(ConfigException.class);
    }

    @Test
    void trim_separatorsAndOffsets_gollumDocExample() {
        assertThat(trim("foo[bar[foo]bar]foo", Map.of("LeftSeparator", "[", "RightSeparator", "]"))).isEqualTo("bar[foo]bar");
        assertThat(trim("<<x>>", Map.of("LeftSeparator", "<<", "RightSeparator", ">>"))).isEqualTo("x");
        assertThat(trim("abcdef", Map.of("LeftOffset", 1, "RightOffset", 2))).isEqualTo("bcd");
        assertThat(trim("ab", Map.of("LeftOffset", 5, "RightOffset", 5))).isEqualTo("");
        assertThat(trim("{\"a\":1}", Map.of("LeftSeparator", "{", "RightSeparator", "}"))).isEqualTo("\"a\":1");
    }

    private static String trim(String in, Map<String, Object> settings) {
        Message m = message(in);
        mod("format.Trim", settings).modulate(m);
        return m.payloadString();
    }

    @Test
    void base64_roundTripAndCustomDictionary() {
        for (String s : new String[] {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
            Message m = message(s);
            mod("format.Base64Encode", Map.of()).modulate(m);
            assertThat(m.payloadString()).isEqualTo(java.util.Base64.getEncoder().encodeToString(s.getBytes()));
            assertThat(mod("format.Base64Decode", Map.of()).modulate(m)).isEqualTo(Result.CONTINUE);
            assertThat(m.payloadString()).isEqualTo(s);
        }
        String dict = "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba9876543210+/";
        Message m = message("hello");
        mod("format.Base64Encode", Map.of("Base64Dictionary", dict)).modulate(m);
        assertThat(m.payloadString()).isNotEqualTo("aGVsbG8=");
        mod("format.Base64Decode", Map.of("Dictionary", dict)).modulate(m);
        assertThat(m.payloadString()).isEqualTo("hello");
        Message lines = message("aGVs\r\nbG8=");
        mod("format.Base64Decode", Map.of()).modulate(lines);
        assertThat(lines.payloadString()).isEqualTo("hello");
        assertThatThrownBy(() -> mod("format.Base64Encode", Map.of("Dictionary", "abc"))).isInstanceOf(ConfigException.class);
    }

    @Test
    void base64Decode_invalidInputIsDroppedWithReason() {
        Message m = message("not base64!");
        assertThat(mod("format.Base64Decode", Map.of()).modulate(m)).isEqualTo(Result.DROP);
        assertThat(m.metadata().getString(FormatErrors.FORMAT_ERROR)).isEqualTo("base64: illegal data");
        assertThat(m.payloadString()).isEqualTo("not base64!");
        assertThat(mod("format.Base64Decode", Map.of()).modulate(message("abc"))).isEqualTo(Result.DROP);
    }

    @Test
    void hostname_prefixesPayloadOrField() {
        String host = Hostname.hostName();
        Message m = message("data");
        mod("format.Hostname", Map.of()).modulate(m);
        assertThat(m.payloadString()).isEqualTo(host + ":data");
        m.metadata().setString("f", "v");
        mod("format.Hostname", Map.of("ApplyTo", "f", "Separator", " ")).modulate(m);
        assertThat(m.metadata().getString("f")).isEqualTo(host + " v");
    }

    @Test
    void streamRoute_setsStreamFromPrefix_gollumDocExample() {
        Modulator route = mod("format.StreamRoute", Map.of("Delimiter", ":",
                "StreamModulator", List.of(Map.of("format.Trim", Map.of("LeftSeparator", "<", "RightSeparator", ">")))));
        Message m = message("<error>:a message string");
        m.setStream(Streams.id("in"));
        route.modulate(m);
        assertThat(m.payloadString()).isEqualTo("a message string");
        assertThat(Streams.name(m.stream())).isEqualTo("error");
        Message noDelimiter = message("plain");
        noDelimiter.setStream(Streams.id("in"));
        route.modulate(noDelimiter);
        assertThat(noDelimiter.payloadString()).isEqualTo("plain");
        assertThat(Streams.name(noDelimiter.stream())).isEqualTo("in");
        Message emptyName = message(":rest");
        emptyName.setStream(Streams.id("in"));
        route.modulate(emptyName);
        assertThat(emptyName.payloadString()).isEqualTo("rest");
        assertThat(Streams.name(emptyName.stream())).isEqualTo("in");
        Modulator filtered = mod("format.StreamRoute", Map.of("StreamModulator", List.of("filter.None")));
        Message f = message("s:x");
        f.setStream(Streams.id("in"));
        filtered.modulate(f);
        assertThat(f.payloadString()).isEqualTo("x");
        assertThat(Streams.name(f.stream())).isEqualTo("in");
    }

    @Test
    void skipIfEmpty_leavesEmptyOrMissingSourcesAlone() {
        Message m = message("");
        mod("format.Override", Map.of("Value", "v", "SkipIfEmpty", true)).modulate(m);
        assertThat(m.length()).isZero();
        mod("format.Copy", Map.of("Source", "missing", "Target", "t", "SkipIfEmpty", true)).modulate(m);
        assertThat(m.metadata().indexOf("t")).isEqualTo(-1);
    }

    @Test
    void applyToSetsSourceAndTargetUnlessOneIsSet() {
        Message m = message("p");
        m.metadata().setString("f", "abc");
        mod("format.Replace", Map.of("ApplyTo", "f", "Search", "b", "ReplaceWith", "B")).modulate(m);
        assertThat(m.metadata().getString("f")).isEqualTo("aBc");
        assertThat(m.payloadString()).isEqualTo("p");
        mod("format.Replace", Map.of("ApplyTo", "f", "Target", "g", "Search", "p", "ReplaceWith", "P")).modulate(m);
        assertThat(m.metadata().getString("g")).isEqualTo("P");
    }
}
