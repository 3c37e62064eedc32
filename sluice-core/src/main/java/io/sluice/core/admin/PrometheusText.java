package io.sluice.core.admin;

import io.sluice.core.buffer.ProducerBuffer;
import io.sluice.core.pipeline.LatencyHistogram;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.PluginInfo;
import io.sluice.core.pipeline.PluginStats;
import io.sluice.core.pipeline.Reloads;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/** Renders a pipeline's counters, and the JVM's memory and GC, in the Prometheus text format (0.0.4). */
final class PrometheusText {
    private PrometheusText() {
    }

    static String render(Pipeline pipeline) {
        StringBuilder b = new StringBuilder(4096);
        List<PluginInfo> plugins = pipeline.plugins();
        series(b, plugins, "sluice_messages_in_total", "Messages that entered a plugin (generated or dequeued).", PluginStats::in);
        series(b, plugins, "sluice_messages_out_total", "Messages a plugin published (consumer) or delivered (producer).", PluginStats::out);
        series(b, plugins, "sluice_messages_dropped_total", "Messages a filter sent to the fallback stream.", PluginStats::dropped);
        series(b, plugins, "sluice_messages_discarded_total", "Messages removed for good (counted, with a logged reason).", PluginStats::discarded);
        series(b, plugins, "sluice_messages_failed_total", "Messages whose delivery failed.", PluginStats::failed);
        series(b, plugins, "sluice_messages_retried_total", "Messages sent again after a retryable failure.", PluginStats::retried);
        series(b, plugins, "sluice_bytes_out_total", "Payload bytes delivered.", PluginStats::bytesOut);
        series(b, plugins, "sluice_connections", "Open connections.", PluginStats::connections);
        series(b, plugins, "sluice_buffer_bytes", "Bytes held in a producer's buffer.", PluginStats::bufferedBytes);
        series(b, plugins, "sluice_buffer_corrupt_records_total", "Disk buffer records skipped as corrupt or torn.",
                PluginStats::corruptRecords);
        rejected(b, plugins);
        queues(b, plugins);
        latency(b, plugins);
        ownCounters(b, plugins);
        header(b, "sluice_unrouted_discarded_total", "counter", "Messages discarded because no producer read their stream.");
        b.append("sluice_unrouted_discarded_total ").append(pipeline.unroutedDiscarded()).append('\n');
        memory(b, pipeline);
        reloads(b, pipeline.reloads());
        header(b, "sluice_ready", "gauge", "1 when every consumer accepts input and every producer can deliver.");
        b.append("sluice_ready ").append(pipeline.isReady() ? 1 : 0).append('\n');
        jvm(b);
        return b.toString();
    }

    private static void reloads(StringBuilder b, Reloads r) {
        header(b, "sluice_config_reloads_total", "counter", "Config reloads by outcome: applied (the pipeline changed), "
                + "unchanged (the same config), failed (refused; the pipeline ran on as it was).");
        b.append("sluice_config_reloads_total{result=\"applied\"} ").append(r.applied()).append('\n');
        b.append("sluice_config_reloads_total{result=\"unchanged\"} ").append(r.unchanged()).append('\n');
        b.append("sluice_config_reloads_total{result=\"failed\"} ").append(r.failed()).append('\n');
        header(b, "sluice_config_last_reload_successful", "gauge", "0 when the last reload was refused, else 1.");
        b.append("sluice_config_last_reload_successful ").append(r.lastSucceeded() ? 1 : 0).append('\n');
    }

    /** One value per plugin; a name ending in {@code _total} is a counter, as Prometheus names them, else a gauge. */
    private static void series(StringBuilder b, List<PluginInfo> plugins, String name, String help,
                               ToLongFunction<PluginStats> f) {
        header(b, name, name.endsWith("_total") ? "counter" : "gauge", help);
        for (PluginInfo p : plugins) {
            b.append(name).append(labels(p)).append(' ').append(f.applyAsLong(p.stats())).append('\n');
        }
    }

    /** The counters plugins registered themselves, each name with one header, in the order first seen. */
    private static void ownCounters(StringBuilder b, List<PluginInfo> plugins) {
        java.util.LinkedHashMap<String, StringBuilder> byName = new java.util.LinkedHashMap<>();
        for (PluginInfo p : plugins) {
            for (PluginStats.Counter c : p.stats().counters()) {
                StringBuilder lines = byName.computeIfAbsent(c.name(), n -> {
                    StringBuilder h = new StringBuilder();
                    header(h, n, "counter", c.help());
                    return h;
                });
                lines.append(c.name()).append(labels(p)).append(' ').append(c.value().get()).append('\n');
            }
        }
        byName.values().forEach(b::append);
    }

    /** Refusals per input and reason; only inputs (consumers) refuse, so producers are left out. */
    private static void rejected(StringBuilder b, List<PluginInfo> plugins) {
        String name = "sluice_rejected_total";
        header(b, name, "counter", "Requests, frames, connections or lines an input refused, by reason.");
        for (PluginInfo p : plugins) {
            if (p.queue() != null) {
                continue;
            }
            String base = "{plugin=\"" + p.id() + "\",type=\"" + p.type() + "\",kind=\"" + p.kind() + "\",reason=\"";
            for (io.sluice.core.pipeline.Rejection r : io.sluice.core.pipeline.Rejection.values()) {
                b.append(name).append(base).append(r.label()).append("\"} ").append(p.stats().rejected(r)).append('\n');
            }
        }
    }

    private static void memory(StringBuilder b, Pipeline pipeline) {
        io.sluice.core.message.MemoryBudget m = pipeline.memory();
        header(b, "sluice_memory_budget_bytes", "gauge", "The memory budget inputs reserve from (--memory-limit).");
        b.append("sluice_memory_budget_bytes ").append(m.limit()).append('\n');
        header(b, "sluice_memory_used_bytes", "gauge", "Bytes of the memory budget reserved now.");
        b.append("sluice_memory_used_bytes ").append(m.used()).append('\n');
        header(b, "sluice_memory_refused_total", "counter", "Reservations refused because the budget was spent (push back).");
        b.append("sluice_memory_refused_total ").append(m.refused()).append('\n');
    }

    private static void queues(StringBuilder b, List<PluginInfo> plugins) {
        header(b, "sluice_queue_depth", "gauge", "Messages waiting in a producer's queue (bytes for a disk buffer).");
        for (PluginInfo p : plugins) {
            if (p.queue() != null) {
                b.append("sluice_queue_depth").append(labels(p)).append(' ').append(p.queue().depth()).append('\n');
            }
        }
        header(b, "sluice_queue_capacity", "gauge", "Bound of a producer's queue in messages.");
        for (PluginInfo p : plugins) {
            ProducerBuffer q = p.queue();
            if (q != null) {
                b.append("sluice_queue_capacity").append(labels(p)).append(' ').append(q.capacity()).append('\n');
            }
        }
    }

    private static void latency(StringBuilder b, List<PluginInfo> plugins) {
        String name = "sluice_send_latency_seconds";
        header(b, name, "histogram", "Time a producer took to deliver one batch.");
        for (PluginInfo p : plugins) {
            if (p.queue() == null) {
                continue;
            }
            LatencyHistogram h = p.stats().sendLatency();
            String base = "plugin=\"" + p.id() + "\",type=\"" + p.type() + "\"";
            long cumulative = 0;
            for (int i = 0; i <= LatencyHistogram.BOUNDS.length; i++) {
                cumulative += h.bucket(i);
                String le = i < LatencyHistogram.BOUNDS.length ? Double.toString(LatencyHistogram.BOUNDS[i]) : "+Inf";
                b.append(name).append("_bucket{").append(base).append(",le=\"").append(le).append("\"} ").append(cumulative).append('\n');
            }
            b.append(name).append("_sum{").append(base).append("} ").append(String.format(Locale.ROOT, "%.6f", h.sumSeconds())).append('\n');
            b.append(name).append("_count{").append(base).append("} ").append(cumulative).append('\n');
        }
    }

    private static void jvm(StringBuilder b) {
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        MemoryUsage nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();
        header(b, "jvm_memory_used_bytes", "gauge", "Used JVM memory.");
        b.append("jvm_memory_used_bytes{area=\"heap\"} ").append(heap.getUsed()).append('\n');
        b.append("jvm_memory_used_bytes{area=\"nonheap\"} ").append(nonHeap.getUsed()).append('\n');
        header(b, "jvm_memory_committed_bytes", "gauge", "Committed JVM memory.");
        b.append("jvm_memory_committed_bytes{area=\"heap\"} ").append(heap.getCommitted()).append('\n');
        b.append("jvm_memory_committed_bytes{area=\"nonheap\"} ").append(nonHeap.getCommitted()).append('\n');
        header(b, "jvm_memory_max_bytes", "gauge", "Maximum JVM heap.");
        b.append("jvm_memory_max_bytes{area=\"heap\"} ").append(heap.getMax()).append('\n');
        header(b, "jvm_gc_collections_total", "counter", "Garbage collections.");
        List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
        for (GarbageCollectorMXBean gc : gcs) {
            b.append("jvm_gc_collections_total{gc=\"").append(gc.getName()).append("\"} ").append(gc.getCollectionCount()).append('\n');
        }
        header(b, "jvm_gc_collection_seconds_total", "counter", "Time spent in garbage collection.");
        for (GarbageCollectorMXBean gc : gcs) {
            b.append("jvm_gc_collection_seconds_total{gc=\"").append(gc.getName()).append("\"} ")
                    .append(String.format(Locale.ROOT, "%.3f", gc.getCollectionTime() / 1000.0)).append('\n');
        }
        header(b, "jvm_threads_live", "gauge", "Live JVM threads.");
        b.append("jvm_threads_live ").append(ManagementFactory.getThreadMXBean().getThreadCount()).append('\n');
    }

    private static void header(StringBuilder b, String name, String type, String help) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static String labels(PluginInfo p) {
        return "{plugin=\"" + p.id() + "\",type=\"" + p.type() + "\",kind=\"" + p.kind() + "\"}";
    }
}
