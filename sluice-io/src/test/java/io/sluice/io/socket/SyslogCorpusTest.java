package io.sluice.io.socket;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.testing.HarnessPlugins.Collect;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Real-world syslog lines of both grammars through the real parser: alone (each grammar, and the per-line choice),
 * and through consumer.Syslogd on a TCP socket on 127.0.0.1. Each case pins the whole metadata a line yields.
 */
class SyslogCorpusTest {
    /** One line and what it must become; {@code fields} null: it does not parse. */
    private record Case(String line, String payload, Map<String, String> fields, String error) {
        static Case ok(String line, String payload, String... fields) {
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < fields.length; i += 2) {
                m.put(fields[i], fields[i + 1]);
            }
            return new Case(line, payload, m, null);
        }

        static Case bad(String line, String error) {
            return new Case(line, line, null, error);
        }
    }

    private static final String SD = "[exampleSDID@32473 iut=\"3\" eventSource=\"Application\" eventID=\"1011\"]";

    static final List<Case> RFC5424 = List.of(
            // RFC 5424 6.5, example 3: structured data, then a MSG starting with a BOM.
            Case.ok("<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 " + SD
                            + " \uFEFFAn application event log entry...", "An application event log entry...",
                    "version", "1", "timestamp", "2003-10-11T22:14:15.003Z", "hostname", "mymachine.example.com",
                    "app_name", "evntslog", "msg_id", "ID47", "structured_data", SD,
                    "priority", "165", "facility", "20", "severity", "5"),
            // Example 4: two SD-ELEMENTs and no MSG at all.
            Case.ok("<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 " + SD
                            + "[examplePriority@32473 class=\"high\"]", "",
                    "version", "1", "timestamp", "2003-10-11T22:14:15.003Z", "hostname", "mymachine.example.com",
                    "app_name", "evntslog", "msg_id", "ID47",
                    "structured_data", SD + "[examplePriority@32473 class=\"high\"]",
                    "priority", "165", "facility", "20", "severity", "5"),
            // rsyslog forwarding nginx: a PROCID, no MSGID, no structured data, a zone offset and microseconds.
            Case.ok("<30>1 2024-03-05T10:15:30.123456+01:00 web-01 nginx 1234 - - GET /index.html 200",
                    "GET /index.html 200", "version", "1", "timestamp", "2024-03-05T10:15:30.123456+01:00",
                    "hostname", "web-01", "app_name", "nginx", "proc_id", "1234",
                    "priority", "30", "facility", "3", "severity", "6"),
            // Every header field nil.
            Case.ok("<14>1 - - - - - - hello", "hello", "version", "1", "priority", "14", "facility", "1", "severity", "6"),
            // The lowest and the highest priority.
            Case.ok("<0>1 2024-01-01T00:00:00Z host app - - - emergency", "emergency", "version", "1",
                    "timestamp", "2024-01-01T00:00:00Z", "hostname", "host", "app_name", "app",
                    "priority", "0", "facility", "0", "severity", "0"),
            Case.ok("<191>1 2024-01-01T00:00:00Z host app - - - debug", "debug", "version", "1",
                    "timestamp", "2024-01-01T00:00:00Z", "hostname", "host", "app_name", "app",
                    "priority", "191", "facility", "23", "severity", "7"),
            // Escaped quote and bracket inside SD-PARAM values, and a BOM after structured data.
            Case.ok("<134>1 2024-05-01T12:00:00.000Z k8s-node-3 kubelet 987 - [meta sequenceId=\"42\"]"
                            + "[id@1 k=\"a\\\"b\" r=\"x\\]y\"] \uFEFFPod started", "Pod started", "version", "1",
                    "timestamp", "2024-05-01T12:00:00.000Z", "hostname", "k8s-node-3", "app_name", "kubelet",
                    "proc_id", "987", "structured_data", "[meta sequenceId=\"42\"][id@1 k=\"a\\\"b\" r=\"x\\]y\"]",
                    "priority", "134", "facility", "16", "severity", "6"),
            // Nil structured data and nothing after it.
            Case.ok("<34>1 2003-10-11T22:14:15.003Z host app - - -", "", "version", "1",
                    "timestamp", "2003-10-11T22:14:15.003Z", "hostname", "host", "app_name", "app",
                    "priority", "34", "facility", "4", "severity", "2"),
            Case.bad("<192>1 2024-01-01T00:00:00Z host app - - - priority out of range", "missing or bad <PRI>"),
            Case.bad("<34>1 2003-10-11T22:14:15.003Z host app - - [id k=\"v\" never closed", "header does not follow RFC 5424"),
            Case.bad("<34>1 2003-10-11 22:14:15 host app - - - not an RFC 3339 time", "header does not follow RFC 5424"));

    static final List<Case> RFC3164 = List.of(
            // RFC 3164 5.4, example 1.
            Case.ok("<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8",
                    "'su root' failed for lonvick on /dev/pts/8", "timestamp", "Oct 11 22:14:15",
                    "hostname", "mymachine", "tag", "su", "priority", "34", "facility", "4", "severity", "2"),
            // cron through rsyslog: a PID in the tag, colons in the MSG.
            Case.ok("<86>Nov 22 09:05:01 server1 CRON[2211]: pam_unix(cron:session): session opened for user root",
                    "pam_unix(cron:session): session opened for user root", "timestamp", "Nov 22 09:05:01",
                    "hostname", "server1", "proc_id", "2211", "tag", "CRON",
                    "priority", "86", "facility", "10", "severity", "6"),
            // sshd with an IP address as host and a space-padded day.
            Case.ok("<38>Feb  9 12:00:00 10.1.2.3 sshd[99]: Failed password for invalid user admin from 203.0.113.5",
                    "Failed password for invalid user admin from 203.0.113.5", "timestamp", "Feb  9 12:00:00",
                    "hostname", "10.1.2.3", "proc_id", "99", "tag", "sshd", "priority", "38", "facility", "4",
                    "severity", "6"),
            // An application writing to a local socket without timestamp or host.
            Case.ok("<13>myapp: hello world", "hello world", "tag", "myapp", "priority", "13", "facility", "1", "severity", "5"),
            // Cisco IOS: the mnemonic is no TAG (its % is not a tag character), so it stays in the MSG.
            Case.ok("<189>Jan  1 00:00:00 router1 %SYS-5-CONFIG_I: Configured from console by vty0",
                    "%SYS-5-CONFIG_I: Configured from console by vty0", "timestamp", "Jan  1 00:00:00",
                    "hostname", "router1", "priority", "189", "facility", "23", "severity", "5"),
            // A kernel line without a tag.
            Case.ok("<6>Dec 31 23:59:59 host kernel message without colon", "kernel message without colon",
                    "timestamp", "Dec 31 23:59:59", "hostname", "host", "priority", "6", "facility", "0", "severity", "6"),
            Case.ok("<0>just text", "just text", "priority", "0", "facility", "0", "severity", "0"),
            Case.bad("Oct 11 22:14:15 host app: no priority", "missing or bad <PRI>"),
            Case.bad("<1234>Oct 11 22:14:15 host x: four digits", "missing or bad <PRI>"),
            Case.bad("<>Oct 11 22:14:15 host x: empty", "missing or bad <PRI>"));

    private static Map<String, String> metadata(Message m) {
        Map<String, String> md = new LinkedHashMap<>();
        for (int k = 0; m.hasMetadata() && k < m.metadata().size(); k++) {
            md.put(m.metadata().key(k), m.metadata().value(k));
        }
        return md;
    }

    private static void check(Case c, String payload, Map<String, String> md, String as) {
        assertThat(payload).as("payload of %s (%s)", c.line, as).isEqualTo(c.payload);
        if (c.fields == null) {
            assertThat(md).as("metadata of %s (%s)", c.line, as).containsEntry("syslog_error", c.error);
        } else {
            assertThat(md).as("metadata of %s (%s)", c.line, as).containsExactlyInAnyOrderEntriesOf(c.fields);
        }
    }

    private static void parseAll(List<Case> corpus, SyslogParser.Rfc rfc) {
        SyslogParser parser = new SyslogParser(rfc);
        int bad = 0;
        for (Case c : corpus) {
            Message m = new BatchPool(1).acquire().add();
            byte[] b = c.line.getBytes(StandardCharsets.UTF_8);
            assertThat(parser.parse(b, 0, b.length, m)).as("parsed %s as %s", c.line, rfc).isEqualTo(c.fields != null);
            check(c, m.payloadString(), metadata(m), rfc.name());
            bad += c.fields == null ? 1 : 0;
        }
        assertThat(parser.errors()).isEqualTo(bad);
    }

    @Test
    void rfc5424CorpusParsesAsRfc5424AndAsTheAutomaticChoice() {
        parseAll(RFC5424, SyslogParser.Rfc.RFC5424);
        parseAll(RFC5424, SyslogParser.Rfc.AUTO);
    }

    @Test
    void rfc3164CorpusParsesAsRfc3164AndAsTheAutomaticChoice() {
        parseAll(RFC3164, SyslogParser.Rfc.RFC3164);
        parseAll(RFC3164, SyslogParser.Rfc.AUTO);
    }

    @Test
    void rfc5424TimestampsBecomeTheMessageTime() {
        Message m = new BatchPool(1).acquire().add();
        byte[] b = RFC5424.get(2).line.getBytes(StandardCharsets.UTF_8);
        assertThat(new SyslogParser(SyslogParser.Rfc.RFC5424).parse(b, 0, b.length, m)).isTrue();
        Instant t = Instant.parse("2024-03-05T09:15:30.123456Z");
        assertThat(m.timestamp()).isEqualTo(t.getEpochSecond() * 1_000_000_000L + t.getNano());
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void send(int port, byte[] data) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                OutputStream out = s.getOutputStream();
                out.write(data);
                out.flush();
                return;
            } catch (java.net.ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e; // the consumer binds on its own thread: retried until it listens
                }
                Thread.sleep(10); // polled until the deadline above
            }
        }
    }

    @Test
    void bothCorporaThroughSyslogdOnTcp() throws Exception {
        int octet = freePort();
        int lines = freePort();
        try (PipelineHarness p = PipelineHarness.builder().log(new MemoryLog()).yaml(
                "Octet:\n  Type: consumer.Syslogd\n  Address: tcp://127.0.0.1:" + octet + "\n  Format: RFC6587\n"
                        + "  SetMetadata: true\n  Streams: a\n"
                        + "Lines:\n  Type: consumer.Syslogd\n  Address: tcp://127.0.0.1:" + lines + "\n  Format: RFC3164\n"
                        + "  SetMetadata: true\n  Streams: b\n"
                        + "A:\n  Type: test.Collect\n  Streams: a\n"
                        + "B:\n  Type: test.Collect\n  Streams: b\n").start()) {
            StringBuilder framed = new StringBuilder();
            for (Case c : RFC5424) {
                framed.append(c.line.getBytes(StandardCharsets.UTF_8).length).append(' ').append(c.line);
            }
            send(octet, framed.toString().getBytes(StandardCharsets.UTF_8));
            StringBuilder text = new StringBuilder();
            for (Case c : RFC3164) {
                text.append(c.line).append('\n');
            }
            send(lines, text.toString().getBytes(StandardCharsets.UTF_8));
            p.await("both corpora", () -> p.collect("A").size() == RFC5424.size() && p.collect("B").size() == RFC3164.size());
            for (int i = 0; i < RFC5424.size(); i++) {
                check(RFC5424.get(i), p.payloads("A").get(i), p.captured("A").get(i).fields(), "Syslogd RFC6587");
            }
            for (int i = 0; i < RFC3164.size(); i++) {
                check(RFC3164.get(i), p.payloads("B").get(i), p.captured("B").get(i).fields(), "Syslogd RFC3164");
            }
        }
    }
}
