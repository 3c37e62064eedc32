package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.testing.Captured;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checks of one {@code Expect} item, on messages given directly (ConfigTestCommandTest runs pipelines). */
class TestExpectationTest {
    private static TestExpectation expect(String yaml) {
        return TestExpectation.parse(TestFileNode.of(ConfigLoader.readYaml(yaml, "t.yaml", Map.of()), "t.yaml"));
    }

    private static Captured message(String payload, Map<String, String> fields) {
        return new Captured(null, "s", 0, payload, fields, Map.of());
    }

    @Test
    void everyCheckHoldsOnMatchingMessages() {
        TestExpectation e =
                expect("{Producer: Out, Count: 2, Contains: 'ab', Matches: '^a.c$', Metadata: {h: w, x: ~}}");
        assertThat(e.check(List.of(message("abc", Map.of("h", "w")), message("abc", Map.of("h", "w"))))).isEmpty();
    }

    @Test
    void payloadsShowBothListsWhenTheyDiffer() {
        List<String> failures =
                expect("{Producer: Out, Payloads: [a, 'b\tc']}").check(List.of(message("a", Map.of())));
        assertThat(failures).containsExactly(
                "payloads differ\n  expected (2):\n    'a'\n    'b\\tc'\n  actual (1):\n    'a'");
    }

    @Test
    void eachBrokenCheckIsReportedWithTheActualValue() {
        TestExpectation e = expect("{Stream: s, Index: 1, Contains: zz, Matches: '^q', Metadata: {h: w, x: ~}}");
        List<String> failures = e.check(List.of(message("ok", Map.of()), message("abc", Map.of("x", "1"))));
        assertThat(failures).containsExactly(
                "message 1: payload does not contain 'zz'\n  actual:   'abc'",
                "message 1: payload does not match /^q/\n  actual:   'abc'",
                "message 1: metadata h differs\n  expected: 'w'\n  actual:   (no such field)",
                "message 1: metadata x should be absent\n  actual:   '1'");
        assertThat(e.check(List.of(message("ok", Map.of()))))
                .containsExactly("expected a message at Index 1, got 1 message");
    }

    @Test
    void withoutCountSomethingMustArrive() {
        assertThat(expect("{Producer: Out}").check(List.of())).containsExactly("expected messages, got none");
        assertThat(expect("{Producer: Out, Equals: x}").check(List.of()))
                .containsExactly("expected messages, got none");
        assertThat(expect("{Producer: Out, Count: 0}").check(List.of())).isEmpty();
    }

    @Test
    void contradictionsAndBadValuesAreErrors() {
        assertThatThrownBy(() -> expect("{Producer: Out, Absent: true, Count: 1}"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("it takes no other check");
        assertThatThrownBy(() -> expect("{Producer: Out, Stream: s}")).hasMessageContaining("either Producer");
        assertThatThrownBy(() -> expect("{Producer: Out, Count: -1}"))
                .hasMessageContaining("Count: expected a whole number");
        assertThatThrownBy(() -> expect("{Producer: Out, Matches: '('}")).hasMessageContaining("not a regular expression");
        assertThatThrownBy(() -> expect("{Producer: Out, Equal: x}")).hasMessageContaining("did you mean 'Equals'");
    }
}
