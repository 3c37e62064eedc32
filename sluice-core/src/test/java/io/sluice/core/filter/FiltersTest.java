package io.sluice.core.filter;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Message;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FiltersTest {
    private static Message on(String stream, String payload) {
        Message m = message(payload);
        m.setStream(Streams.id(stream));
        return m;
    }

    @Test
    void regexp_gollumDocExample() {
        Modulator f = mod("filter.RegExp", Map.of("FilterExpressionNot", " stage\\.", "FilterExpression", "HTTP/1\\.1\\\" [23]\\d\\d"));
        assertThat(f.modulate(message("GET / HTTP/1.1\" 200 www.example"))).isEqualTo(Result.CONTINUE);
        assertThat(f.modulate(message("GET / HTTP/1.1\" 302 host"))).isEqualTo(Result.CONTINUE);
        assertThat(f.modulate(message("GET / HTTP/1.1\" 404 www.example"))).isEqualTo(Result.DROP);
        assertThat(f.modulate(message("GET / HTTP/1.1\" 200 www stage.example"))).isEqualTo(Result.DROP);
        assertThat(f.modulate(message("é HTTP/1.1\" 200"))).isEqualTo(Result.CONTINUE);
    }

    @Test
    void regexp_codeNamesAndApplyTo() {
        Modulator f = mod("filter.RegExp", Map.of("Expression", "^ok", "ExpressionNot", "bad", "ApplyTo", "status"));
        Message m = message("payload is bad");
        m.metadata().setString("status", "ok fine");
        assertThat(f.modulate(m)).isEqualTo(Result.CONTINUE);
        m.metadata().setString("status", "ok but bad");
        assertThat(f.modulate(m)).isEqualTo(Result.DROP);
        assertThat(f.modulate(message("no field"))).isEqualTo(Result.DROP);
        assertThat(mod("filter.RegExp", Map.of()).modulate(message("x"))).isEqualTo(Result.CONTINUE);
    }

    @Test
    void none_dropsEverything() {
        assertThat(mod("filter.None", Map.of()).modulate(message("x"))).isEqualTo(Result.DROP);
    }

    @Test
    void filteredStream_movesTheDroppedMessageToItsStream() {
        Message m = message("x");
        assertThat(mod("filter.None", Map.of("FilteredStream", "quarantine")).modulate(m)).isEqualTo(Result.DROP);
        assertThat(io.sluice.core.message.Streams.name(m.stream())).isEqualTo("quarantine");
    }

    @Test
    void stream_blockThenOnly_gollumDocExamples() {
        Modulator block = mod("filter.Stream", Map.of("Block", List.of("foo")));
        assertThat(block.modulate(on("foo", "x"))).isEqualTo(Result.DROP);
        assertThat(block.modulate(on("other", "x"))).isEqualTo(Result.CONTINUE);
        Modulator only = mod("filter.Stream", Map.of("Only", List.of("foo")));
        assertThat(only.modulate(on("foo", "x"))).isEqualTo(Result.CONTINUE);
        assertThat(only.modulate(on("other", "x"))).isEqualTo(Result.DROP);
        Modulator both = mod("filter.Stream", Map.of("Block", List.of("foo"), "Only", List.of("foo", "bar")));
        assertThat(both.modulate(on("foo", "x"))).isEqualTo(Result.DROP);
        assertThat(both.modulate(on("bar", "x"))).isEqualTo(Result.CONTINUE);
    }

    @Test
    void any_passesIfOneFilterPasses_gollumDocExample() {
        Modulator any = mod("filter.Any", Map.of("AnyFilters", List.of(
                Map.of("filter.RegExp", Map.of("FilterExpression", "^\\{")),
                Map.of("filter.Stream", Map.of("Only", List.of("exceptionStream"))))));
        assertThat(any.modulate(on("s", "{json}"))).isEqualTo(Result.CONTINUE);
        assertThat(any.modulate(on("exceptionStream", "text"))).isEqualTo(Result.CONTINUE);
        assertThat(any.modulate(on("s", "text"))).isEqualTo(Result.DROP);
        assertThat(mod("filter.Any", Map.of()).modulate(message("x"))).isEqualTo(Result.DROP);
    }

    @Test
    void sample_passes2of10_gollumDocExample_andIgnoresStreams() {
        Modulator f = mod("filter.Sample", Map.of("SampleRatePerGroup", 2, "SampleGroupSize", 10, "SampleIgnore", List.of("foo")));
        StringBuilder pattern = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            pattern.append(f.modulate(on("s", "x")) == Result.CONTINUE ? 'P' : '-');
        }
        assertThat(pattern.toString()).isEqualTo("PP--------PP--------");
        assertThat(f.modulate(on("foo", "x"))).isEqualTo(Result.CONTINUE);
        Modulator dflt = mod("filter.Sample", Map.of("SampleRateIgnore", List.of("bar")));
        assertThat(List.of(dflt.modulate(on("s", "x")), dflt.modulate(on("s", "x")), dflt.modulate(on("bar", "x"))))
                .containsExactly(Result.CONTINUE, Result.DROP, Result.CONTINUE);
    }

    @Test
    void sample_countIsSharedByTheRoutinesOfOnePlugin() {
        PluginConfig c = PluginConfig.of("s", "filter.Sample", Map.of());
        Modulator a = (Modulator) c.spec().create(c);
        Modulator b = (Modulator) c.spec().create(c);
        assertThat(List.of(a.modulate(on("s", "x")), b.modulate(on("s", "x")), a.modulate(on("s", "x"))))
                .containsExactly(Result.CONTINUE, Result.DROP, Result.CONTINUE);
    }

    @Test
    void rate_limitsPerStreamAndSecond_gollumDocExample() {
        AtomicLong now = new AtomicLong(0);
        PluginConfig c = PluginConfig.of("r", "filter.Rate", Map.of("MessagesPerSec", 10, "Ignore", List.of("noLimit")));
        Rate a = new Rate(c, now::get);
        Rate b = new Rate(c, now::get); // a second routine of the same plugin shares the window
        int passed = 0;
        for (int i = 0; i < 30; i++) {
            passed += (i % 2 == 0 ? a : b).modulate(on("limited", "x")) == Result.CONTINUE ? 1 : 0;
        }
        assertThat(passed).isEqualTo(10);
        assertThat(a.modulate(on("other", "x"))).isEqualTo(Result.CONTINUE);
        for (int i = 0; i < 30; i++) {
            assertThat(a.modulate(on("noLimit", "x"))).isEqualTo(Result.CONTINUE);
        }
        now.set(1_500_000_000L);
        assertThat(a.modulate(on("limited", "x"))).isEqualTo(Result.CONTINUE);
        assertThat(mod("filter.Rate", Map.of()).modulate(on("dflt", "x"))).isEqualTo(Result.CONTINUE);
    }
}
