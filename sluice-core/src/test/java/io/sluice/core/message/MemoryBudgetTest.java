package io.sluice.core.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class MemoryBudgetTest {
    @Test
    void tryReserveRefusesWhatDoesNotFitAndCountsIt() {
        MemoryBudget m = new MemoryBudget(1000);
        assertThat(m.tryReserve(600)).isTrue();
        assertThat(m.tryReserve(401)).isFalse();
        assertThat(m.refused()).isEqualTo(1);
        assertThat(m.tryReserve(400)).isTrue();
        assertThat(m.used()).isEqualTo(1000);
        m.release(1000);
        assertThat(m.used()).isZero();
        assertThat(m.fits(1000)).isTrue();
        assertThat(m.fits(1001)).isFalse();
    }

    @Test
    void reserveWaitsForARelease() throws Exception {
        MemoryBudget m = new MemoryBudget(100);
        assertThat(m.tryReserve(100)).isTrue();
        AtomicBoolean granted = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            started.countDown();
            try {
                granted.set(m.reserve(50, 0));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        started.await();
        assertThat(m.reserve(50, TimeUnit.MILLISECONDS.toNanos(50))).as("a timed wait with no release").isFalse();
        assertThat(granted).isFalse();
        m.release(100);
        t.join(10_000);
        assertThat(granted).isTrue();
        assertThat(m.used()).isEqualTo(50);
    }

    @Test
    void aReservationLargerThanTheBudgetIsGrantedOnlyWhenNothingElseIsHeld() throws Exception {
        MemoryBudget m = new MemoryBudget(100);
        assertThat(m.tryReserve(10)).isTrue();
        assertThat(m.reserve(500, TimeUnit.MILLISECONDS.toNanos(20))).isFalse();
        m.release(10);
        assertThat(m.reserve(500, TimeUnit.MILLISECONDS.toNanos(20))).isTrue();
        assertThat(m.tryReserve(1)).isFalse();
    }

    @Test
    void completionReturnsItsMemoryOnceWhenTheLastDerivedBatchIsReleased() {
        MemoryBudget m = new MemoryBudget(10_000);
        BatchPool pool = new BatchPool(4);
        AtomicInteger completed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        Batch b = pool.acquire();
        b.setCompletion(counting(completed, failed));
        assertThat(m.tryReserve(700)).isTrue();
        b.holdMemory(m, 700);
        Batch copy = pool.acquire();
        b.shareCompletion(copy);
        b.release();
        assertThat(m.used()).as("a copy still holds it").isEqualTo(700);
        copy.release();
        assertThat(m.used()).isZero();
        assertThat(completed).hasValue(1);
        assertThat(failed).hasValue(0);
    }

    @Test
    void aFailedBatchIsNeverAcknowledgedAndStillReturnsItsMemory() {
        MemoryBudget m = new MemoryBudget(10_000);
        BatchPool pool = new BatchPool(4);
        AtomicInteger completed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        Batch b = pool.acquire();
        b.setCompletion(counting(completed, failed));
        m.tryReserve(300);
        b.holdMemory(m, 300);
        Batch part = pool.acquire();
        b.shareCompletion(part);
        part.fail();
        b.release();
        assertThat(completed).hasValue(0);
        assertThat(failed).hasValue(1);
        assertThat(m.used()).isZero();
    }

    @Test
    void aBatchWithoutCompletionGetsOneThatOnlyReturnsMemory() {
        MemoryBudget m = new MemoryBudget(1000);
        Batch b = new BatchPool(2).acquire();
        assertThat(b.holdsMemory()).isFalse();
        m.tryReserve(100);
        b.holdMemory(m, 100);
        assertThat(b.holdsMemory()).isTrue();
        b.release();
        assertThat(m.used()).isZero();
    }

    @Test
    void sizesParseAsOperatorsWriteThem() {
        assertThat(MemoryBudget.parseSize("4096")).isEqualTo(4096);
        assertThat(MemoryBudget.parseSize("64k")).isEqualTo(64 << 10);
        assertThat(MemoryBudget.parseSize("256m")).isEqualTo(256L << 20);
        assertThat(MemoryBudget.parseSize("1GiB")).isEqualTo(1L << 30);
        assertThat(MemoryBudget.parseSize("2MB")).isEqualTo(2L << 20);
        assertThatThrownBy(() -> MemoryBudget.parseSize("-5m")).hasMessageContaining("-5m");
        assertThatThrownBy(() -> MemoryBudget.parseSize("lots")).hasMessageContaining("lots");
        assertThatThrownBy(() -> MemoryBudget.parseSize("0")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMessageBufferThatGrewForOneLargeEventShrinksWhenReused() {
        BatchPool pool = new BatchPool(1);
        Batch b = pool.acquire();
        Message m = b.add();
        m.setPayload("x".repeat(1 << 20));
        m.metadata().setString("k", "v".repeat(100_000));
        assertThat(m.payload().length).isGreaterThanOrEqualTo(1 << 20);
        b.release();
        Batch again = pool.acquire();
        assertThat(again).isSameAs(b);
        Message reused = again.add();
        assertThat(reused.payload().length).isLessThanOrEqualTo(Message.RETAIN_CAPACITY);
        assertThat(reused.metadata().size()).isZero();
    }

    @Test
    void thePoolKeepsFreeBatchesOnlyUpToItsBytes() {
        BatchPool pool = new BatchPool(8, 64 * 1024);
        Batch[] out = new Batch[40];
        for (int i = 0; i < out.length; i++) {
            out[i] = pool.acquire();
            out[i].add().setPayload("y".repeat(4000));
        }
        for (Batch b : out) {
            b.release();
        }
        assertThat(pool.freeBytes()).as("bytes the free batches hold").isPositive().isLessThanOrEqualTo(64 * 1024);
        int reused = 0;
        for (int i = 0; i < out.length; i++) {
            Batch b = pool.acquire();
            for (Batch old : out) {
                if (b == old) {
                    reused++;
                }
            }
        }
        assertThat(reused).as("batches kept, each holding about 4.5 KB").isBetween(5, 14);
        assertThat(pool.freeBytes()).isZero();
    }

    private static Completion counting(AtomicInteger completed, AtomicInteger failed) {
        return new Completion() {
            @Override
            protected void onComplete() {
                completed.incrementAndGet();
            }

            @Override
            protected void onFailed() {
                failed.incrementAndGet();
            }
        };
    }
}
