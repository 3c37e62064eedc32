package io.sluice.bench.json;

import io.sluice.bench.BenchDefaults;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The formatters of Gollum's JSON profiles, per message, on the profile's own payloads (random strings from
 * its character set). {@code reset} is the baseline every other benchmark includes (copy the payload in, clear
 * the metadata); {@code json} adds format.JSON; {@code jsonMove} etc. add one more formatter each, so a
 * formatter's own cost is {@code jsonX - json}. {@code chain} is profile_json's five formatters, {@code v05} is
 * profile_json_v05's ProcessJSON + ExtractJSON. Run with {@code -prof gc} for bytes per message.
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class JsonFormatBenchmark extends BenchDefaults {
    private byte[][] payloads;
    private int next;
    private Message message;
    private Modulator json;
    private Modulator move;
    private Modulator delete;
    private Modulator split;
    private Modulator copy;
    private Modulator processJson;
    private Modulator extractJson;
    private Modulator toJson;
    private final JsonScanner scanner = new JsonScanner();
    private final JsonFields fields = new JsonFields();

    @Setup
    public void setup() {
        SplittableRandom r = new SplittableRandom(42);
        payloads = new byte[10][];
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = profileJson(r).getBytes(StandardCharsets.UTF_8);
        }
        message = new BatchPool(1).acquire().add();
        json = mod("format.JSON", Map.of());
        move = mod("format.Move", Map.of("Source", "test", "Target", "foobar"));
        delete = mod("format.Delete", Map.of("Target", "bar"));
        split = mod("format.SplitToFields", Map.of("Source", "foo", "Delimiter", "|", "Fields", List.of("foo1", "foo2")));
        copy = mod("format.Copy", Map.of("Source", "thisisquitealongstring"));
        processJson = mod("format.ProcessJSON", Map.of("Directives",
                List.of("test:rename:foobar", "bar:remove", "foo:split:|:foo1:foo2")));
        extractJson = mod("format.ExtractJSON", Map.of("Field", "thisisquitealongstring"));
        toJson = mod("format.ToJSON", Map.of());
    }

    private static Modulator mod(String type, Map<String, Object> settings) {
        PluginConfig c = PluginConfig.of(type, type, settings);
        return (Modulator) c.spec().create(c);
    }

    /** What a consumer does per message: copy a template in; metadata starts empty. */
    private Message reset() {
        byte[] p = payloads[next++ % payloads.length];
        message.setPayload(p, 0, p.length);
        message.metadata().clear();
        return message;
    }

    /** format.JSON, then {@code next}: a formatter's cost on top of {@link #json}. */
    private Object afterJson(Modulator next) {
        Message m = reset();
        json.modulate(m);
        return next.modulate(m);
    }

    @Benchmark
    public Message reset_() {
        return reset();
    }

    /** format.JSON's validating scan alone (no metadata written): the floor under every JSON formatter. */
    @Benchmark
    public boolean scan() {
        Message m = reset();
        return scanner.scanObject(m.payload(), 0, m.length(), fields);
    }

    @Benchmark
    public Object json() {
        return json.modulate(reset());
    }

    @Benchmark
    public Object jsonMove() {
        return afterJson(move);
    }

    @Benchmark
    public Object jsonDelete() {
        return afterJson(delete);
    }

    @Benchmark
    public Object jsonSplitToFields() {
        return afterJson(split);
    }

    @Benchmark
    public Object jsonCopy() {
        return afterJson(copy);
    }

    @Benchmark
    public Object jsonToJson() {
        return afterJson(toJson);
    }

    /** profile_json's five formatters. */
    @Benchmark
    public Object chain() {
        Message m = reset();
        json.modulate(m);
        move.modulate(m);
        delete.modulate(m);
        split.modulate(m);
        return copy.modulate(m);
    }

    /** Reads the length after: ProcessJSON leaves its payload pending, written when first read. */
    @Benchmark
    public int processJson() {
        Message m = reset();
        processJson.modulate(m);
        return m.length();
    }

    @Benchmark
    public Object extractJson() {
        return extractJson.modulate(reset());
    }

    /** profile_json_v05's two formatters. */
    @Benchmark
    public Object v05() {
        Message m = reset();
        processJson.modulate(m);
        return extractJson.modulate(m);
    }
}
