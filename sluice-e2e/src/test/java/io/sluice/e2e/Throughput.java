package io.sluice.e2e;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Rates from samples of a monotonic counter, to show what a disturbance (a reload) cost. */
final class Throughput {
    private Throughput() {
    }

    /**
     * The median rate of the sampling windows that overlap no event window (from each event to {@code spanMillis}
     * after it) and counted something, against the median and the lowest of those that do overlap one.
     *
     * @param samples {nanoTime, counter} pairs in time order
     */
    static String dip(List<long[]> samples, List<Long> events, long spanMillis) {
        List<Double> quiet = new ArrayList<>();
        List<Double> disturbed = new ArrayList<>();
        for (int i = 1; i < samples.size(); i++) {
            long t0 = samples.get(i - 1)[0];
            long t1 = samples.get(i)[0];
            double rate = (samples.get(i)[1] - samples.get(i - 1)[1]) * 1e9 / Math.max(1, t1 - t0);
            boolean near = false;
            for (long e : events) {
                near |= t1 > e && t0 < e + spanMillis * 1_000_000L;
            }
            if (near) {
                disturbed.add(rate);
            } else if (rate > 0) {
                quiet.add(rate); // before the first event and after the last (rate 0: not started, or done)
            }
        }
        return String.format("throughput %,.0f events/s median outside reloads, %,.0f median and %,.0f lowest (100 ms "
                + "windows) within %d ms after a reload", median(quiet), median(disturbed),
                disturbed.isEmpty() ? 0.0 : Collections.min(disturbed), spanMillis);
    }

    private static double median(List<Double> xs) {
        if (xs.isEmpty()) {
            return 0;
        }
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
