package io.sluice.forward.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The failed-handshake table on a clock the test moves. */
class AuthFailuresTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private long now = 1_000 * SECOND;
    private final AuthFailures table = new AuthFailures(3, 8 * SECOND, 100, () -> now);

    private static InetAddress ip(String s) throws Exception {
        return InetAddress.getByName(s);
    }

    @Test
    void blocksAfterTheLimitAndDoublesEachFurtherFailureUpToTheCap() throws Exception {
        InetAddress a = ip("192.0.2.1");
        assertThat(table.failed(a).blocked()).isFalse();
        assertThat(table.failed(a).blocked()).isFalse();
        assertThat(table.blockedFor(a)).isZero();
        assertThat(table.failed(a).blockNanos()).as("the third failure").isEqualTo(SECOND);
        assertThat(table.blockedFor(a)).isEqualTo(SECOND);
        now += SECOND / 2;
        assertThat(table.blockedFor(a)).isEqualTo(SECOND / 2);
        now += SECOND / 2;
        assertThat(table.blockedFor(a)).as("the block passed").isZero();
        assertThat(table.failed(a).blockNanos()).isEqualTo(2 * SECOND);
        now += 2 * SECOND;
        assertThat(table.failed(a).blockNanos()).isEqualTo(4 * SECOND);
        now += 4 * SECOND;
        assertThat(table.failed(a).blockNanos()).isEqualTo(8 * SECOND);
        now += 8 * SECOND;
        assertThat(table.failed(a).blockNanos()).as("capped").isEqualTo(8 * SECOND);
        assertThat(table.blockedFor(ip("192.0.2.2"))).as("another address").isZero();
    }

    @Test
    void aSuccessForgetsTheAddress() throws Exception {
        InetAddress a = ip("192.0.2.1");
        table.failed(a);
        table.failed(a);
        table.succeeded(a);
        assertThat(table.size()).isZero();
        assertThat(table.failed(a).blocked()).as("counting starts again").isFalse();
    }

    @Test
    void failuresFarApartDoNotAddUpAndTheWindowStartsAfterABlock() throws Exception {
        InetAddress a = ip("192.0.2.1");
        table.failed(a);
        table.failed(a);
        now += AuthFailures.WINDOW_NANOS + 1;
        assertThat(table.failed(a).failures()).isEqualTo(1);
        table.failed(a);
        table.failed(a);
        for (int i = 0; i < 3; i++) {
            now += table.blockedFor(a);
            table.failed(a);
        }
        assertThat(table.blockedFor(a)).isEqualTo(8 * SECOND);
        // A window after the last failure but within one of the block's end: still counted, still the longest block.
        now += AuthFailures.WINDOW_NANOS + SECOND;
        assertThat(table.failed(a).blockNanos()).isEqualTo(8 * SECOND);
    }

    @Test
    void staysBoundedAgainstManyAddressesDroppingTheOldestFirst() throws Exception {
        InetAddress first = ip("10.0.0.0");
        for (int i = 0; i < 3; i++) {
            table.failed(first);
        }
        for (int i = 1; i <= 100_000; i++) {
            table.failed(InetAddress.getByAddress(new byte[] {10, (byte) (i >> 16), (byte) (i >> 8), (byte) i}));
            assertThat(table.size()).isLessThanOrEqualTo(100);
        }
        assertThat(table.size()).isEqualTo(100);
        assertThat(table.blockedFor(first)).as("the oldest was dropped").isZero();
        // A looked-up address is not kept young by its connections: only failures count.
        InetAddress busy = ip("10.1.0.0");
        for (int i = 0; i < 3; i++) {
            table.failed(busy);
        }
        for (int i = 0; i < 100; i++) {
            table.blockedFor(busy);
            table.failed(InetAddress.getByAddress(new byte[] {11, 0, 0, (byte) i}));
        }
        assertThat(table.blockedFor(busy)).isZero();
    }

    @Test
    void ipv6PeersCountByTheirSlash64() throws Exception {
        table.failed(ip("2001:db8:1:2::1"));
        table.failed(ip("2001:db8:1:2::ffff"));
        assertThat(table.failed(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).blocked()).isTrue();
        assertThat(table.blockedFor(ip("2001:db8:1:3::1"))).isZero();
        assertThat(table.blockedFor(ip("2001:db8:1:2::77"))).isPositive();
    }

    @Test
    void offWithLimitZero() throws Exception {
        AuthFailures off = new AuthFailures(0, SECOND, 100, () -> now);
        for (int i = 0; i < 10; i++) {
            assertThat(off.failed(ip("192.0.2.1")).blocked()).isFalse();
        }
        assertThat(off.size()).isZero();
    }
}
