package io.sluice.core.pipeline;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Streams;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sends batches to the router of their stream. A batch whose messages travel on several streams is split
 * first (by moving messages, not copying). Streams without a configured router get a {@code router.Broadcast};
 * streams met only at run time (a formatter re-routed a message) get one on first use, reading the
 * wildcard producers.
 */
final class Dispatcher {
    private volatile List<ProducerRunner> producers = List.of();
    private final PluginRegistry registry;
    private final Log log;
    private final AtomicLong discarded = new AtomicLong();
    private volatile RouteEntry[] routes = new RouteEntry[0];
    /** Set by {@link StreamWatch#install} for {@code sluice test}; null in a running pipeline. */
    private volatile StreamWatch watch;

    /**
     * A router with its modulators and its stream. Routers' modulators are shared by every publishing thread, so they
     * run synchronized. A router is bound to the producers reading its stream when it is made and never rebound (it
     * may be distributing on another thread): a reload that changes those producers makes a new router.
     */
    static final class RouteEntry {
        final Router router;
        final ModulatorChain chain;
        final PluginStats stats;
        final int stream;

        RouteEntry(Router router, ModulatorChain chain, PluginStats stats, int stream) {
            this.router = router;
            this.chain = chain;
            this.stats = stats;
            this.stream = stream;
        }

        PluginConfig config() {
            return router.config();
        }
    }

    Dispatcher(PluginRegistry registry, Log log) {
        this.registry = registry;
        this.log = log;
    }

    void watch(StreamWatch w) {
        this.watch = w;
    }

    /**
     * A configured router bound to the producers of {@code producers} that read its stream.
     *
     * @param chain its modulators, or null to build them from its config
     */
    RouteEntry newRoute(Router router, ModulatorChain chain, PluginStats stats, List<ProducerRunner> producers) {
        PluginConfig c = router.config();
        int stream = Streams.id(c.get(io.sluice.core.config.PluginSpec.STREAM));
        int fallback = Streams.id(c.get(io.sluice.core.config.PluginSpec.FALLBACK_STREAM));
        router.bind(readersOf(stream, producers), this);
        if (chain == null) {
            chain = new ModulatorChain(c.get(io.sluice.core.config.PluginSpec.MODULATORS), fallback);
        }
        return new RouteEntry(router, chain, stats, stream);
    }

    /**
     * Switches to a new set of producers and configured routes, in one write. Streams without a configured router
     * get a new default one on their next batch, bound to the new producers.
     */
    synchronized void install(List<ProducerRunner> producers, List<RouteEntry> configured) {
        this.producers = producers;
        RouteEntry[] r = new RouteEntry[Math.max(routes.length, Streams.count())];
        for (RouteEntry e : configured) {
            if (e.stream >= r.length) {
                r = Arrays.copyOf(r, e.stream + 1);
            }
            r[e.stream] = e;
        }
        routes = r;
    }

    /** Whether {@code e} still routes to exactly the producers of {@code producers} that read its stream. */
    boolean boundTo(RouteEntry e, List<ProducerRunner> producers) {
        return e.router.targets().equals(readersOf(e.stream, producers));
    }

    /** Routes a batch; it is the dispatcher's afterwards. */
    void dispatch(Batch batch) throws InterruptedException {
        int n = batch.size();
        if (n == 0) {
            batch.release();
            return;
        }
        int stream = batch.get(0).stream();
        for (int i = 1; i < n; i++) {
            if (batch.get(i).stream() != stream) {
                splitByStream(batch);
                return;
            }
        }
        route(stream, batch);
    }

    private void splitByStream(Batch batch) throws InterruptedException {
        List<Batch> parts = new ArrayList<>(4);
        int[] streams = new int[4];
        for (int i = 0; i < batch.size(); i++) {
            int s = batch.get(i).stream();
            int p = 0;
            while (p < parts.size() && streams[p] != s) {
                p++;
            }
            if (p == parts.size()) {
                Batch part = batch.pool().acquire();
                batch.shareCompletion(part);
                parts.add(part);
                if (p == streams.length) {
                    streams = Arrays.copyOf(streams, p * 2);
                }
                streams[p] = s;
            }
            batch.moveTo(i, parts.get(p));
        }
        batch.release();
        for (int p = 0; p < parts.size(); p++) {
            route(streams[p], parts.get(p));
        }
    }

    private void route(int stream, Batch batch) throws InterruptedException {
        StreamWatch w = watch;
        if (w != null) {
            w.reached(stream, batch);
        }
        RouteEntry e = entry(stream);
        if (!e.chain.isEmpty()) {
            synchronized (e.chain) {
                e.chain.apply(batch, this, e.stats);
            }
            if (batch.isEmpty()) {
                batch.release();
                return;
            }
        }
        e.stats.addIn(batch.size());
        if (e.router.targets().isEmpty() && !e.router.forwardsToStreams()) {
            discard(batch, "no producer reads stream " + Streams.name(stream));
            return;
        }
        e.stats.addOut(batch.size());
        e.router.distribute(batch);
    }

    private RouteEntry entry(int stream) {
        RouteEntry[] r = routes;
        if (stream < r.length && r[stream] != null) {
            return r[stream];
        }
        return defaultRoute(stream);
    }

    private synchronized RouteEntry defaultRoute(int stream) {
        RouteEntry[] r = routes;
        if (stream < r.length && r[stream] != null) {
            return r[stream];
        }
        String name = Streams.name(stream);
        PluginConfig c = PluginConfig.of("router(" + name + ")", "router.Broadcast", Map.of("Stream", name));
        Router router = (Router) registry.find("router.Broadcast").create(c);
        router.bind(readersOf(stream, producers), this);
        RouteEntry e = new RouteEntry(router, new ModulatorChain(List.of(), Streams.DROPPED),
                new PluginStats(c.id(), "router.Broadcast"), stream);
        install(stream, e);
        return e;
    }

    private void install(int stream, RouteEntry e) {
        RouteEntry[] r = routes;
        if (stream >= r.length) {
            r = Arrays.copyOf(r, Math.max(stream + 1, Streams.count()));
        } else {
            r = r.clone();
        }
        r[stream] = e;
        routes = r;
    }

    /** Producers subscribed to a stream; wildcard producers read every stream whose name does not start with '_'. */
    private static List<ProducerRunner> readersOf(int stream, List<ProducerRunner> producers) {
        boolean internal = Streams.isInternal(Streams.name(stream));
        return producers.stream().filter(p -> p.reads(stream) || (!internal && p.readsWildcard())).toList();
    }

    /** Whether a batch routed to {@code stream} reaches a producer (or a router that forwards it on). */
    boolean delivers(int stream) {
        RouteEntry e = entry(stream);
        return !e.router.targets().isEmpty() || e.router.forwardsToStreams();
    }

    /** Discards a batch that was not delivered: counted as {@link #discard} does, and its source is told it failed. */
    void discardFailed(Batch batch, String reason) {
        if (batch.completion() != null) {
            batch.completion().fail();
        }
        discard(batch, reason);
    }

    void discard(Batch batch, String reason) {
        long before = discarded.getAndAdd(batch.size());
        if (before == 0) {
            log.warn("discarding messages: " + reason + " (counted; further discards are only counted)");
        }
        batch.release();
    }

    /** Messages discarded because no producer read their stream. */
    long discarded() {
        return discarded.get();
    }
}
