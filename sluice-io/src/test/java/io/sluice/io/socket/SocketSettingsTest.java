package io.sluice.io.socket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The settings of consumer.Socket, consumer.Syslogd and producer.Socket as users write them: every address spelling
 * listens where it says (on real sockets), and choices, durations and sizes are checked where they are declared.
 */
class SocketSettingsTest {
    private static PluginConfig config(String type, String extra) {
        return new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of()).loadString(
                "In:\n  Type: " + type + "\n  Streams: s\n" + extra + "Out:\n  Type: producer.Null\n  Streams: s\n",
                "t.yaml").get(0);
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Sends a line to {@code host:port} once the consumer listens (it binds on its own thread): polled until a deadline. */
    private static void send(String host, int port, String line) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (Socket s = new Socket(InetAddress.getByName(host), port)) {
                OutputStream out = s.getOutputStream();
                out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                return;
            } catch (java.net.ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(10);
            }
        }
    }

    private static void receives(String address, String host, int port) throws Exception {
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog())
                .yaml("In:\n  Type: consumer.Socket\n  Address: \"" + address + "\"\n"
                + "  Streams: s\nOut:\n  Type: test.Collect\n  Streams: s\n").start()) {
            send(host, port, "to " + address);
            p.await("a line on " + address, () -> p.collect("Out").size() == 1);
            assertThat(p.payloads("Out")).containsExactly("to " + address);
        }
    }

    @Test
    void everyAddressSpellingListensWhereItSays() throws Exception {
        int port = freePort();
        receives("127.0.0.1:" + port, "127.0.0.1", port);
        port = freePort();
        receives("tcp://127.0.0.1:" + port, "127.0.0.1", port);
        port = freePort();
        receives("tcp4://localhost:" + port, "127.0.0.1", port);
        port = freePort();
        receives(":" + port, "127.0.0.1", port); // every interface
        boolean v6;
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("::1", 0));
            v6 = true;
        } catch (java.io.IOException e) {
            v6 = false;
        }
        Assumptions.assumeTrue(v6, "no IPv6 loopback here");
        port = freePort();
        receives("[::1]:" + port, "::1", port);
    }

    @Test
    void addressesAreParsedAsConfiguredAndBadOnesNamed() {
        assertThat(new SyslogdConsumer(config("consumer.Syslogd", "  Address: \"[::1]:6514\"\n")).server().s.address)
                .hasToString("tcp://[::1]:6514");
        assertThat(new SyslogdConsumer(config("consumer.Syslogd", "  Address: unix:///run/sluice.sock\n"))
                .server().s.address).hasToString("unix:///run/sluice.sock");
        assertThat(new SyslogdConsumer(config("consumer.Syslogd", "  Address: udp://:514\n")).server().s.address)
                .hasToString("udp://0.0.0.0:514");
        assertThatThrownBy(() -> new SocketConsumer(config("consumer.Socket", "  Address: localhost\n")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("Address").hasMessageContaining("expected host:port");
        assertThatThrownBy(() -> new SocketProducer(config("producer.Socket", "  Address: sctp://h:1\n")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("unknown protocol 'sctp'");
        assertThatThrownBy(() -> new SocketConsumer(config("consumer.Socket", "  Address: unix://\n")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("needs a path");
    }

    @Test
    void choicesAreMatchedWithoutCaseAndATypoGetsASuggestion() {
        // Gollum's spellings, in any case, still select what they did.
        assertThat(new SocketConsumer(config("consumer.Socket", "  Partitioner: RFC6587\n  Format: NDJSON\n")).server().s.mode)
                .isEqualTo(Framer.Mode.OCTET);
        assertThat(new SocketConsumer(config("consumer.Socket", "  Partitioner: Binary\n")).server().s.size).isEqualTo(4);
        SocketServer.Settings syslog = new SyslogdConsumer(config("consumer.Syslogd", "  Format: rfc3164\n")).server().s;
        assertThat(syslog.syslog).isEqualTo(SyslogParser.Rfc.RFC3164);
        assertThat(syslog.mode).isEqualTo(Framer.Mode.DELIMITER);

        assertThatThrownBy(() -> config("consumer.Socket", "  Partitioner: delimeter\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("Partitioner").hasMessageContaining("delimiter");
        assertThatThrownBy(() -> config("consumer.Socket", "  Format: ndjsn\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("did you mean").hasMessageContaining("ndjson");
        assertThatThrownBy(() -> config("consumer.Syslogd", "  Format: RFC5242\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("RFC3164, RFC5424, RFC6587, RFC5425");
        assertThatThrownBy(() -> config("producer.Socket", "  Framing: octets\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("octet");
        assertThatThrownBy(() -> new SyslogdConsumer(config("consumer.Syslogd", "  Format: RFC5425\n")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("RFC5425 is syslog over TLS");
    }

    @Test
    void durationsAndSizesTakeUnitsAndBareNumbersKeepTheKeysUnit() {
        SocketServer.Settings s = new SocketConsumer(config("consumer.Socket",
                "  IdleTimeoutMs: 2s\n  MaxLineSize: 64KiB\n")).server().s;
        assertThat(s.idleTimeoutMs).isEqualTo(2000);
        assertThat(s.maxLineSize).isEqualTo(65536);
        s = new SocketConsumer(config("consumer.Socket", "  IdleTimeoutMs: 1500\n  MaxLineSize: 100\n")).server().s;
        assertThat(s.idleTimeoutMs).isEqualTo(1500);
        assertThat(s.maxLineSize).isEqualTo(100);
        assertThatThrownBy(() -> config("consumer.Socket", "  MaxLineSize: 0\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("MaxLineSize");
        assertThatThrownBy(() -> config("consumer.Socket", "  IdleTimeoutMs: -1\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("IdleTimeoutMs");
        assertThatThrownBy(() -> config("consumer.Socket", "  MaxConnections: 0\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("MaxConnections");
    }
}
