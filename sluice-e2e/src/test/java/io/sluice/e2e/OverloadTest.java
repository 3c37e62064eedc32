package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Overload: A [consumer.Forward (fluency) + consumer.HEC (an HEC client) → memory buffer →
 * producer.SplunkHEC] → B [consumer.HEC → producer.File]. B is down for {@code e2e.downSeconds} while both
 * senders keep offering events at a steady rate. A's memory must stay bounded (RSS under {@code e2e.maxRssMb}),
 * the senders must be held back (Forward acks stop, so fluency's buffer grows; the HEC front answers 503 code 9),
 * and once B is back every event a sender saw accepted must arrive.
 */
@Timeout(600)
class OverloadTest extends ProcessTest {
    private static final int MAX_PENDING = 4096;

    @Test
    void receiverDownHoldsSendersBackAndMemoryStaysBounded() throws Exception {
        int down = E2e.DOWN_SECONDS;
        int perSender = Math.max(1000, E2e.RATE / 2);
        int forwardPort = E2e.freePort();
        int frontPort = E2e.freePort();
        int hecPort = E2e.freePort();
        Path out = dir.resolve("received.ndjson");
        String configA = E2e.forwardConsumer(forwardPort)
                + "\"HecFront\":\n"
                + "    Type: \"consumer.HEC\"\n"
                + "    Address: \"127.0.0.1:" + frontPort + "\"\n"
                + "    Streams: \"events\"\n"
                + "    MaxPendingEvents: " + MAX_PENDING + "\n"
                + E2e.hecProducer(hecPort, "");
        String configB = E2e.receiver(hecPort, out);
        Ledger ledger = new Ledger(out);

        SluiceProcess b = start("overload-B", configB, hecPort);
        SluiceProcess a = start("overload-A", configA, forwardPort, frontPort);
        long baseRss = a.rssKb();
        AtomicLong maxRss = new AtomicLong(baseRss);
        java.util.List<long[]> rssSamples = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                long rss = a.rssKb();
                maxRss.accumulateAndGet(rss, Math::max);
                rssSamples.add(new long[] {System.nanoTime(), rss});
                try {
                    Thread.sleep(100); // sampling period
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "rss-sampler");
        sampler.setDaemon(true);
        sampler.start();

        // Fluency offers events for the whole run: warm-up, the downtime, and a few seconds after.
        int fluencyEvents = perSender * (down + 6);
        FluencySender fluency = open(new FluencySender(forwardPort, 512L << 20)).start(0, fluencyEvents, perSender);
        HecSender hec = open(new HecSender(frontPort)).start(perSender);
        Await.until("events of both senders in B's file", 60,
                () -> ledger.refresh().distinct('f') > 1000 && ledger.distinct('h') > 1000);

        // B goes down. Its SIGTERM drains what it took, so nothing of what A delivered is lost on B's side.
        assertThat(b.stop()).as("B's exit code").isZero();
        long downAt = System.nanoTime();
        System.out.printf("overload: B down after %d fluency + %d HEC events arrived; A's RSS %d MB at start%n",
                ledger.refresh().distinct('f'), ledger.distinct('h'), baseRss >> 10);
        // The downtime is the scenario itself, not a wait for a result: look at the senders half way and at the end.
        TimeUnit.MILLISECONDS.sleep(down * 500L);
        long fluencyBufferedMid = fluency.buffered();
        long fluencyEmittedMid = fluency.emitted();
        long hecAcceptedMid = hec.accepted();
        long busyMid = hec.busy();
        TimeUnit.NANOSECONDS.sleep(Math.max(0, downAt + TimeUnit.SECONDS.toNanos(down) - System.nanoTime()));
        long fluencyBufferedEnd = fluency.buffered();
        long fluencyEmittedEnd = fluency.emitted();
        long hecAcceptedEnd = hec.accepted();
        long busyEnd = hec.busy();
        long producerQueue = a.metric("sluice_queue_depth", "ToHec");
        long half = downAt + TimeUnit.SECONDS.toNanos(down) / 2;
        long end = downAt + TimeUnit.SECONDS.toNanos(down);
        long firstHalfRss = rssSamples.stream().filter(x -> x[0] >= downAt && x[0] < half).mapToLong(x -> x[1]).max().orElse(0);
        long secondHalfRss = rssSamples.stream().filter(x -> x[0] >= half && x[0] < end).mapToLong(x -> x[1]).max().orElse(0);
        System.out.printf("overload: A's RSS while held back: at most %d MB in the first half of the downtime, %d MB in the"
                + " second (%+.1f%%)%n", firstHalfRss >> 10, secondHalfRss >> 10, 100.0 * (secondHalfRss - firstHalfRss) / firstHalfRss);
        assertThat(a.isAlive()).as("A alive after " + down + " s without its receiver").isTrue();

        b = start("overload-B", configB, hecPort);
        fluency.awaitEmitted(300);
        hec.stopOffering();
        fluency.finishAllAcked();
        hec.awaitAllAccepted(300);
        int hecEvents = hec.offered();
        Await.until("every accepted event in B's file", 300,
                () -> ledger.refresh().hasAll('f', fluencyEvents) && ledger.hasAll('h', hecEvents));
        sampler.interrupt();
        assertThat(a.stop()).as("A's exit code").isZero();
        assertThat(b.stop()).as("B's exit code").isZero();
        ledger.refresh();

        System.out.printf("overload: %d s down at %d events/s offered; fluency: %d events, buffer %d -> %d bytes in the "
                        + "second half of the downtime (%d emitted meanwhile), %d emits refused (buffer full); HEC: %d events, "
                        + "%d answers 503 code 9 (%d in the second half), %d errors; A's producer queue at the end of the downtime "
                        + "%d; A's RSS %d MB at start, %d MB at most (bound %d MB); %s%n",
                down, 2 * perSender, fluencyEvents, fluencyBufferedMid, fluencyBufferedEnd,
                fluencyEmittedEnd - fluencyEmittedMid, fluency.bufferFull(), hecEvents, hec.busy(), busyEnd - busyMid,
                hec.errors(), producerQueue, baseRss >> 10, maxRss.get() >> 10, E2e.MAX_RSS_MB, ledger);

        assertThat(maxRss.get() >> 10).as("A's largest RSS in MB").isLessThanOrEqualTo(E2e.MAX_RSS_MB);
        // Held back, Forward side: in the second half of the downtime nothing fluency sent was acknowledged, so
        // its buffer grew by at least what it emitted meanwhile (fluency's own count excludes the chunk on the wire).
        assertThat(fluencyBufferedEnd - fluencyBufferedMid).as("fluency's unacknowledged bytes grew by what it emitted")
                .isGreaterThanOrEqualTo((fluencyEmittedEnd - fluencyEmittedMid) * FluencySender.MIN_EVENT_BYTES);
        // Held back, HEC side: requests beyond MaxPendingEvents got 503 code 9, and no request was answered 200.
        assertThat(busyEnd - busyMid).as("503 code 9 answers in the second half of the downtime").isPositive();
        assertThat(hecAcceptedEnd).as("HEC events accepted during the second half of the downtime").isEqualTo(hecAcceptedMid);
        assertThat(hec.otherStatus()).as("answers other than 200 and 503").isZero();
        // After B returned, every accepted event arrived.
        assertThat(ledger.missing('f', fluencyEvents, 20)).as("fluency events missing").isEmpty();
        assertThat(ledger.missing('h', hecEvents, 20)).as("HEC events missing").isEmpty();
        assertThat(ledger.unparsable()).isZero();
        // Nothing was killed and a 503 takes nothing, so nothing arrives twice (an HEC I/O error could, counted).
        assertThat(ledger.duplicates()).as("duplicates").isLessThanOrEqualTo(hec.errors() * HecSender.BATCH);
    }
}
