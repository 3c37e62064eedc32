package io.sluice.io.socket;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;

/**
 * Fuzz targets for consumer.Syslogd and consumer.Socket's syslog formats: one line through {@link SyslogParser}
 * in each grammar (RFC 3164, RFC 5424, and the automatic choice), and a TCP stream as Syslogd's default
 * RFC6587 format takes it (octet-counted frames, or newline-ended ones, at its 64 KiB MaxLineSize) into the
 * RFC 5424 parser. The contract: a line parses or is kept whole and flagged ({@code syslog_error}), never an
 * exception; the payload is a part of the line.
 */
class SyslogParserFuzzTest {
    /** consumer.Syslogd's MaxLineSize default. */
    private static final int MAX_LINE_SIZE = 64 * 1024;

    private final BatchPool pool = new BatchPool(1);
    private final SyslogParser rfc3164 = new SyslogParser(SyslogParser.Rfc.RFC3164);
    private final SyslogParser rfc5424 = new SyslogParser(SyslogParser.Rfc.RFC5424);
    private final SyslogParser auto = new SyslogParser(SyslogParser.Rfc.AUTO);

    @FuzzTest(maxDuration = "5m")
    void line(byte[] line) {
        parse(rfc3164, line, 0, line.length);
        parse(rfc5424, line, 0, line.length);
        parse(auto, line, 0, line.length);
    }

    @FuzzTest(maxDuration = "5m")
    void octetCounted(byte[] stream) throws InterruptedException {
        Framer framer = new Framer(Framer.Mode.OCTET, new byte[] {'\n'}, 0, 1, MAX_LINE_SIZE, 4096);
        Framer.Sink sink = (buf, off, len, truncated) -> parse(rfc5424, buf, off, len);
        framer.feed(stream, 0, stream.length, sink);
        framer.finish(sink);
    }

    private void parse(SyslogParser parser, byte[] buf, int off, int len) {
        Batch batch = pool.acquire();
        Message m = batch.add();
        boolean ok = parser.parse(buf, off, len, m);
        assertThat(m.length()).isBetween(0, len);
        if (!ok) {
            assertThat(m.metadata().indexOf("syslog_error")).isGreaterThanOrEqualTo(0);
        }
        batch.release();
    }
}
