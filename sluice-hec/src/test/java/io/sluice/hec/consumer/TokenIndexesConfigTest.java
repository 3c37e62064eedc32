package io.sluice.hec.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.PluginConfig;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** consumer.HEC refuses per-token index settings that cannot mean what they say; it names tokens by place only. */
class TokenIndexesConfigTest {
    private static HecConsumer hec(Map<String, Object> settings) {
        Map<String, Object> s = new HashMap<>(settings);
        s.put("Streams", "hec");
        return new HecConsumer(PluginConfig.of("in", "consumer.HEC", s));
    }

    private static void refused(Map<String, Object> settings, String key, String what) {
        assertThatThrownBy(() -> hec(settings)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("key '" + key + "'").hasMessageContaining(what)
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void aTokenNotInTokensIsAnError() {
        refused(Map.of("Tokens", List.of("s3cret-a"), "TokenIndexes", Map.of("s3cret-typo", List.of("main"))),
                "TokenIndexes", "entry 0 names a token that is not in Tokens");
        Map<String, String> inOrder = new LinkedHashMap<>(); // as YAML keeps it, so that "entry 1" is the second
        inOrder.put("s3cret-a", "main");
        inOrder.put("s3cret-b", "web");
        refused(Map.of("Tokens", List.of("s3cret-a"), "TokenDefaultIndex", inOrder),
                "TokenDefaultIndex", "entry 1 names a token that is not in Tokens");
        // Without Tokens nothing is checked, so there is no token to attach settings to.
        refused(Map.of("TokenDefaultIndex", Map.of("s3cret-a", "main")), "TokenDefaultIndex",
                "entry 0 names a token that is not in Tokens");
    }

    @Test
    void anEmptyListOrIndexNameIsAnError() {
        refused(Map.of("Tokens", List.of("x", "s3cret"), "TokenIndexes", Map.of("s3cret", List.of())),
                "TokenIndexes", "the token Tokens[1] has no index");
        refused(Map.of("Tokens", List.of("s3cret"), "TokenIndexes", Map.of("s3cret", List.of("main", " "))),
                "TokenIndexes", "the token Tokens[0] has an empty index name");
        refused(Map.of("Tokens", List.of("s3cret"), "TokenDefaultIndex", Map.of("s3cret", "")),
                "TokenDefaultIndex", "the token Tokens[0] has an empty index name");
    }

    @Test
    void aDefaultTheTokenMayNotWriteIsAnError() {
        refused(Map.of("Tokens", List.of("s3cret"), "TokenIndexes", Map.of("s3cret", List.of("main", "web")),
                "TokenDefaultIndex", Map.of("s3cret", "ops")), "TokenDefaultIndex",
                "defaults to index 'ops', which is not among its TokenIndexes [main, web]");
    }

    @Test
    void anIndexOutsideIndexesIsAnError() {
        refused(Map.of("Tokens", List.of("s3cret"), "Indexes", List.of("main"),
                "TokenIndexes", Map.of("s3cret", List.of("main", "web"))), "TokenIndexes",
                "index 'web' is not in Indexes [main]");
        refused(Map.of("Tokens", List.of("s3cret"), "Indexes", List.of("main"),
                "TokenDefaultIndex", Map.of("s3cret", "web")), "TokenDefaultIndex", "index 'web' is not in Indexes [main]");
    }

    @Test
    void consistentSettingsAreTakenAndCompiledPerToken() {
        hec(Map.of("Tokens", List.of("a", "b", "c"), "Indexes", List.of("main", "web", "ops"),
                "TokenIndexes", Map.of("a", List.of("web", "main")), "TokenDefaultIndex", Map.of("a", "main", "b", "ops")));
        byte[][] global = {"main".getBytes(), "web".getBytes(), "ops".getBytes()};
        TokenIndexes[] rules = TokenIndexes.of(List.of("a", "b", "c"), Map.of("a", "main", "b", "ops"),
                Map.of("a", List.of("web", "main")), global);
        assertThat(new String(rules[0].defaults.index)).isEqualTo("main");
        assertThat(rules[0].allowed).isDeepEqualTo(new byte[][] {"web".getBytes(), "main".getBytes()});
        assertThat(new String(rules[1].defaults.index)).isEqualTo("ops");
        assertThat(rules[1].allowed).isSameAs(global);
        assertThat(rules[2]).isNull();
        assertThat(TokenIndexes.of(List.of("a"), Map.of(), Map.of(), global)).isNull();
        assertThat(new String(TokenIndexes.of(List.of("a"), Map.of(), Map.of("a", List.of("web")), null)[0]
                .defaults.index)).isEqualTo("web");
    }
}
