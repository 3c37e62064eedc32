package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Disk full: A (consumer.Forward → disk buffer of a tiny Buffer/MaxSize → producer.SplunkHEC) while its
 * receiver is down. With {@code block} the senders are held back (no acknowledgement while the buffer is full) and
 * everything arrives once the receiver is up; with {@code drop_newest} the newest events are dropped and counted
 * ({@code sluice_messages_discarded_total}) and the rest arrives.
 */
@Timeout(300)
class DiskFullTest extends ProcessTest {
    private static final int EVENTS = 20_000;
    /** About two pipeline batches of these events (one record is ~110 bytes). */
    private static final int MAX_SIZE = 128 * 1024;
    /** How long the held-back state is watched for an acknowledgement that must not come. */
    private static final long HOLD_MILLIS = 2000;

    @Test
    void blockHoldsTheSendersBackUntilTheReceiverReturns() throws Exception {
        Setup s = new Setup("block");
        SluiceProcess a = s.a;
        FluencySender fluency = open(new FluencySender(s.forwardPort, 64L << 20)).start(0, EVENTS, 0);
        fluency.awaitEmitted(60);
        Await.until("A's disk buffer filled", 60, () -> a.metric("sluice_buffer_bytes", "ToHec") > MAX_SIZE / 2);
        // Held back: while the buffer is full nothing more is taken or acknowledged. fluency has emitted
        // everything, so an ack would shrink its buffer; and A's Forward consumer publishes nothing more.
        long buffered = fluency.buffered();
        long published = a.metric("sluice_messages_out_total", "In");
        long bufferBytes = a.metric("sluice_buffer_bytes", "ToHec");
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HOLD_MILLIS);
        while (System.nanoTime() < until) {
            assertThat(fluency.buffered()).as("fluency's unacknowledged bytes while A's buffer is full").isEqualTo(buffered);
            assertThat(a.metric("sluice_messages_out_total", "In")).as("events A's Forward consumer took").isEqualTo(published);
            Thread.sleep(50); // sampling period of the watch
        }
        assertThat(buffered).as("fluency still holds events").isPositive();
        assertThat(published).as("A took only part of the events").isLessThan(EVENTS);
        assertThat(bufferBytes).as("A's disk buffer bytes").isLessThanOrEqualTo(MAX_SIZE);
        System.out.printf("disk full (block): A took %d of %d events, its buffer holds %d bytes (MaxSize %d), fluency holds %d"
                + " unacknowledged bytes; nothing acknowledged for %d ms%n", published, EVENTS, bufferBytes, MAX_SIZE, buffered, HOLD_MILLIS);

        SluiceProcess b = start("full-block-B", E2e.receiver(s.hecPort, s.out), s.hecPort);
        fluency.finishAllAcked();
        Await.until("every event in B's file", 120, () -> s.ledger.refresh().hasAll('f', EVENTS));
        assertThat(a.metric("sluice_messages_discarded_total", "ToHec")).as("discarded").isZero();
        assertThat(a.stop()).isZero();
        assertThat(b.stop()).isZero();
        s.ledger.refresh();
        System.out.printf("disk full (block): %s%n", s.ledger);
        assertThat(s.ledger.distinct('f')).isEqualTo(EVENTS);
        assertThat(s.ledger.duplicates()).isZero();
    }

    @Test
    void dropNewestDropsWithACounterAndDeliversTheRest() throws Exception {
        Setup s = new Setup("drop_newest");
        SluiceProcess a = s.a;
        FluencySender fluency = open(new FluencySender(s.forwardPort, 64L << 20)).start(0, EVENTS, 0);
        fluency.awaitEmitted(60);
        // Dropped events are acknowledged (dropping is the configured answer to a full buffer, and it is counted),
        // so fluency gets every ack although the receiver is down.
        fluency.finishAllAcked();
        long discarded = a.metric("sluice_messages_discarded_total", "ToHec");
        long bufferBytes = a.metric("sluice_buffer_bytes", "ToHec");
        assertThat(discarded).as("events dropped because the buffer was full").isPositive().isLessThan(EVENTS);
        assertThat(bufferBytes).as("A's disk buffer bytes").isLessThanOrEqualTo(MAX_SIZE);
        assertThat(a.lines()).as("the drop is logged").anyMatch(l -> l.contains("disk buffer full") && l.contains("dropping"));

        SluiceProcess b = start("full-drop-B", E2e.receiver(s.hecPort, s.out), s.hecPort);
        Await.until("A's buffer delivered", 120, () -> a.metric("sluice_buffer_bytes", "ToHec") == 0
                && s.ledger.refresh().distinct('f') >= EVENTS - discarded);
        assertThat(a.metric("sluice_messages_discarded_total", "ToHec")).as("no drop after the receiver came back").isEqualTo(discarded);
        assertThat(a.stop()).isZero();
        assertThat(b.stop()).isZero();
        s.ledger.refresh();
        System.out.printf("disk full (drop_newest): %d events sent, %d dropped and counted, %d arrived; %s%n",
                EVENTS, discarded, s.ledger.distinct('f'), s.ledger);
        assertThat(s.ledger.distinct('f') + discarded).as("arrived + counted drops").isEqualTo(EVENTS);
        assertThat(s.ledger.duplicates()).isZero();
        assertThat(s.ledger.unparsable()).isZero();
    }

    /** A with the tiny disk buffer, its receiver (B) not started yet. */
    private final class Setup {
        final int forwardPort = E2e.freePort();
        final int hecPort = E2e.freePort();
        final Path out = dir.resolve("received.ndjson");
        final Ledger ledger = new Ledger(out);
        final SluiceProcess a;

        Setup(String whenFull) throws Exception {
            String config = E2e.forwardConsumer(forwardPort) + E2e.hecProducer(hecPort, E2e.diskBuffer(dir.resolve("buffer"),
                    "    Buffer/MaxSize: " + MAX_SIZE + "\n    Buffer/WhenFull: \"" + whenFull + "\"\n"));
            a = start("full-" + whenFull.replace('_', '-') + "-A", config, forwardPort);
        }
    }
}
