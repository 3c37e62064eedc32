package io.sluice.io.socket;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SyslogParserTest {
    private final Message m = new BatchPool(1).acquire().add();

    private boolean parse(SyslogParser.Rfc rfc, String line) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        return new SyslogParser(rfc).parse(b, 0, b.length, m);
    }

    @Test
    void rfc5424ExamplesFromTheRfc() {
        assertThat(parse(SyslogParser.Rfc.RFC5424, "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - "
                + "\uFEFF'su root' failed for lonvick on /dev/pts/8")).isTrue();
        assertThat(m.payloadString()).isEqualTo("'su root' failed for lonvick on /dev/pts/8");
        assertThat(m.metadata().getString("hostname")).isEqualTo("mymachine.example.com");
        assertThat(m.metadata().getString("app_name")).isEqualTo("su");
        assertThat(m.metadata().getString("proc_id")).isNull();
        assertThat(m.metadata().getString("msg_id")).isEqualTo("ID47");
        assertThat(m.metadata().getString("facility")).isEqualTo("4");
        assertThat(m.metadata().getString("severity")).isEqualTo("2");
        assertThat(m.timestamp()).isEqualTo(Instant.parse("2003-10-11T22:14:15.003Z").toEpochMilli() * 1_000_000L);

        m.metadata().clear();
        assertThat(parse(SyslogParser.Rfc.AUTO, "<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - "
                + "[exampleSDID@32473 iut=\"3\" eventSource=\"Appli\\]cation\"] %% It's time to make the do-nuts.")).isTrue();
        assertThat(m.payloadString()).isEqualTo("%% It's time to make the do-nuts.");
        assertThat(m.metadata().getString("structured_data")).isEqualTo("[exampleSDID@32473 iut=\"3\" eventSource=\"Appli\\]cation\"]");
        assertThat(m.metadata().getString("proc_id")).isEqualTo("8710");
        assertThat(m.metadata().getString("priority")).isEqualTo("165");
        assertThat(m.timestamp()).isEqualTo(Instant.parse("2003-08-24T12:14:15.000003Z").getEpochSecond() * 1_000_000_000L + 3_000);
    }

    @Test
    void rfc3164Examples() {
        assertThat(parse(SyslogParser.Rfc.RFC3164, "<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8")).isTrue();
        assertThat(m.payloadString()).isEqualTo("'su root' failed for lonvick on /dev/pts/8");
        assertThat(m.metadata().getString("hostname")).isEqualTo("mymachine");
        assertThat(m.metadata().getString("tag")).isEqualTo("su");
        assertThat(m.metadata().getString("timestamp")).isEqualTo("Oct 11 22:14:15");

        m.metadata().clear();
        assertThat(parse(SyslogParser.Rfc.AUTO, "<13>Feb  5 17:32:18 10.0.0.99 sshd[4242]: Accepted publickey for root")).isTrue();
        assertThat(m.metadata().getString("proc_id")).isEqualTo("4242");
        assertThat(m.metadata().getString("tag")).isEqualTo("sshd");
        assertThat(m.metadata().getString("severity")).isEqualTo("5");
        assertThat(m.payloadString()).isEqualTo("Accepted publickey for root");
    }

    @Test
    void linesThatDoNotParseAreKeptWholeAndFlagged() {
        assertThat(parse(SyslogParser.Rfc.AUTO, "no priority here")).isFalse();
        assertThat(m.payloadString()).isEqualTo("no priority here");
        assertThat(m.metadata().getString("syslog_error")).contains("PRI");

        m.metadata().clear();
        assertThat(parse(SyslogParser.Rfc.RFC5424, "<34>1 yesterday host app - - - msg")).isFalse();
        assertThat(m.payloadString()).isEqualTo("<34>1 yesterday host app - - - msg");
        assertThat(m.metadata().getString("syslog_error")).isNotNull();
    }
}
