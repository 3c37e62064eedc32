package io.sluice.io.socket;

import static io.sluice.core.testing.PipelineHarness.freePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.pipeline.StartException;
import io.sluice.core.testing.DirectContext;
import io.sluice.core.testing.PipelineHarness;
import io.sluice.core.testing.PipelineHarness.MemoryLog;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** consumer.Socket and consumer.Syslogd on one thread with a selector: connection limits, timeouts, memory, errors. */
class SocketLimitsTest {
    /**
     * Keeps what it delivers and checks each sender's lines ("sender:seq:...") arrive in order; can be held closed.
     * Socket's own: core's test.Collect keeps payloads but knows nothing of senders and sequence numbers.
     */
    public static final class Tally extends Producer {
        static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "test.Tally",
                "Test producer counting lines per sender.").factory(Tally::new);
        private final List<String> payloads = new ArrayList<>();
        private final List<Map<String, String>> metadata = new ArrayList<>();
        /** Sender name to the next sequence number expected from it. */
        private final Map<String, Integer> next = new HashMap<>();
        private long outOfOrder;
        private long total;
        private volatile boolean keepPayloads = true;
        private volatile CountDownLatch gate;

        Tally(PluginConfig config) {
            super(config);
        }

        @Override
        public void deliver(Batch batch) throws InterruptedException {
            CountDownLatch g = gate;
            if (g != null) {
                g.await();
            }
            synchronized (this) {
                for (int i = 0; i < batch.size(); i++) {
                    Message m = batch.get(i);
                    String p = m.payloadString();
                    total++;
                    int colon = p.indexOf(':');
                    int colon2 = colon < 0 ? -1 : p.indexOf(':', colon + 1);
                    if (colon2 > 0) {
                        String sender = p.substring(0, colon);
                        int seq = Integer.parseInt(p.substring(colon + 1, colon2));
                        int expected = next.getOrDefault(sender, 0);
                        if (seq != expected) {
                            outOfOrder++;
                        }
                        next.put(sender, seq + 1);
                    }
                    if (keepPayloads) {
                        payloads.add(p);
                        Map<String, String> md = new HashMap<>();
                        if (m.hasMetadata()) {
                            for (int k = 0; k < m.metadata().size(); k++) {
                                md.put(m.metadata().key(k), m.metadata().value(k));
                            }
                        }
                        metadata.add(md);
                    }
                }
            }
        }

        synchronized List<String> payloads() {
            return new ArrayList<>(payloads);
        }

        synchronized List<Map<String, String>> metadata() {
            return new ArrayList<>(metadata);
        }

        synchronized long total() {
            return total;
        }

        synchronized int next(String sender) {
            return next.getOrDefault(sender, 0);
        }

        synchronized long outOfOrder() {
            return outOfOrder;
        }
    }

    /** A started pipeline from YAML with test.Tally, a log kept in memory and its own memory budget. */
    private static PipelineHarness run(String yaml, MemoryBudget budget) throws Exception {
        return PipelineHarness.builder().plugins(Tally.SPEC).log(new MemoryLog()).memory(budget).awaitMillis(30_000)
                .yaml(yaml).start();
    }

    private static SocketChannel connect(int port) throws IOException {
        return SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
    }

    private static void write(SocketChannel ch, String text) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /** Whether the server closed {@code ch}: a read sees the end of the stream or a reset. */
    private static boolean closedByServer(SocketChannel ch) {
        try {
            ch.socket().setSoTimeout(50);
            return ch.socket().getInputStream().read() < 0;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private static String yaml(String type, int port, String extra) {
        return "In:\n  Type: " + type + "\n  Address: tcp://127.0.0.1:" + port + "\n  Streams: s\n" + extra
                + "Out:\n  Type: test.Tally\n  Streams: s\n";
    }

    @ParameterizedTest
    @ValueSource(strings = {"consumer.Socket", "consumer.Syslogd"})
    void twoThousandIdleConnectionsTakeNoThreadsAndTheNextLineArrives(String type) throws Exception {
        int port = freePort();
        int before = ManagementFactory.getThreadMXBean().getThreadCount();
        String extra = "  MaxConnections: 2100\n" + (type.equals("consumer.Syslogd") ? "  Format: RFC6587\n" : "");
        List<SocketChannel> idle = new ArrayList<>();
        try (PipelineHarness r = run(yaml(type, port, extra), MemoryBudget.unlimited())) {
            for (int i = 0; i < 2000; i++) {
                idle.add(connect(port));
            }
            r.await("2000 connections", () -> r.stats("In").connections() == 2000);
            int threads = ManagementFactory.getThreadMXBean().getThreadCount();
            assertThat(threads - before).as("threads added for 2000 connections").isLessThan(50);
            try (SocketChannel ch = connect(port)) {
                String msg = "<13>1 2024-01-01T00:00:00Z host app - - - after the crowd";
                write(ch, type.equals("consumer.Syslogd") ? msg.length() + " " + msg : "after the crowd\n");
            }
            r.await("the line after 2000 idle connections", () -> r.<Tally>producer("Out").payloads().contains("after the crowd"));
            assertThat(r.stats("In").rejected(Rejection.BUSY)).isZero();
        } finally {
            for (SocketChannel ch : idle) {
                ch.close();
            }
        }
    }

    @Test
    void connectionsBeyondMaxConnectionsAreClosedAndCountedBusy() throws Exception {
        int port = freePort();
        try (PipelineHarness r = run(yaml("consumer.Socket", port, "  MaxConnections: 3\n"), MemoryBudget.unlimited())) {
            List<SocketChannel> admitted = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                admitted.add(connect(port));
            }
            r.await("3 connections", () -> r.stats("In").connections() == 3);
            try (SocketChannel extra1 = connect(port); SocketChannel extra2 = connect(port)) {
                r.await("the 2 extra connections closed", () -> closedByServer(extra1) && closedByServer(extra2));
            }
            assertThat(r.stats("In").rejected(Rejection.BUSY)).isEqualTo(2);
            assertThat(r.stats("In").connections()).isEqualTo(3);
            write(admitted.get(0), "from an admitted one\n");
            r.await("the admitted connection's line", () -> r.<Tally>producer("Out").payloads().contains("from an admitted one"));
            // A place freed is taken by the next one.
            admitted.remove(2).close();
            r.await("2 connections", () -> r.stats("In").connections() == 2);
            try (SocketChannel late = connect(port)) {
                write(late, "from a later one\n");
                r.await("the later connection's line", () -> r.<Tally>producer("Out").payloads().contains("from a later one"));
            }
            assertThat(r.stats("In").rejected(Rejection.BUSY)).isEqualTo(2);
            for (SocketChannel ch : admitted) {
                ch.close();
            }
        }
    }

    @Test
    void aSlowlorisIsClosedAfterTheIdleTimeoutAndCountedWhileASteadySenderStays() throws Exception {
        int port = freePort();
        try (PipelineHarness r = run(yaml("consumer.Socket", port, "  IdleTimeoutMs: 600\n"), MemoryBudget.unlimited());
                SocketChannel slow = connect(port);
                SocketChannel steady = connect(port)) {
            long connected = System.nanoTime();
            int sent = 0;
            // The slowloris sends a byte every 50 ms and never ends its line; the steady sender ends one each time.
            while (r.stats("In").rejected(Rejection.TIMEOUT) == 0) {
                assertThat(System.nanoTime() - connected).as("closed within 10 s").isLessThan(TimeUnit.SECONDS.toNanos(10));
                try {
                    write(slow, "x");
                } catch (IOException closedMeanwhile) {
                    // The server may close it between the check and the write.
                }
                write(steady, "steady " + sent++ + "\n");
                Thread.sleep(50); // pacing the senders, not waiting for a result
            }
            long elapsed = System.nanoTime() - connected;
            assertThat(elapsed).as("not closed before the timeout").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(600));
            r.await("the slowloris closed", () -> closedByServer(slow));
            write(steady, "steady last\n");
            r.await("the steady sender's last line", () -> r.<Tally>producer("Out").payloads().contains("steady last"));
            assertThat(closedByServer(steady)).isFalse();
            assertThat(r.stats("In").rejected(Rejection.TIMEOUT)).isEqualTo(1);
            assertThat(r.stats("In").connections()).isEqualTo(1);
            // What the slowloris did send is kept, as a line that ended with the connection.
            assertThat(r.<Tally>producer("Out").payloads()).anyMatch(p -> p.matches("x{5,}"));
        }
    }

    @Test
    void aSmallBudgetHoldsFastSendersBackAndEveryLineArrivesOnceInOrder() throws Exception {
        int port = freePort();
        long limit = 256 * 1024;
        MemoryBudget budget = new MemoryBudget(limit);
        int senders = 3;
        int linesEach = 40_000;
        String pad = "p".repeat(80);
        AtomicLong maxUsed = new AtomicLong();
        AtomicReference<Throwable> senderFailure = new AtomicReference<>();
        try (PipelineHarness r = run(yaml("consumer.Socket", port, ""), budget)) {
            Tally out = r.<Tally>producer("Out");
            out.keepPayloads = false;
            CountDownLatch gate = new CountDownLatch(1);
            out.gate = gate;
            Thread sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    maxUsed.accumulateAndGet(budget.used(), Math::max);
                    try {
                        Thread.sleep(0, 200_000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            sampler.setDaemon(true);
            sampler.start();
            List<Thread> threads = new ArrayList<>();
            for (int s = 0; s < senders; s++) {
                String name = "s" + s;
                Thread t = new Thread(() -> {
                    try (SocketChannel ch = connect(port)) {
                        ch.setOption(StandardSocketOptions.SO_SNDBUF, 32 * 1024);
                        StringBuilder b = new StringBuilder();
                        for (int i = 0; i < linesEach; i++) {
                            b.append(name).append(':').append(i).append(':').append(pad).append('\n');
                            if (b.length() > 60_000 || i == linesEach - 1) {
                                write(ch, b.toString());
                                b.setLength(0);
                            }
                        }
                    } catch (Throwable e) {
                        senderFailure.set(e);
                    }
                });
                t.start();
                threads.add(t);
            }
            r.await("the budget to refuse the readers", () -> budget.refused() > 0 && budget.used() > limit / 2);
            // Held back: what was published while delivery is held fits the budget; the rest waits in the senders.
            long perLine = MemoryBudget.MESSAGE_OVERHEAD + pad.length() + 5; // the shortest line's cost
            assertThat(r.stats("In").in() * perLine).isLessThanOrEqualTo(limit);
            assertThat(out.total()).isZero();
            gate.countDown();
            for (Thread t : threads) {
                t.join(60_000);
                assertThat(t.isAlive()).isFalse();
            }
            assertThat(senderFailure.get()).isNull();
            r.await("every line", () -> out.total() >= (long) senders * linesEach);
            sampler.interrupt();
            assertThat(out.total()).isEqualTo((long) senders * linesEach);
            assertThat(out.outOfOrder()).as("lines missing, repeated or out of order").isZero();
            for (int s = 0; s < senders; s++) {
                assertThat(out.next("s" + s)).isEqualTo(linesEach);
            }
            assertThat(maxUsed.get()).isLessThanOrEqualTo(limit).isGreaterThan(limit / 2);
        }
        assertThat(budget.used()).as("every reservation returned").isZero();
    }

    @Test
    void aConnectionBufferGrowsForALongLineAndShrinksBackAfterIt() throws Exception {
        int port = freePort();
        MemoryBudget budget = new MemoryBudget(8 << 20);
        String longLine = "L".repeat(600_000);
        try (PipelineHarness r = run(yaml("consumer.Socket", port, "  MaxLineSize: 1048576\n"), budget);
                SocketChannel ch = connect(port)) {
            r.<Tally>producer("Out").keepPayloads = false;
            // Sent in pieces, so the line is assembled across many reads.
            for (int i = 0; i < longLine.length(); i += 10_000) {
                write(ch, longLine.substring(i, i + 10_000));
            }
            write(ch, "\nsmall\n");
            r.await("both lines", () -> r.<Tally>producer("Out").total() == 2);
            // Delivered, so the messages' memory is back; what stays is the connection's buffer and a little credit.
            r.await("the connection's buffer shrunk back", () -> budget.used() < 100_000);
            assertThat(r.stats("In").rejected(Rejection.TOO_LARGE)).isZero();
        }
    }

    @Test
    void tooLongLinesAreCountedTooLargeAndMalformedSyslogMalformed() throws Exception {
        int socketPort = freePort();
        int syslogPort = freePort();
        String yaml = "In:\n  Type: consumer.Socket\n  Address: tcp://127.0.0.1:" + socketPort + "\n  MaxLineSize: 16\n  Streams: s\n"
                + "Sys:\n  Type: consumer.Syslogd\n  Address: tcp://127.0.0.1:" + syslogPort + "\n  Format: RFC5424\n  Streams: s\n"
                + "Out:\n  Type: test.Tally\n  Streams: s\n";
        try (PipelineHarness r = run(yaml, MemoryBudget.unlimited())) {
            try (SocketChannel ch = connect(socketPort)) {
                write(ch, "short\n" + "x".repeat(100) + "\nafter\n");
            }
            r.await("3 lines", () -> r.<Tally>producer("Out").payloads().contains("after"));
            assertThat(r.<Tally>producer("Out").payloads()).containsExactly("short", "x".repeat(16), "after");
            assertThat(r.<Tally>producer("Out").metadata().get(1)).containsEntry("truncated", "true");
            assertThat(r.stats("In").rejected(Rejection.TOO_LARGE)).isEqualTo(1);
            assertThat(r.stats("In").rejected(Rejection.MALFORMED)).isZero();
            try (SocketChannel ch = connect(syslogPort)) {
                write(ch, "<34>1 2003-10-11T22:14:15.003Z host app - - - fine\nnot syslog at all\n");
            }
            r.await("2 syslog lines", () -> r.<Tally>producer("Out").payloads().size() >= 5);
            assertThat(r.<Tally>producer("Out").payloads().subList(3, 5)).containsExactly("fine", "not syslog at all");
            assertThat(r.stats("Sys").rejected(Rejection.MALFORMED)).isEqualTo(1);
            assertThat(r.stats("Sys").rejected(Rejection.TOO_LARGE)).isZero();
            assertThat(r.logText()).contains("rejected (too_large) from /127.0.0.1:")
                    .contains("rejected (malformed) from /127.0.0.1:");
        }
    }

    @Test
    void anAcknowledgementFollowsEachReadOnceItWasHandedToThePipeline() throws Exception {
        int port = freePort();
        try (PipelineHarness r = run(yaml("consumer.Socket", port, "  Acknowledge: \"OK\\n\"\n"), MemoryBudget.unlimited());
                SocketChannel ch = connect(port)) {
            ch.socket().setSoTimeout(10_000);
            java.io.InputStream in = ch.socket().getInputStream();
            for (int round = 1; round <= 3; round++) {
                write(ch, "line " + round + "a\nline " + round + "b\n");
                byte[] ack = in.readNBytes(3);
                assertThat(new String(ack, StandardCharsets.UTF_8)).isEqualTo("OK\n");
                assertThat(r.stats("In").in()).as("published before the ack").isGreaterThanOrEqualTo(2L * round);
            }
            r.await("6 lines", () -> r.<Tally>producer("Out").payloads().size() >= 6);
        }
    }

    @Test
    void whatAConnectionSentIsPassedOnAtShutdownEvenWithoutItsNewline() throws Exception {
        int port = freePort();
        PipelineHarness r = run(yaml("consumer.Socket", port, ""), MemoryBudget.unlimited());
        try (SocketChannel ch = connect(port)) {
            write(ch, "complete\nunfinished");
            r.await("the complete line", () -> r.<Tally>producer("Out").payloads().contains("complete"));
            r.close();
            assertThat(r.<Tally>producer("Out").payloads()).containsExactly("complete", "unfinished");
            assertThat(r.stats("In").connections()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"consumer.Socket", "consumer.Syslogd"})
    void aPortInUseStopsTheStartNamingTheAddress(String type) throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> run(yaml(type, port, ""), MemoryBudget.unlimited()).close())
                    .isInstanceOf(StartException.class)
                    .hasMessageContaining("In: cannot listen on tcp://127.0.0.1:" + port);
        }
    }

    @Test
    void aLostListenerEndsConsumeAndTheConsumerIsNotReady() throws Exception {
        int port = freePort();
        List<PluginConfig> configs = new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of()).loadString(
                "In:\n  Type: consumer.Socket\n  Address: tcp://127.0.0.1:" + port + "\n  Streams: s\n"
                        + "Out:\n  Type: producer.Null\n  Streams: s\n", "test.yaml");
        SocketConsumer consumer = (SocketConsumer) configs.get(0).spec().create(configs.get(0));
        DirectContext ctx = new DirectContext("In", "consumer.Socket", BatchPool.DEFAULT_BATCH_SIZE,
                PipelineHarness.quietLog()).countOnly(true);
        consumer.open(ctx);
        AtomicReference<Throwable> ended = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                consumer.consume(ctx);
                ended.set(new AssertionError("consume returned normally"));
            } catch (Throwable e) {
                ended.set(e);
            } finally {
                done.countDown();
            }
        });
        t.setDaemon(true);
        t.start();
        try (SocketChannel ch = connect(port)) {
            write(ch, "served\n");
        }
        PipelineHarness.await("the line served", 10_000, () -> ctx.counted() > 0);
        assertThat(consumer.isReady()).isTrue();
        consumer.server().listenerForTest().close();
        assertThat(done.await(10, TimeUnit.SECONDS)).as("consume ended").isTrue();
        assertThat(ended.get()).isInstanceOf(IOException.class).hasMessageContaining("tcp://127.0.0.1:" + port);
        assertThat(consumer.isReady()).isFalse();
        consumer.stop();
    }
}
