package io.sluice.core.filter;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static io.sluice.core.format.Fixtures.on;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.pipeline.Modulator;
import io.sluice.core.pipeline.Modulator.Result;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** filter.Any: Gollum's doc example and tests, then Sluice's own case. */
class AnyTest {
    /** Gollum's doc: "accept valid json or messages from exceptionStream"; and TestFilterAnyJsonRegExp. */
    @Test
    @Disabled("Sluice has no filter.JSON (see passesIfOneFilterPasses for the example with a filter.RegExp instead)")
    void gollumDocExample_jsonOrExceptionStream() {
        Modulator any = mod("filter.Any", Map.of("AnyFilters", List.of("filter.JSON",
                Map.of("filter.Stream", Map.of("Only", List.of("exceptionStream"))))));
        assertThat(any.modulate(on("s", "{}"))).isEqualTo(Result.CONTINUE);
        assertThat(any.modulate(on("exceptionStream", "text"))).isEqualTo(Result.CONTINUE);
        assertThat(any.modulate(on("s", "text"))).isEqualTo(Result.DROP);
        Modulator jsonOrError = mod("filter.Any", Map.of("AnyFilters", List.of("filter.JSON",
                Map.of("filter.RegExp", Map.of("Expression", "^ERROR")))));
        assertThat(jsonOrError.modulate(message("ERROR"))).isEqualTo(Result.CONTINUE);
        assertThat(jsonOrError.modulate(message("{}"))).isEqualTo(Result.CONTINUE);
        assertThat(jsonOrError.modulate(message("FAIL"))).isEqualTo(Result.DROP);
    }

    /** Gollum's TestFilterAnyAllNone. */
    @Test
    void gollumTest_onlyNoneDropsEverything() {
        assertThat(mod("filter.Any", Map.of("AnyFilters", List.of("filter.None"))).modulate(message(""))).isEqualTo(Result.DROP);
    }

    @Test
    void passesIfOneFilterPasses() {
        Modulator any = mod("filter.Any", Map.of("AnyFilters", List.of(
                Map.of("filter.RegExp", Map.of("FilterExpression", "^\\{")),
                Map.of("filter.Stream", Map.of("Only", List.of("exceptionStream"))))));
        assertThat(any.modulate(on("s", "{json}"))).isEqualTo(Result.CONTINUE);
        assertThat(any.modulate(on("exceptionStream", "text"))).isEqualTo(Result.CONTINUE);
        assertThat(any.modulate(on("s", "text"))).isEqualTo(Result.DROP);
        assertThat(mod("filter.Any", Map.of()).modulate(message("x"))).isEqualTo(Result.DROP);
    }
}
