package io.sluice.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A listener open to the network without authentication is warned about once at start; loopback or auth is not. */
class ExposureTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final Log log = new Log(new PrintStream(out, true, StandardCharsets.UTF_8), Log.INFO);

    @Test
    void everyInterfaceWithoutAToken() {
        assertThat(Exposure.warnIfOpen(log, "In", new InetSocketAddress("0.0.0.0", 8088), false, "Tokens")).isTrue();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("WARN").contains("In: accepts unauthenticated")
                .contains("0.0.0.0").contains("set Tokens");
    }

    @Test
    void loopbackOrAuthenticatedSaysNothing() {
        assertThat(Exposure.warnIfOpen(log, "In", new InetSocketAddress("127.0.0.1", 8088), false, "Tokens")).isFalse();
        assertThat(Exposure.warnIfOpen(log, "In", new InetSocketAddress("::1", 8088), false, "Tokens")).isFalse();
        assertThat(Exposure.warnIfOpen(log, "In", new InetSocketAddress("0.0.0.0", 8088), true, "Tokens")).isFalse();
        assertThat(Exposure.warnIfOpen(log, "In", null, false, "Tokens")).isFalse();
        assertThat(out.size()).isZero();
    }
}
