package io.sluice.core.pipeline;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.net.ListenerHandover;
import io.sluice.core.net.ListenerHold;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@link Pipeline#reload}: compares the new config with the running plugins by id and settings, builds what is
 * new or changed, and swaps it in so that nothing accepted is lost.
 * <ol>
 *   <li>Build every new or changed producer, router and consumer (constructors validate): a bad config stops here,
 *       with nothing changed.</li>
 *   <li>Start the added producers (one that cannot start refuses the reload).</li>
 *   <li>Switch the dispatcher's routes to the new producers in one write.</li>
 *   <li>Retire the replaced and removed producers: each drains its buffer, and a batch routed to it just before the
 *       switch is routed again; then start their successors, which may need what they held (a file, a disk buffer's
 *       directory). Batches wait in a successor's memory buffer meanwhile, or until its disk buffer opens.</li>
 *   <li>Retire changed and removed consumers, then open and start the new ones; a listener on an unchanged address
 *       keeps its socket across the swap.</li>
 * </ol>
 */
final class Reloader {
    private final Pipeline pipeline;
    private final List<String> added = new ArrayList<>();
    private final List<String> replaced = new ArrayList<>();
    private final List<String> removed = new ArrayList<>();
    private int kept;
    /** Set when a plugin could not start after its predecessor stopped: the pipeline has been failed. */
    private String fatal;
    /** Set when a new consumer could not start: the rest of the reload stands, that consumer does not. */
    private String refused;

    Reloader(Pipeline pipeline) {
        this.pipeline = pipeline;
    }

    ReloadResult apply(List<PluginConfig> next) {
        Map<String, ProducerRunner> oldProducers = new LinkedHashMap<>();
        pipeline.producers().forEach(p -> oldProducers.put(p.producer().config().id(), p));
        Map<String, ConsumerRunner> oldConsumers = new LinkedHashMap<>();
        pipeline.consumerRunners().forEach(c -> oldConsumers.put(c.consumer().config().id(), c));
        Map<String, Dispatcher.RouteEntry> oldRoutes = new HashMap<>();
        pipeline.routes().forEach(r -> oldRoutes.put(r.config().id(), r));

        List<ProducerRunner> producers = new ArrayList<>();
        List<ProducerRunner> fresh = new ArrayList<>();
        List<Router> routers = new ArrayList<>();
        List<ConsumerRunner> consumers = new ArrayList<>();
        List<ConsumerRunner> freshConsumers = new ArrayList<>();
        try {
            Pipeline.validateChains(next);
            for (PluginConfig c : Pipeline.enabled(next, PluginKind.PRODUCER)) {
                ProducerRunner old = oldProducers.get(c.id());
                if (old != null && old.producer().config().sameSettings(c)) {
                    producers.add(old);
                } else {
                    ProducerRunner p = pipeline.newProducer(c, old != null ? old.stats() : new PluginStats(c.id(), c.type()));
                    producers.add(p);
                    fresh.add(p);
                }
            }
            Pipeline.enabled(next, PluginKind.ROUTER).forEach(c -> routers.add((Router) c.spec().create(c)));
            for (PluginConfig c : Pipeline.enabled(next, PluginKind.CONSUMER)) {
                ConsumerRunner old = oldConsumers.get(c.id());
                if (old != null && old.consumer().config().sameSettings(c)) {
                    consumers.add(old);
                } else {
                    ConsumerRunner r = pipeline.newConsumer(c, old != null ? old.stats() : new PluginStats(c.id(), c.type()));
                    consumers.add(r);
                    freshConsumers.add(r);
                }
            }
        } catch (ConfigException e) {
            return ReloadResult.failed(e.getMessage());
        } catch (RuntimeException e) {
            return ReloadResult.failed("the new config cannot be built: " + e);
        }
        List<Dispatcher.RouteEntry> routes = routes(routers, oldRoutes, producers);
        List<ProducerRunner> retiring = retiring(oldProducers.values(), producers);
        List<ConsumerRunner> retiringConsumers = retiring(oldConsumers.values(), consumers);
        if (fresh.isEmpty() && freshConsumers.isEmpty() && retiring.isEmpty() && retiringConsumers.isEmpty()
                && routes.equals(pipeline.routes())) {
            return new ReloadResult(true, List.of(), List.of(), List.of(), producers.size() + routes.size() + consumers.size(), null);
        }
        List<ProducerRunner> deferred = new ArrayList<>();
        try {
            startProducers(fresh, oldProducers, deferred);
        } catch (StartException e) {
            return ReloadResult.failed(e.getMessage());
        }
        pipeline.replace(producers, routes);
        swapProducers(retiring, deferred);
        swapConsumers(consumers, freshConsumers, retiringConsumers, oldConsumers);
        count(oldProducers.keySet(), ids(producers, p -> p.producer().config().id()), ids(fresh, p -> p.producer().config().id()));
        count(oldConsumers.keySet(), ids(consumers, c -> c.consumer().config().id()), ids(freshConsumers, c -> c.consumer().config().id()));
        countRoutes(oldRoutes, routes);
        String error = fatal != null ? fatal : refused != null ? "partly applied: " + refused : null;
        return new ReloadResult(error == null, added, replaced, removed, kept, error);
    }

    /** Configured routes: a router whose settings and producers did not change keeps its entry (and its state). */
    private List<Dispatcher.RouteEntry> routes(List<Router> routers, Map<String, Dispatcher.RouteEntry> old,
            List<ProducerRunner> producers) {
        List<Dispatcher.RouteEntry> out = new ArrayList<>();
        for (Router r : routers) {
            Dispatcher.RouteEntry before = old.get(r.config().id());
            boolean same = before != null && before.config().sameSettings(r.config());
            if (same && pipeline.dispatcher().boundTo(before, producers)) {
                out.add(before);
            } else {
                PluginStats stats = before != null ? before.stats : new PluginStats(r.config().id(), r.config().type());
                out.add(pipeline.dispatcher().newRoute(r, same ? before.chain : null, stats, producers));
            }
        }
        return out;
    }

    /** What ran before and does not run on: the replaced and the removed. */
    private static <T> List<T> retiring(java.util.Collection<T> old, List<T> next) {
        return old.stream().filter(p -> !next.contains(p)).toList();
    }

    /**
     * Starts the added producers beside the running ones (one that cannot start refuses the reload). A producer that
     * replaces one of the same id waits in {@code deferred} until its predecessor has stopped: they may share what
     * only one may hold open (a file it writes, a disk buffer's directory).
     */
    private void startProducers(List<ProducerRunner> fresh, Map<String, ProducerRunner> old,
            List<ProducerRunner> deferred) {
        List<ProducerRunner> started = new ArrayList<>();
        try {
            for (ProducerRunner p : fresh) {
                if (old.containsKey(p.producer().config().id())) {
                    deferred.add(p);
                } else {
                    pipeline.startProducer(p);
                    started.add(p);
                }
            }
        } catch (StartException e) {
            started.forEach(this::stopQuietly);
            throw e;
        }
    }

    private void swapProducers(List<ProducerRunner> retiring, List<ProducerRunner> deferred) {
        try {
            for (ProducerRunner p : retiring) {
                p.retire(p.producer().config().get(PluginSpec.SHUTDOWN_TIMEOUT_MS));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ProducerRunner p : deferred) {
            try {
                pipeline.startProducer(p);
            } catch (StartException e) {
                // Its predecessor is gone and batches wait for it: the pipeline cannot go on half-alive.
                fatal = p.producer().config().id() + " could not start: " + e.getMessage();
                pipeline.fail("reload: " + p.producer().config().id() + " could not start", e);
            }
        }
    }

    private void swapConsumers(List<ConsumerRunner> consumers, List<ConsumerRunner> fresh, List<ConsumerRunner> retiring,
            Map<String, ConsumerRunner> old) {
        long timeout = pipeline.maxShutdownTimeout();
        // Under the hold, a retiring consumer's listener stays bound (connections wait in its backlog) for the new
        // consumer on the same address to take: no connection is refused across the swap.
        try (ListenerHold hold = ListenerHandover.hold()) {
            retireAll(retiring, timeout);
            for (ConsumerRunner c : new ArrayList<>(fresh)) {
                if (!start(c)) {
                    fallBack(c, old.get(c.consumer().config().id()), consumers, fresh);
                }
            }
        }
        pipeline.replaceConsumers(consumers);
    }

    private static void retireAll(List<ConsumerRunner> retiring, long timeout) {
        try {
            for (ConsumerRunner c : retiring) {
                c.retire(timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Opens and starts a consumer; false, with the reason kept, when it cannot open (a port taken, a path missing). */
    private boolean start(ConsumerRunner c) {
        try {
            c.open();
        } catch (StartException e) {
            String why = c.consumer().config().id() + " could not start: " + e.getMessage();
            refused = refused == null ? why : refused + "; " + why;
            return false;
        }
        if (c.endsPipeline()) {
            pipeline.addEndingConsumer();
        }
        c.start();
        return true;
    }

    /**
     * A new consumer that could not open: the one it replaces is started again with its previous settings (under the
     * hold it takes its listener back), and an added one is left out; the reload is reported as refused for it. Only
     * when the previous settings cannot start either is the process failed: an input nobody serves is not left behind.
     */
    private void fallBack(ConsumerRunner failed, ConsumerRunner before, List<ConsumerRunner> consumers,
            List<ConsumerRunner> fresh) {
        fresh.remove(failed);
        int at = consumers.indexOf(failed);
        consumers.remove(at);
        if (before == null) {
            return;
        }
        ConsumerRunner back = pipeline.newConsumer(before.consumer().config(), before.stats());
        if (start(back)) {
            consumers.add(at, back);
            refused += " (it runs on with its previous settings)";
        } else {
            fatal = refused;
            pipeline.fail("reload: " + before.consumer().config().id() + " could not start again", new StartException(
                    before.consumer().config().id(), new IllegalStateException(refused)));
        }
    }

    private void stopQuietly(ProducerRunner p) {
        try {
            p.stop(p.producer().config().get(PluginSpec.SHUTDOWN_TIMEOUT_MS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static <T> List<String> ids(List<T> items, java.util.function.Function<T, String> id) {
        return items.stream().map(id).toList();
    }

    private void count(java.util.Set<String> before, List<String> after, List<String> fresh) {
        for (String id : after) {
            if (!fresh.contains(id)) {
                kept++;
            } else if (before.contains(id)) {
                replaced.add(id);
            } else {
                added.add(id);
            }
        }
        before.stream().filter(id -> !after.contains(id)).forEach(removed::add);
    }

    private void countRoutes(Map<String, Dispatcher.RouteEntry> before, List<Dispatcher.RouteEntry> after) {
        List<String> ids = new ArrayList<>();
        for (Dispatcher.RouteEntry e : after) {
            String id = e.config().id();
            ids.add(id);
            if (before.get(id) == e) {
                kept++;
            } else if (before.containsKey(id)) {
                replaced.add(id);
            } else {
                added.add(id);
            }
        }
        before.keySet().stream().filter(id -> !ids.contains(id)).forEach(removed::add);
    }
}
