package io.sluice.kafka.producer;

import io.sluice.core.config.PluginConfig;
import io.sluice.kafka.KafkaParams;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RoundRobinPartitioner;

/**
 * producer.Kafka's settings as kafka-clients producer properties: acknowledgements and idempotence, requests in
 * flight, compression, timeouts, batching and the partitioner, on top of the shared ones ({@link KafkaParams}),
 * with {@code Settings} applied last.
 */
final class ProducerProperties {
    private ProducerProperties() {
    }

    /** Whether {@code RequiredAcks} asks every in-sync replica (-1, or Gollum's values above 1). */
    static boolean allAcks(PluginConfig c) {
        int acks = c.get(KafkaProducer.REQUIRED_ACKS);
        return acks < 0 || acks > 1;
    }

    /** The warning for Idempotence left on with fewer acks (it is then turned off), or null. */
    static String acksNote(PluginConfig c) {
        return c.get(KafkaProducer.IDEMPOTENCE) && !allAcks(c) ? c.id() + ": RequiredAcks "
                + c.get(KafkaProducer.REQUIRED_ACKS) + " turns idempotence off; records may be lost or duplicated" : null;
    }

    /** The client properties of a producer with these settings. */
    static Properties of(PluginConfig config) {
        Properties p = KafkaParams.clientProperties(config);
        boolean all = allAcks(config);
        boolean idempotent = config.get(KafkaProducer.IDEMPOTENCE) && all;
        p.put(ProducerConfig.ACKS_CONFIG, all ? "all" : String.valueOf(config.get(KafkaProducer.REQUIRED_ACKS)));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, String.valueOf(idempotent));
        int inFlight = config.get(KafkaParams.MAX_OPEN_REQUESTS);
        if (idempotent && inFlight > 5) {
            throw config.error(KafkaParams.MAX_OPEN_REQUESTS, "at most 5 with idempotence (Kafka keeps order only"
                    + " for 5 requests in flight), found " + inFlight);
        }
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, String.valueOf(Math.max(1, inFlight)));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, config.get(KafkaProducer.COMPRESSION));
        int timeout = config.get(KafkaProducer.TIMEOUT_MS);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(timeout));
        int linger = Math.max(0, config.get(KafkaProducer.BATCH_TIMEOUT_MS));
        // The client insists delivery.timeout.ms >= linger.ms + request.timeout.ms.
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                String.valueOf(Math.max(config.get(KafkaProducer.DELIVERY_TIMEOUT_MS), linger + timeout)));
        p.put(ProducerConfig.LINGER_MS_CONFIG, String.valueOf(linger));
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(config.get(KafkaProducer.BATCH_MIN_SIZE_BYTE)));
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, String.valueOf(config.get(KafkaProducer.BATCH_SIZE_MAX_KB) * 1024));
        // Sticky, Random, Hash and Default are the client's own (sticky) partitioner.
        if (config.get(KafkaProducer.PARTITIONER).equals("Roundrobin")) {
            p.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, RoundRobinPartitioner.class.getName());
        }
        KafkaParams.applySettings(config, p);
        return p;
    }
}
