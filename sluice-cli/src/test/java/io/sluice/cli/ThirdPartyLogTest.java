package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.pipeline.Log;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MarkerFactory;

class ThirdPartyLogTest {
    @Test
    void librariesLoggingThroughSlf4jWriteIntoSluicesLog() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ThirdPartyLog.routeTo(new Log(new PrintStream(bytes, true, StandardCharsets.UTF_8), Log.INFO));
        Logger lib = LoggerFactory.getLogger("org.example.kafka.NetworkClient");
        assertThat(lib).isInstanceOf(ThirdPartyLog.class);
        lib.warn("broker {} unreachable", "127.0.0.1:9092");
        lib.error("failed", new IllegalStateException("boom"));
        lib.info("chatty {}", 1);
        lib.debug("chattier");
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("WARN  NetworkClient: broker 127.0.0.1:9092 unreachable")
                .contains("ERROR NetworkClient: failed: java.lang.IllegalStateException: boom")
                .doesNotContain("chatty");
        ThirdPartyLog.routeTo(new Log(new PrintStream(bytes, true, StandardCharsets.UTF_8), Log.DEBUG));
        lib.info("chatty {}", 2);
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("NetworkClient: chatty 2").doesNotContain("chattier");
    }

    @Test
    void markersAreIgnoredAndATrailingThrowableIsTheCause() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ThirdPartyLog.routeTo(new Log(new PrintStream(bytes, true, StandardCharsets.UTF_8), Log.DEBUG));
        Logger lib = LoggerFactory.getLogger("org.example.Lib");
        lib.warn(MarkerFactory.getMarker("m"), "{} of {}", 1, 2, new IllegalStateException("boom"));
        lib.error("{} left", 3, new IllegalArgumentException("bad"));
        lib.trace("never {}", 4);
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("Lib: 1 of 2: java.lang.IllegalStateException: boom")
                .contains("Lib: 3 left: java.lang.IllegalArgumentException: bad").doesNotContain("never");
    }
}
