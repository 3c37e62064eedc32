package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * consumer.Socket and consumer.Syslogd over TCP against many connections, at the launcher's heap: 2,000 idle
 * connections on each cost no thread each and leave the listeners serving; a line beyond the limit is counted.
 */
@Timeout(600)
class HostileSocketTest extends HostileTest {
    @Test
    void twoThousandIdleConnectionsPerListenerLeaveBothServing() throws Exception {
        int socketPort = E2e.freePort();
        int syslogPort = E2e.freePort();
        Path out = dir.resolve("out.ndjson");
        String config = "\"Lines\":\n    Type: \"consumer.Socket\"\n    Address: \"tcp://127.0.0.1:" + socketPort + "\"\n"
                + "    Streams: \"s\"\n"
                + "\"Syslog\":\n    Type: \"consumer.Syslogd\"\n    Address: \"tcp://127.0.0.1:" + syslogPort + "\"\n"
                + "    Format: \"RFC5424\"\n    Streams: \"s\"\n"
                + "\"Out\":\n    Type: \"producer.File\"\n    Streams: \"s\"\n    File: \"" + out + "\"\n";
        SluiceProcess p = startAsLaunched("socket-many", config, socketPort, syslogPort);
        long threadsBefore = p.threads();
        List<Socket> lines = idleConnections(socketPort, 2000, new byte[0]);
        List<Socket> syslog = idleConnections(syslogPort, 2000, new byte[0]);
        long added = p.threads() - threadsBefore;
        System.out.printf("socket-many: 4,000 idle connections added %d threads%n", added);
        assertThat(added).as("threads added by 4,000 connections").isLessThan(20);
        // Beyond MaxConnections (1,024) connections are closed and counted; the rest stay open, as syslog senders
        // keep theirs for days (IdleTimeoutMs is off by default), until the sender closes them.
        Await.until("connections beyond the limit refused", 60, () -> rejected(p, "Lines", "busy") >= 2000 - 1024
                && rejected(p, "Syslog", "busy") >= 2000 - 1024);
        assertThat(p.metric("sluice_connections", "Lines")).isEqualTo(1024);
        assertThat(p.metric("sluice_connections", "Syslog")).isEqualTo(1024);
        assertSurvived(p, "2,000 idle connections on each listener");
        for (Socket s : lines) {
            s.close();
        }
        for (Socket s : syslog) {
            s.close();
        }
        Await.until("the idle connections gone", 60, () -> p.metric("sluice_connections", "Lines") == 0
                && p.metric("sluice_connections", "Syslog") == 0);

        try (Socket s = new Socket("127.0.0.1", socketPort)) {
            OutputStream o = s.getOutputStream();
            o.write(("x".repeat(2 * 1024 * 1024) + "\nline-after-idle\n").getBytes(StandardCharsets.US_ASCII));
            o.flush();
            awaitLine(out, "line-after-idle", 60);
        }
        Await.until("the long line counted", 30, () -> rejected(p, "Lines", "too_large") >= 1);
        try (Socket s = new Socket("127.0.0.1", syslogPort)) {
            s.getOutputStream().write("<34>1 2026-12-01T10:00:00Z host app - - - syslog-after-idle\n".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            awaitLine(out, "syslog-after-idle", 60);
        }
        assertSurvived(p, "a 2 MiB line after the idle connections");
        assertThat(p.stop()).isZero();
    }
}
