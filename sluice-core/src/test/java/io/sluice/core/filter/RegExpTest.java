package io.sluice.core.filter;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** filter.RegExp (the filter; format.RegExp has its own test): Gollum's doc example and test, then Sluice's. */
class RegExpTest {
    /** Gollum's doc: "accepts only accesslog entries with a return status of 2xx or 3xx not originated from staging". */
    @Test
    void gollumDocExample_2xxAnd3xxNotFromStaging() {
        Modulator f = mod("filter.RegExp", Map.of("FilterExpressionNot", " stage\\.", "FilterExpression", "HTTP/1\\.1\\\" [23]\\d\\d"));
        assertThat(f.modulate(message("GET / HTTP/1.1\" 200 www.example"))).isEqualTo(Result.CONTINUE);
        assertThat(f.modulate(message("GET / HTTP/1.1\" 302 host"))).isEqualTo(Result.CONTINUE);
        assertThat(f.modulate(message("GET / HTTP/1.1\" 404 www.example"))).isEqualTo(Result.DROP);
        assertThat(f.modulate(message("GET / HTTP/1.1\" 200 www stage.example"))).isEqualTo(Result.DROP);
        assertThat(f.modulate(message("é HTTP/1.1\" 200"))).isEqualTo(Result.CONTINUE);
    }

    /** Gollum's TestFilterRegExp: ExpressionNot is checked first, then Expression; either may be left out. */
    @Test
    void gollumTest_eitherExpressionOrBoth() {
        List<String> in = List.of("accept", "0accept", "reject");
        assertThat(results(Map.of("ExpressionNot", "^\\d", "Expression", "accept"), in))
                .containsExactly(Result.CONTINUE, Result.DROP, Result.DROP);
        assertThat(results(Map.of("ExpressionNot", "^\\d"), in)).containsExactly(Result.CONTINUE, Result.DROP, Result.CONTINUE);
        assertThat(results(Map.of(), in)).containsExactly(Result.CONTINUE, Result.CONTINUE, Result.CONTINUE);
        assertThat(results(Map.of("Expression", "accept"), in)).containsExactly(Result.CONTINUE, Result.CONTINUE, Result.DROP);
    }

    private static List<Result> results(Map<String, Object> settings, List<String> payloads) {
        Modulator f = mod("filter.RegExp", settings);
        return payloads.stream().map(p -> f.modulate(message(p))).toList();
    }

    @Test
    void codeNamesAndApplyTo() {
        Modulator f = mod("filter.RegExp", Map.of("Expression", "^ok", "ExpressionNot", "bad", "ApplyTo", "status"));
        Message m = message("payload is bad");
        m.metadata().setString("status", "ok fine");
        assertThat(f.modulate(m)).isEqualTo(Result.CONTINUE);
        m.metadata().setString("status", "ok but bad");
        assertThat(f.modulate(m)).isEqualTo(Result.DROP);
        assertThat(f.modulate(message("no field"))).isEqualTo(Result.DROP);
        assertThat(mod("filter.RegExp", Map.of()).modulate(message("x"))).isEqualTo(Result.CONTINUE);
    }
}
