package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.format;
import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.message.Message;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.RegExp (the formatter; filter.RegExp has its own test): Gollum's doc example and tests, then Sluice's. */
class RegExpTest {
    /** Gollum's doc: "extracts time and host from an imaginary log message format". */
    @Test
    void gollumDocExample_timeAndHost() {
        assertThat(format("format.RegExp", Map.of("Expression", "^(\\d+) (\\w+): ", "Template", "time: ${1}, host: ${2}"),
                "1234 myhost: rest of line")).isEqualTo("time: 1234, host: myhost");
    }

    /** Gollum's TestFormatterRegExp and TestFormatterRegExpApplyTo. */
    @Test
    void gollumTests_firstGroupOfPayloadOrField() {
        assertThat(format("format.RegExp", Map.of("Expression", "([a-z]*)", "Template", "${1}"), "test 123"))
                .isEqualTo("test");
        Message m = message("PAYLOAD");
        m.metadata().setString("foo", "test 123");
        mod("format.RegExp", Map.of("Expression", "([a-z]*)", "Template", "${1}", "ApplyTo", "foo")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("PAYLOAD");
        assertThat(m.metadata().getString("foo")).isEqualTo("test");
    }

    @Test
    void namedGroupsMissesDefaultsAndBadExpressions() {
        assertThat(format("format.RegExp", Map.of("Expression", "(?P<k>\\w)=(?P<v>\\w)", "Template", "$v$$${k}"), "k=v"))
                .isEqualTo("v$k");
        assertThat(format("format.RegExp", Map.of("Expression", "(\\d+)", "Template", "[${1}]"), "zzz")).isEqualTo("[]");
        assertThat(format("format.RegExp", Map.of(), "all of it")).isEqualTo("all of it");
        assertThatThrownBy(() -> mod("format.RegExp", Map.of("Expression", "("))).isInstanceOf(ConfigException.class);
    }
}
