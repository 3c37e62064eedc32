package io.sluice.cli;

import io.sluice.core.Daemon;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.ProducerRunner;
import java.util.List;
import java.util.Locale;

/** The live stats line on stderr, once a second: rates in and out, queue fill, totals. */
final class StatsLine {
    private final Pipeline pipeline;
    private final Log log;
    private Thread thread;
    private volatile boolean running = true;

    StatsLine(Pipeline pipeline, Log log) {
        this.pipeline = pipeline;
        this.log = log;
    }

    void start() {
        thread = Daemon.start("stats-line", this::loop);
    }

    void stop() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(1000);
    }

    private void loop() {
        List<PluginStats> consumers = pipeline.consumerStats();
        List<ProducerRunner> producers = pipeline.producers();
        long[] lastIn = new long[consumers.size()];
        long[] lastOut = new long[producers.size()];
        long last = System.nanoTime();
        while (running) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            double secs = (now - last) / 1e9;
            last = now;
            StringBuilder b = new StringBuilder("[stats]");
            long generated = 0;
            long genRate = 0;
            for (int i = 0; i < consumers.size(); i++) {
                long in = consumers.get(i).in();
                genRate += in - lastIn[i];
                generated += in;
                lastIn[i] = in;
            }
            b.append(" in ").append(rate(genRate / secs)).append("/s");
            for (int i = 0; i < producers.size(); i++) {
                ProducerRunner p = producers.get(i);
                long out = p.stats().out();
                b.append(" | ").append(p.stats().id()).append(' ').append(rate((out - lastOut[i]) / secs)).append("/s")
                        .append(" q ").append(p.buffer().depth() * 100 / Math.max(1, p.buffer().capacity())).append('%');
                if (p.stats().failed() > 0) {
                    b.append(" failed ").append(p.stats().failed());
                }
                lastOut[i] = out;
            }
            b.append(" | total in ").append(rate(generated));
            if (running) {
                log.status(b.toString());
            }
        }
    }

    static String rate(double v) {
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", v / 1e6);
        }
        if (v >= 1e3) {
            return String.format(Locale.ROOT, "%.1fk", v / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f", v);
    }
}
