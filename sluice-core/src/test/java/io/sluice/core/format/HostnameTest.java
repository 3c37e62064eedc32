package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.format;
import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.Hostname: Gollum's doc example and tests, then Sluice's own case. */
class HostnameTest {
    private static final String HOST = Hostname.hostName();

    /**
     * Gollum's doc: "inserts the hostname into an existing JSON payload" with Trim, Hostname and Envelope (the
     * host name goes in unquoted, as in Gollum).
     */
    @Test
    void gollumDocExample_hostIntoAJsonPayload() {
        Message m = message("{\"a\":1}");
        mod("format.Trim", Map.of("LeftSeparator", "{", "RightSeparator", "}")).modulate(m);
        mod("format.Hostname", Map.of("Separator", ",")).modulate(m);
        mod("format.Envelope", Map.of("Prefix", "{\"host\":", "Postfix", "}")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("{\"host\":" + HOST + ",\"a\":1}");
    }

    /** Gollum's TestFormatterHostname, ...Separator, ...NoSeparator and ...ApplyTo. */
    @Test
    void gollumTests_separatorsAndApplyTo() {
        assertThat(format("format.Hostname", Map.of(), "test")).isEqualTo(HOST + ":test");
        assertThat(format("format.Hostname", Map.of("Separator", "-"), "test")).isEqualTo(HOST + "-test");
        assertThat(format("format.Hostname", Map.of("Separator", ""), "test")).isEqualTo(HOST + "test");
        Message m = message("test");
        mod("format.Hostname", Map.of("ApplyTo", "foo", "Separator", "")).modulate(m);
        assertThat(m.metadata().getString("foo")).isEqualTo(HOST);
    }

    @Test
    void applyToPrefixesAFieldWithTheSeparator() {
        Message m = message("data");
        m.metadata().setString("f", "v");
        mod("format.Hostname", Map.of("ApplyTo", "f", "Separator", " ")).modulate(m);
        assertThat(m.metadata().getString("f")).isEqualTo(HOST + " v");
        assertThat(m.payloadString()).isEqualTo("data");
    }
}
