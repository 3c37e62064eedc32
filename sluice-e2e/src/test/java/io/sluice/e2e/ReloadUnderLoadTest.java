package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reload under load (issue 21's bar): fluency in ack mode (consumer.Forward) and an HEC client (consumer.HEC) offer
 * {@code e2e.reloadRate} events a second together (200,000 by default) to one process writing them to a file, while
 * the test reloads its config 20 times, alternating a changed config (a setting of each input and of the file
 * producer, so all three are replaced, the inputs on the same addresses) and an unchanged one, by SIGHUP and by {@code POST /api/reload} in turn. Every event is counted in the
 * file: none lost, none twice, no connection refused, and fluency saw no error. The throughput dip around the reloads
 * and the HEC client's resets (an idle keep-alive connection closed by the replaced input) are printed.
 */
@Timeout(300)
class ReloadUnderLoadTest extends ProcessTest {
    private static final int RATE = Integer.getInteger("e2e.reloadRate", 200_000);
    private static final int RELOADS = 20;
    /** Time between two reloads: part of the scenario (load runs meanwhile), not a wait for a result. */
    private static final long RELOAD_EVERY_MILLIS = 700;

    private static String config(int forwardPort, int hecPort, Path out, int generation) {
        return E2e.forwardConsumer(forwardPort)
                + "    AuthFailureLimit: " + (10 + generation % 2) + "\n"
                + "\"HecIn\":\n"
                + "    Type: \"consumer.HEC\"\n"
                + "    Address: \"127.0.0.1:" + hecPort + "\"\n"
                + "    MaxPendingEvents: " + (65536 + generation % 2) + "\n"
                + "    Streams: \"events\"\n"
                + "\"Out\":\n"
                + "    Type: \"producer.File\"\n"
                + "    Streams: \"events\"\n"
                + "    File: \"" + out + "\"\n"
                + "    FlushIntervalMs: " + (100 + generation % 2) + "\n";
    }

    @Test
    void twentyReloadsUnderLoadLoseNothingAndDoubleNothing() throws Exception {
        int forwardPort = E2e.freePort();
        int hecPort = E2e.freePort();
        Path out = dir.resolve("reload-out.ndjson");
        SluiceProcess p = start("reload", config(forwardPort, hecPort, out, 0), forwardPort, hecPort);
        Path conf = dir.resolve("reload.yaml");
        Ledger ledger = new Ledger(out);

        List<long[]> samples = new CopyOnWriteArrayList<>();
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    samples.add(new long[] {System.nanoTime(), p.metric("sluice_messages_out_total", "Out")});
                    Thread.sleep(100); // sampling period
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // the process is stopping
                }
            }
        }, "throughput-sampler");
        sampler.setDaemon(true);

        int perSender = RATE / 2;
        int seconds = (int) (RELOADS * RELOAD_EVERY_MILLIS / 1000) + 6;
        int fluencyEvents = perSender * seconds;
        FluencySender fluency = open(new FluencySender(forwardPort, 512L << 20)).start(0, fluencyEvents, perSender);
        HecSender hec = open(new HecSender(hecPort)).start(perSender);
        sampler.start();
        Await.until("events of both senders in the file", 60,
                () -> ledger.refresh().distinct('f') > 10_000 && ledger.distinct('h') > 10_000);

        if (!p.canHangup()) {
            System.out.println("reload under load: this environment starts processes with SIGHUP ignored; every reload "
                    + "goes through POST /api/reload");
        }
        List<Long> reloadedAt = new ArrayList<>();
        int generation = 0;
        for (int i = 0; i < RELOADS; i++) {
            boolean change = i % 2 == 0;
            if (change) {
                generation++;
            }
            Files.writeString(conf, config(forwardPort, hecPort, out, generation));
            long before = p.globalMetric("sluice_config_reloads_total", "result=\"applied\"")
                    + p.globalMetric("sluice_config_reloads_total", "result=\"unchanged\"");
            reloadedAt.add(System.nanoTime());
            if (i % 4 < 2 && p.canHangup()) {
                p.hangup();
                Await.until("reload " + i + " done", 60, () -> p.globalMetric("sluice_config_reloads_total", "result=\"applied\"")
                        + p.globalMetric("sluice_config_reloads_total", "result=\"unchanged\"") == before + 1);
            } else {
                HttpResponse<String> r = p.postReload();
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(r.body()).contains("\"changed\":" + change);
            }
            TimeUnit.MILLISECONDS.sleep(RELOAD_EVERY_MILLIS);
        }
        assertThat(p.globalMetric("sluice_config_reloads_total", "result=\"applied\"")).isEqualTo(RELOADS / 2);
        assertThat(p.globalMetric("sluice_config_reloads_total", "result=\"unchanged\"")).isEqualTo(RELOADS / 2);
        assertThat(p.globalMetric("sluice_config_reloads_total", "result=\"failed\"")).isZero();

        fluency.awaitEmitted(120);
        hec.stopOffering();
        fluency.finishAllAcked();
        hec.awaitAllAccepted(120);
        int hecEvents = hec.offered();
        Await.until("every accepted event in the file", 120,
                () -> ledger.refresh().hasAll('f', fluencyEvents) && ledger.hasAll('h', hecEvents));
        sampler.interrupt();
        assertThat(p.stop()).as("exit code").isZero();
        ledger.refresh();
        System.out.printf("reload under load: %d reloads at %,d events/s offered; %s; fluency errors %d, HEC errors %d "
                + "(%d refused), HEC 503 %d; %s%n", RELOADS, RATE, ledger, fluency.errors(), hec.errors(), hec.refused(),
                hec.busy(),
                Throughput.dip(samples, reloadedAt, RELOAD_EVERY_MILLIS));

        assertThat(ledger.missing('f', fluencyEvents, 20)).as("fluency events missing").isEmpty();
        assertThat(ledger.missing('h', hecEvents, 20)).as("HEC events missing").isEmpty();
        assertThat(ledger.unparsable()).isZero();
        assertThat(ledger.duplicates()).as("events written twice").isZero();
        assertThat(fluency.errors()).as("fluency send errors (refused, reset)").isZero();
        // A keep-alive connection the replaced HEC input closed while idle can meet the client's next request (a
        // reset, sent again: nothing of it was taken, as the duplicates show); a refused connection cannot happen.
        assertThat(hec.refused()).as("HEC connections refused").isZero();
        assertThat(hec.otherStatus()).as("HEC answers other than 200 and 503").isZero();
    }
}
