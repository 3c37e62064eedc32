package io.sluice.bench.io;

import io.sluice.bench.BenchDefaults;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.io.socket.Framer;
import io.sluice.io.socket.SyslogParser;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-line work of consumer.Socket and consumer.File without I/O: cutting 250-byte NDJSON lines out of a
 * 1 MB buffer and copying each into a pooled message (the bar's shape), and parsing an RFC 5424 line into
 * metadata. Run with {@code -prof gc}: both should allocate nothing per line.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
public class LineFramingBenchmark extends BenchDefaults {
    static final int LINES = 4096;
    private byte[] input;
    private Framer framer;
    private Batch batch;
    private Framer.Sink sink;
    private SyslogParser parser;
    private Message message;
    private byte[] syslogLine;

    @Setup
    public void setUp() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < LINES; i++) {
            String s = "{\"n\":" + i + ",\"level\":\"info\",\"msg\":\"" + "x".repeat(250);
            b.append(s, 0, 247).append("\"}\n");
        }
        input = b.toString().getBytes(StandardCharsets.UTF_8);
        framer = new Framer(Framer.Mode.DELIMITER, new byte[] {'\n'}, 0, 1, 1 << 20, 1 << 20);
        BatchPool pool = new BatchPool(512);
        batch = pool.acquire();
        sink = (buf, off, len, cut) -> {
            if (batch.isFull()) {
                batch.clear();
            }
            batch.add().setPayload(buf, off, len);
        };
        parser = new SyslogParser(SyslogParser.Rfc.AUTO);
        message = pool.acquire().add();
        syslogLine = ("<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - "
                + "[exampleSDID@32473 iut=\"3\" eventSource=\"Application\"] An application event log entry")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    @OperationsPerInvocation(LINES)
    public int frameNdjson() throws InterruptedException {
        framer.feed(input, 0, input.length, sink);
        return batch.size();
    }

    @Benchmark
    public Metadata parseRfc5424() {
        message.metadata().clear();
        parser.parse(syslogLine, 0, syslogLine.length, message);
        return message.metadata();
    }
}
