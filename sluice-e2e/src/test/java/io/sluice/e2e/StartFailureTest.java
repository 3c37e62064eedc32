package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A port that cannot be bound or a path that cannot be written is reported at start, naming the address or the
 * path, with exit code 2, before anything is accepted: never a process that runs and says it is ready.
 */
@Timeout(120)
class StartFailureTest extends HostileTest {
    private static final String FILE_OUT = "\"Out\":\n    Type: \"producer.File\"\n    Streams: \"s\"\n    File: \"%s\"\n";

    private void assertRefusedAtStart(String name, String config, String mentions) throws Exception {
        SluiceProcess p = launch(name, config);
        int code = p.awaitExit(60);
        assertThat(code).as(name + " exit code; log: " + p.tail()).isEqualTo(2);
        assertThat(String.join("\n", p.lines())).contains("cannot start").contains(mentions);
    }

    @Test
    void everyListenerRefusesToStartOnAPortInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            Path out = dir.resolve("out.ndjson");
            assertRefusedAtStart("taken-hec", "\"In\":\n    Type: \"consumer.HEC\"\n    Address: \"" + address + "\"\n"
                    + "    Streams: \"s\"\n" + String.format(FILE_OUT, out), address);
            assertRefusedAtStart("taken-forward", "\"In\":\n    Type: \"consumer.Forward\"\n    Address: \"" + address + "\"\n"
                    + "    Streams: \"s\"\n" + String.format(FILE_OUT, out), address);
            assertRefusedAtStart("taken-socket", "\"In\":\n    Type: \"consumer.Socket\"\n    Address: \"tcp://" + address + "\"\n"
                    + "    Streams: \"s\"\n" + String.format(FILE_OUT, out), address);
            assertRefusedAtStart("taken-syslog", "\"In\":\n    Type: \"consumer.Syslogd\"\n    Address: \"tcp://" + address + "\"\n"
                    + "    Streams: \"s\"\n" + String.format(FILE_OUT, out), address);
            // producer.File opened its file at start (that is how it checks it can write); nothing was written to it.
            assertThat(lines(out)).as("nothing was accepted").isEmpty();
        }
    }

    @Test
    void anUnwritableOutputPathRefusesToStart() throws Exception {
        Path notADir = Files.writeString(dir.resolve("plain-file"), "x");
        Path out = notADir.resolve("logs.ndjson");
        int port = E2e.freePort();
        assertRefusedAtStart("unwritable", "\"In\":\n    Type: \"consumer.HEC\"\n    Address: \"127.0.0.1:" + port + "\"\n"
                + "    Streams: \"s\"\n" + String.format(FILE_OUT, out), notADir.toString());
        assertThat(SluiceProcess.accepts(port)).as("the HEC port never listened").isFalse();
    }
}
