package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.bytes;
import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static io.sluice.core.format.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.JSON: Gollum's doc example and test, then Sluice's own cases and the tricky-JSON corpus. */
class JSONTest {
    private final Modulator json = mod("format.JSON", Map.of());

    private final Modulator toJson = mod("format.ToJSON", Map.of());

    /** Parses and writes back (format.ToJSON): the bytes must come back exactly. */
    private byte[] roundTrip(byte[] in) {
        Message m = message(in);
        assertThat(json.modulate(m)).isEqualTo(Result.CONTINUE);
        assertThat(toJson.modulate(m)).isEqualTo(Result.CONTINUE);
        return bytes(m);
    }

    /** Gollum's doc: "parses the payload as JSON and stores it below the key data". */
    @Test
    void gollumDocExample_storesTheObjectBelowData() {
        Message m = message("{\"a\":1}");
        mod("format.JSON", Map.of("Target", "data")).modulate(m);
        assertThat(m.metadata().size()).isEqualTo(1);
        assertThat(m.metadata().getString("data")).isEqualTo("{\"a\":1}");
    }

    /** Gollum's TestJSON: strings, numbers, objects and arrays become fields of their kinds. */
    @Test
    void gollumTest_valuesOfEveryKind() {
        Message m = message("{\"a\":\"bar\",\"b\":2,\"c\":{\"a\":\"bar\"},\"d\":[\"a\",\"b\"]}");
        assertThat(json.modulate(m)).isEqualTo(Result.CONTINUE);
        Metadata md = m.metadata();
        assertThat(md.getString("a")).isEqualTo("bar");
        assertThat(md.getString("b")).isEqualTo("2");
        assertThat(md.kind(md.indexOf("b"))).isEqualTo(Metadata.NUMBER);
        assertThat(md.getString("c")).isEqualTo("{\"a\":\"bar\"}");
        assertThat(md.kind(md.indexOf("c"))).isEqualTo(Metadata.JSON);
        assertThat(md.getString("d")).isEqualTo("[\"a\",\"b\"]");
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
}
