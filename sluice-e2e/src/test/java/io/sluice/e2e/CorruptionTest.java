package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Corruption at the process level: A (consumer.Forward → disk buffer → producer.SplunkHEC) takes events
 * while its receiver is unreachable, and is stopped. Bytes are flipped in its segment files (a record body, a
 * magic number, a length field) and the last segment is cut in the middle of a record. A then starts with the
 * receiver up: it must start, log every damaged record with its file and offset, and deliver every other event.
 */
@Timeout(300)
class CorruptionTest extends ProcessTest {
    private static final int EVENTS = 20_000;

    @Test
    void damagedSegmentsAreSkippedReportedAndTheRestDelivered() throws Exception {
        int forwardPort = E2e.freePort();
        int hecPort = E2e.freePort(); // B starts only after the damage
        Path out = dir.resolve("received.ndjson");
        Path buffer = dir.resolve("buffer");
        // Small segments, so that the damage spreads over several files.
        String configA = E2e.forwardConsumer(forwardPort)
                + E2e.hecProducer(hecPort, E2e.diskBuffer(buffer, "    Buffer/SegmentSize: 65536\n"));

        SluiceProcess a = start("corrupt-A", configA, forwardPort);
        FluencySender fluency = open(new FluencySender(forwardPort, 64L << 20)).start(0, EVENTS, 0);
        fluency.awaitEmitted(60);
        fluency.finishAllAcked(); // acknowledged: every event is in A's disk buffer
        assertThat(a.stop()).as("A's exit code after SIGTERM with its receiver unreachable").isZero();

        // What was written: every event exactly once, in records of the segment files.
        List<Path> files = Segments.files(buffer);
        List<List<Segments.Record>> segments = new ArrayList<>();
        BitSet written = new BitSet();
        int records = 0;
        for (Path f : files) {
            List<Segments.Record> rs = Segments.records(f);
            segments.add(rs);
            for (Segments.Record r : rs) {
                records++;
                for (int n : r.numbers) {
                    assertThat(written.get(n)).as("event " + n + " written twice").isFalse();
                    written.set(n);
                }
            }
        }
        assertThat(written.cardinality()).as("events in the segment files").isEqualTo(EVENTS);
        segments.removeIf(List::isEmpty);
        assertThat(segments).as("segments holding records").hasSizeGreaterThanOrEqualTo(3);

        // The damage: four records, each losing its events.
        List<Segments.Record> first = segments.get(0);
        List<Segments.Record> middle = segments.get(segments.size() / 2);
        List<Segments.Record> last = segments.get(segments.size() - 1);
        Segments.Record body = first.get(3);
        Segments.Record magic = first.get(10);
        Segments.Record length = middle.get(5);
        Segments.Record torn = last.get(last.size() - 1);
        Segments.flip(body.segment, body.offset + Segments.HEADER + body.length / 2 - 6); // body: CRC mismatch
        Segments.flip(magic.segment, magic.offset);                                        // magic number
        Segments.flip(length.segment, length.offset + 5);                                  // length field: +16 MB or so
        Segments.truncate(torn.segment, torn.offset + torn.length / 2);                     // torn tail
        List<Segments.Record> damaged = List.of(body, magic, length, torn);
        BitSet lost = new BitSet();
        for (Segments.Record r : damaged) {
            r.numbers.forEach(lost::set);
        }
        BitSet expected = (BitSet) written.clone();
        expected.andNot(lost);

        Ledger ledger = new Ledger(out);
        SluiceProcess b = start("corrupt-B", E2e.receiver(hecPort, out), hecPort);
        a = start("corrupt-A", configA, forwardPort);
        SluiceProcess restarted = a;
        Await.until("A delivered its whole buffer", 120,
                () -> ledger.refresh().distinct('f') >= expected.cardinality()
                        && restarted.metric("sluice_buffer_bytes", "ToHec") == 0);
        assertThat(a.stop()).as("A's exit code").isZero();
        assertThat(b.stop()).as("B's exit code").isZero();
        ledger.refresh();

        List<String> warnings = a.lines().stream().filter(l -> l.contains("corrupt bytes in")).toList();
        System.out.printf("corruption: %d events in %d records over %d segment files; damaged %d records holding %d events;"
                        + " %d delivered, %d duplicates; A logged:%n  %s%n", EVENTS, records, files.size(), damaged.size(),
                lost.cardinality(), ledger.distinct('f'), ledger.duplicates(), String.join("\n  ", warnings));
        assertThat(ledger.copy('f')).as("delivered = written - damaged").isEqualTo(expected);
        assertThat(ledger.duplicates()).isZero();
        assertThat(ledger.unparsable()).isZero();
        // Each damaged record is reported once, with its file and its offset.
        assertThat(warnings).hasSize(damaged.size());
        for (Segments.Record r : damaged) {
            assertThat(warnings).as("a warning naming " + r.segment.getFileName() + " at offset " + r.offset)
                    .anySatisfy(w -> assertThat(w).contains(r.segment.toString()).contains("at offset " + r.offset + ":"));
        }
        assertThat(a.lines()).as("the replay is announced once").filteredOn(l -> l.contains("replaying them")).hasSize(1);
    }
}
