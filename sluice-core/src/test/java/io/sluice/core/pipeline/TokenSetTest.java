package io.sluice.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TokenSetTest {
    @Test
    void indexOfIsThePositionInTheListAndMinusOneForAStranger() {
        TokenSet set = new TokenSet(List.of("alpha", "beta", "gamma", "beta"));
        assertThat(set.indexOf("alpha")).isEqualTo(0);
        assertThat(set.indexOf("gamma")).isEqualTo(2);
        assertThat(set.indexOf("beta")).isEqualTo(1); // listed twice: the first
        assertThat(set.indexOf("bet")).isEqualTo(-1);
        assertThat(set.indexOf("betaa")).isEqualTo(-1);
        assertThat(set.indexOf("")).isEqualTo(-1);
        assertThat(set.contains("gamma")).isTrue();
        assertThat(set.contains("delta")).isFalse();
    }

    @Test
    void anEmptySetMatchesNothing() {
        TokenSet none = new TokenSet(List.of());
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.indexOf("x")).isEqualTo(-1);
        assertThat(none.contains("x")).isFalse();
    }
}
