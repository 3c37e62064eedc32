package io.sluice.forward.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Streams;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TagRoutesTest {
    private static TagRoutes routes(boolean toConsumerStreams, String... patternThenStream) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < patternThenStream.length; i += 2) {
            m.put(patternThenStream[i], patternThenStream[i + 1]);
        }
        return new TagRoutes(m, toConsumerStreams);
    }

    @Test
    void fluentdPatternsFirstMatchWins() {
        TagRoutes r = routes(false, "app.*", "one", "app.**", "many", "{web,api}.access", "front", "db*.slow", "db",
                "**", "rest");
        assertThat(Streams.name(r.streamFor("app.x"))).isEqualTo("one");
        assertThat(Streams.name(r.streamFor("app"))).isEqualTo("many");
        assertThat(Streams.name(r.streamFor("app.x.y"))).isEqualTo("many");
        assertThat(Streams.name(r.streamFor("web.access"))).isEqualTo("front");
        assertThat(Streams.name(r.streamFor("api.access"))).isEqualTo("front");
        assertThat(Streams.name(r.streamFor("db1.slow"))).isEqualTo("db");
        assertThat(Streams.name(r.streamFor("apple"))).isEqualTo("rest");
    }

    @Test
    void unmatchedTagsAreTheirOwnStreamOrTheConsumers() {
        assertThat(Streams.name(routes(false, "a.*", "x").streamFor("b.c"))).isEqualTo("b.c");
        assertThat(routes(true, "a.*", "x").streamFor("b.c")).isEqualTo(Streams.WILDCARD);
        assertThat(Streams.name(routes(true, "a.*", "x").streamFor("a.c"))).isEqualTo("x");
    }

    @Test
    void regexCharactersInTagsAreLiteral() {
        TagRoutes r = routes(false, "a+b.(c)", "lit");
        assertThat(Streams.name(r.streamFor("a+b.(c)"))).isEqualTo("lit");
        assertThat(Streams.name(r.streamFor("aab.c"))).isEqualTo("aab.c");
        assertThat(TagRoutes.check("{a,b")).contains("unbalanced");
        assertThat(TagRoutes.check("")).isNotNull();
    }
}
