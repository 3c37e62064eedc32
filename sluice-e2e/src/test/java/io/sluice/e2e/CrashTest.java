package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Crash: fluency (ack mode) → A [consumer.Forward → disk buffer → producer.SplunkHEC] → B [consumer.HEC
 * → producer.File]. A is killed with SIGKILL at random moments while fluency sends, and restarted on the same
 * port and buffer directory. Every number fluency saw acknowledged must be in B's file; duplicates are counted
 * and bounded by the unacknowledged window.
 */
@Timeout(600)
class CrashTest extends ProcessTest {
    @Test
    void sigkillDuringSendingLosesNothingAcknowledged() throws Exception {
        int n = E2e.EVENTS;
        int kills = E2e.KILLS;
        int forwardPort = E2e.freePort();
        int hecPort = E2e.freePort();
        Path out = dir.resolve("received.ndjson");
        Path buffer = dir.resolve("buffer");
        String configA = E2e.forwardConsumer(forwardPort)
                + E2e.hecProducer(hecPort, E2e.diskBuffer(buffer, "    Buffer/Fsync: \"interval\"\n"));
        Random random = new Random(E2e.SEED);
        // Kill moments: random points of the sending, spread so that each restart has time to do some work.
        double[] at = new double[kills];
        for (int i = 0; i < kills; i++) {
            at[i] = (i + 0.25 + random.nextDouble() * 0.5) / (kills + 0.5);
        }
        Arrays.sort(at);
        System.out.printf("crash test: %d events at %d/s, %d kills at %s of the emitted events (seed %d)%n",
                n, E2e.RATE, kills, Arrays.toString(at), E2e.SEED);

        Ledger ledger = new Ledger(out);
        long start = System.nanoTime();
        SluiceProcess b = start("crash-B", E2e.receiver(hecPort, out), hecPort);
        SluiceProcess a = start("crash-A", configA, forwardPort);
        FluencySender fluency = open(new FluencySender(forwardPort, 512L << 20));
        fluency.start(0, n, E2e.RATE);
        long[] arrivedAtKill = new long[kills];
        for (int k = 0; k < kills; k++) {
            long point = (long) (at[k] * n);
            long before = k == 0 ? 0 : arrivedAtKill[k - 1];
            // Kill while fluency is sending and while this incarnation of A is delivering (B's file grows).
            Await.until("fluency emitted " + point + " and A delivering", 300,
                    () -> fluency.emitted() >= point && ledger.refresh().distinct('f') > before);
            arrivedAtKill[k] = ledger.distinct('f');
            System.out.printf("SIGKILL %d of A after %d emitted, %d in B's file%n", k + 1, fluency.emitted(), arrivedAtKill[k]);
            a.kill();
            a = start("crash-A", configA, forwardPort);
        }
        assertThat(arrivedAtKill[kills - 1]).as("the last kill came before everything had arrived").isLessThan(n);
        fluency.awaitEmitted(300);
        fluency.finishAllAcked();
        Await.until("all " + n + " events in B's file", 300, () -> ledger.refresh().hasAll('f', n));
        assertThat(a.stop()).as("A's exit code after SIGTERM").isZero();
        assertThat(b.stop()).as("B's exit code after SIGTERM").isZero();
        ledger.refresh();
        double seconds = (System.nanoTime() - start) / 1e9;

        long bound = (long) kills * (FluencySender.MAX_CHUNK_EVENTS + 2L * E2e.HEC_CONNECTIONS * E2e.BATCH);
        System.out.printf("crash test: %d events, %d kills, %d distinct arrived, %d duplicates (bound %d), %d lines, %.1f s%n",
                n, kills, ledger.distinct('f'), ledger.duplicates(), bound, ledger.lines(), seconds);
        assertThat(ledger.missing('f', n, 20)).as("event numbers that did not arrive").isEmpty();
        assertThat(ledger.distinct('f')).isEqualTo(n);
        assertThat(ledger.unparsable()).as("lines that are not an event").isZero();
        // Duplicates come only from the unacknowledged windows at each kill:
        // - fluency's chunk whose ack the kill lost: fluency is stop-and-wait in ack mode, so one chunk;
        // - the batches A's disk buffer had handed to producer.SplunkHEC and B had written, but that ack.pos did
        //   not cover yet: ack.pos moves over delivered batches in file order, so it lags by the batches in flight
        //   (one per HEC connection) plus those delivered while the oldest of them was still in flight; with B
        //   answering in milliseconds that is at most one more round of every connection: 2 x connections batches.
        assertThat(ledger.duplicates()).as("duplicates").isLessThanOrEqualTo(bound);
        assertThat(ledger.lines()).isEqualTo(n + ledger.duplicates());
    }
}
