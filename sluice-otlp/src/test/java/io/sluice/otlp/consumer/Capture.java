package io.sluice.otlp.consumer;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.PermanentDeliveryException;
import io.sluice.core.pipeline.Producer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/** Test producer (as sluice-hec's): records what it is given, by plugin id; can be held shut or made to fail. */
public final class Capture extends Producer {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "test.Capture",
            "Test: records delivered messages.").factory(Capture::new);

    /** One delivered message, copied out of the reused batch. */
    public record Event(String payload, long timestamp, Map<String, String> fields, Map<String, Byte> kinds) {
    }

    private static final Map<String, List<Event>> RECEIVED = new ConcurrentHashMap<>();
    private static final Map<String, CountDownLatch> GATES = new ConcurrentHashMap<>();
    private static final Set<String> FAILING = ConcurrentHashMap.newKeySet();

    public Capture(PluginConfig config) {
        super(config);
    }

    /** Makes deliveries of plugin {@code id} fail for good until {@link #reset}. */
    public static void failDeliveries(String id) {
        FAILING.add(id);
    }

    /** Holds deliveries of plugin {@code id} until {@link #open(String)}. */
    public static void close(String id) {
        GATES.put(id, new CountDownLatch(1));
    }

    public static void open(String id) {
        CountDownLatch l = GATES.remove(id);
        if (l != null) {
            l.countDown();
        }
    }

    public static List<Event> received(String id) {
        List<Event> l = RECEIVED.computeIfAbsent(id, k -> Collections.synchronizedList(new ArrayList<>()));
        synchronized (l) {
            return new ArrayList<>(l);
        }
    }

    public static void reset(String id) {
        RECEIVED.remove(id);
        open(id);
        FAILING.remove(id);
    }

    static Event snapshot(Message m) {
        Map<String, String> f = new LinkedHashMap<>();
        Map<String, Byte> k = new LinkedHashMap<>();
        if (m.hasMetadata()) {
            Metadata md = m.metadata();
            for (int i = 0; i < md.size(); i++) {
                f.put(md.key(i), md.value(i));
                k.put(md.key(i), md.kind(i));
            }
        }
        return new Event(m.payloadString(), m.timestamp(), f, k);
    }

    @Override
    public void deliver(Batch batch) throws InterruptedException, PermanentDeliveryException {
        CountDownLatch gate = GATES.get(config.id());
        if (gate != null) {
            gate.await();
        }
        if (FAILING.contains(config.id())) {
            throw new PermanentDeliveryException("Capture " + config.id() + " told to fail");
        }
        List<Event> l = RECEIVED.computeIfAbsent(config.id(), k -> Collections.synchronizedList(new ArrayList<>()));
        for (int i = 0; i < batch.size(); i++) {
            l.add(snapshot(batch.get(i)));
        }
    }
}
