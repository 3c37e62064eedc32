package io.sluice.forward.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.forward.codec.ChunkIdGenerator;
import io.sluice.forward.consumer.RecentChunks.Claim;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The bounded, time-limited set of accepted chunk ids, with a clock the test moves. */
class RecentChunksTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final List<String> acked = new ArrayList<>();
    private final RecentChunks.Waiter waiter = acked::add;

    private RecentChunks chunks(int capacity, long windowMillis) {
        return new RecentChunks(capacity, TimeUnit.MILLISECONDS.toNanos(windowMillis), now::get);
    }

    @Test
    void anAcceptedChunkIsRecognisedAndAnAbandonedOneIsNot() {
        RecentChunks c = chunks(8, 1000);
        assertThat(c.claim("a", waiter)).isEqualTo(Claim.NEW);
        assertThat(c.accepted("a")).isEmpty();
        assertThat(c.claim("a", waiter)).isEqualTo(Claim.ACCEPTED);

        assertThat(c.claim("b", waiter)).isEqualTo(Claim.NEW);
        c.abandoned("b");
        assertThat(c.claim("b", waiter)).as("a chunk whose first copy was lost is new again").isEqualTo(Claim.NEW);
        assertThat(c.inFlight()).isEqualTo(1);
    }

    @Test
    void copiesOfAChunkInFlightWaitForTheFirst() {
        RecentChunks c = chunks(8, 1000);
        assertThat(c.claim("x", waiter)).isEqualTo(Claim.NEW);
        List<String> other = new ArrayList<>();
        assertThat(c.claim("x", other::add)).isEqualTo(Claim.IN_FLIGHT);
        assertThat(c.claim("x", waiter)).isEqualTo(Claim.IN_FLIGHT);
        for (RecentChunks.Waiter w : c.accepted("x")) {
            w.acked("x");
        }
        assertThat(other).containsExactly("x");
        assertThat(acked).containsExactly("x");
        assertThat(c.inFlight()).isZero();
        assertThat(c.claim("x", waiter)).isEqualTo(Claim.ACCEPTED);

        // Abandoned: the waiters get nothing (their clients resend), and the next copy is new.
        assertThat(c.claim("y", waiter)).isEqualTo(Claim.NEW);
        assertThat(c.claim("y", waiter)).isEqualTo(Claim.IN_FLIGHT);
        c.abandoned("y");
        assertThat(c.claim("y", waiter)).isEqualTo(Claim.NEW);
        assertThat(acked).containsExactly("x");
    }

    @Test
    void idsAreForgottenAfterTheWindow() {
        RecentChunks c = chunks(8, 1000);
        c.claim("old", waiter);
        c.accepted("old");
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
        assertThat(c.claim("old", waiter)).isEqualTo(Claim.ACCEPTED);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(2));
        assertThat(c.claim("old", waiter)).as("past the window").isEqualTo(Claim.NEW);
        // Accepted again: found again, although the expired entry still sits in the ring before it.
        c.accepted("old");
        assertThat(c.claim("old", waiter)).isEqualTo(Claim.ACCEPTED);
        // A later insert pushes what is past the window out.
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(5000));
        c.claim("new", waiter);
        c.accepted("new");
        assertThat(c.size()).isEqualTo(1);
    }

    @Test
    void theOldestIdsAreForgottenBeyondTheCapacity() {
        int capacity = 1000;
        RecentChunks c = chunks(capacity, 60_000);
        ChunkIdGenerator gen = new ChunkIdGenerator();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 10 * capacity + 17; i++) {
            String id = gen.next();
            ids.add(id);
            assertThat(c.claim(id, waiter)).isEqualTo(Claim.NEW);
            c.accepted(id);
            assertThat(c.size()).isLessThanOrEqualTo(capacity);
        }
        int n = ids.size();
        // The last `capacity` are all found (the index survives thousands of evictions), the ones before are not.
        for (int i = n - capacity; i < n; i++) {
            assertThat(c.claim(ids.get(i), waiter)).as("id " + i).isEqualTo(Claim.ACCEPTED);
        }
        for (int i = 0; i < n - capacity; i++) {
            String id = ids.get(i);
            assertThat(c.claim(id, waiter)).as("id " + i).isEqualTo(Claim.NEW);
            c.abandoned(id);
        }
        assertThat(c.size()).isEqualTo(capacity);
        assertThat(c.inFlight()).isZero();
    }

    @Test
    void collidingShortIdsAndFullLengthIdsAreKeptApart() {
        RecentChunks c = chunks(64, 60_000);
        for (int i = 0; i < 64; i++) {
            String id = Integer.toString(i);
            c.claim(id, waiter);
            c.accepted(id);
        }
        for (int i = 0; i < 64; i++) {
            assertThat(c.claim(Integer.toString(i), waiter)).isEqualTo(Claim.ACCEPTED);
            assertThat(c.claim(Integer.toString(i) + "x", waiter)).isEqualTo(Claim.NEW);
        }
        String longest = "a".repeat(RecentChunks.MAX_ID_CHARS);
        c.claim(longest, waiter);
        c.accepted(longest);
        assertThat(c.claim(longest, waiter)).isEqualTo(Claim.ACCEPTED);
        assertThat(c.claim("a".repeat(RecentChunks.MAX_ID_CHARS - 1), waiter)).isEqualTo(Claim.NEW);
    }

    @Test
    void idsThatCannotBeRememberedAreAlwaysNew() {
        RecentChunks c = chunks(8, 60_000);
        for (String id : List.of("b".repeat(RecentChunks.MAX_ID_CHARS + 1), "chunk-é", "")) {
            assertThat(c.claim(id, waiter)).isEqualTo(Claim.NEW);
            c.accepted(id);
            assertThat(c.claim(id, waiter)).as(id).isEqualTo(Claim.NEW);
        }
        assertThat(c.size()).isZero();
        assertThat(c.inFlight()).isZero();
    }
}
