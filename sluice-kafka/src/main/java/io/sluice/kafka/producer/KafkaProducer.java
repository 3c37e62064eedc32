package io.sluice.kafka.producer;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PermanentDeliveryException;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.kafka.KafkaParams;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code producer.Kafka}: writes each message as one Kafka record. The payload is the value; the key comes from
 * a metadata field ({@code KeyFrom}); headers from metadata fields ({@code HeadersFrom}); the record timestamp is
 * the message's (milliseconds); the topic from Gollum's {@code Topics} stream map or the {@code Topic} template
 * (default: the stream name, as in Gollum).
 *
 * <p><b>Acknowledgement.</b> {@link #deliver} returns only once Kafka acknowledged every record of the batch
 * (with the default {@code RequiredAcks: -1}, every in-sync replica has it), so the batch's completion, the
 * upstream acknowledgement, fires only then. The producer is idempotent by default, so the client's own retries
 * never duplicate or reorder. Records that still fail are sent again up to {@code SendRetries} times if the error
 * is retriable. Then the failed records are moved to the front of the batch, given the reason in metadata field
 * {@code ErrorField}, and the rest of the batch is cut off before {@code deliver} throws: only they are retried by
 * the pipeline ({@code Retry/*}, with backoff) or, when no failure is retriable (too large, invalid topic, not
 * authorized), sent straight to the fallback stream ({@link PermanentDeliveryException}).
 *
 * <p><b>Throughput.</b> Several pipeline workers ({@code ModulatorRoutines: N}) may call {@code deliver} at once
 * ({@link #concurrent()}): each waits for its own batch, and the client packs their records into shared requests.
 * One worker has one batch in flight at a time; four keep a local broker busy.
 *
 * <p><b>Per event</b> the Kafka API needs a ProducerRecord and exact-length value (and key) arrays; the topic
 * String is cached per stream or per rendered name, and nothing else is allocated unless headers are asked for.
 */
public final class KafkaProducer extends io.sluice.core.pipeline.Producer {
    public static final Param<String> TOPIC = Param.string("Topic", "",
            "Topic template used when Topics maps neither the stream nor \"*\": text with {stream}, {tag} and"
                    + " {metadataField} references. Empty: the stream name.");
    public static final Param<Map<String, String>> TOPICS = Param.stringMap("Topics",
            "Gollum's stream-to-topic map; \"*\" maps every other stream. Values may be templates as in Topic.");
    public static final Param<String> KEY_FROM = Param.string("KeyFrom", "",
            "Metadata field whose value is the record key (and so picks the partition). Empty: no key.");
    public static final Param<String> KEY_META_FIELD = Param.string("KeyMetaField", "",
            "Older Gollum spelling of KeyFrom.");
    public static final Param<List<String>> HEADERS_FROM = Param.strings("HeadersFrom", List.of(),
            "Metadata fields copied into record headers of the same name; \"*\" copies every field.");
    public static final Param<String> COMPRESSION = Param.choice("Compression", "zstd",
            "none, gzip (Gollum: zip), snappy, lz4 or zstd. zstd packs telemetry best for its CPU cost.",
            "none", "gzip", "snappy", "lz4", "zstd").alias("zip", "gzip").alias("", "none");
    public static final Param<Integer> REQUIRED_ACKS = Param.integer("RequiredAcks", -1,
            "-1: every in-sync replica (acks=all, required for idempotence); 1: the leader only; 0: none.");
    public static final Param<Boolean> IDEMPOTENCE = Param.bool("Idempotence", true,
            "Client retries never duplicate or reorder records (enable.idempotence). Needs RequiredAcks -1.");
    public static final Param<Integer> TIMEOUT_MS = Param.millis("TimeoutMs", 30000,
            "How long the client waits for a broker's answer to one request (request.timeout.ms).");
    public static final Param<Integer> DELIVERY_TIMEOUT_MS = Param.millis("DeliveryTimeoutMs", 120000,
            "How long the client keeps retrying a record before it reports failure (delivery.timeout.ms).");
    public static final Param<Integer> SEND_RETRIES = Param.integer("SendRetries", 1,
            "How often a record is sent again within one delivery after the client gave up on it with a retriable"
                    + " error; after that the pipeline's Retry/* settings retry the batch's failed records.");
    public static final Param<Integer> SEND_TIMEOUT_MS = Param.millis("SendTimeoutMs", 250,
            "Pause before Sluice sends failed records again.");
    public static final Param<Integer> GRACE_PERIOD_MS = Param.millis("GracePeriodMs", 100,
            "Gollum's wait for sarama's input channel; ignored: deliver blocks instead (backpressure, no loss).");
    public static final Param<Boolean> ALLOW_NIL_VALUE = Param.bool("AllowNilValue", false,
            "Sends messages with an empty payload; when false they are skipped and counted, as in Gollum.");
    public static final Param<String> PARTITIONER = Param.choice("Partitioner", "Sticky",
            "Records without a key: Sticky (fills one partition's batch, then moves on; best batching), Random"
                    + " (same as Sticky), Roundrobin (one record per partition in turn); Hash and Default are Sticky"
                    + " too. Keyed records always hash (murmur2).", "Sticky", "Random", "Roundrobin", "Hash", "Default");
    public static final Param<String> PARTITION_HASHER = Param.string("PartitionHasher", "murmur2",
            "Gollum's hash choice; only murmur2 (Kafka's, shared with every Java and librdkafka client) exists.");
    public static final Param<Integer> BATCH_MIN_COUNT = Param.integer("Batch/MinCount", 1,
            "Gollum's sarama setting; ignored: the Java client batches by size and linger time.");
    public static final Param<Integer> BATCH_MAX_COUNT = Param.integer("Batch/MaxCount", 0,
            "Gollum's sarama setting; ignored: the Java client batches by size and linger time.");
    public static final Param<Integer> BATCH_MIN_SIZE_BYTE = Param.sizeInt("Batch/MinSizeByte", 262144,
            "Largest record batch per partition, in bytes (batch.size).");
    public static final Param<Integer> BATCH_SIZE_MAX_KB = Param.integer("Batch/SizeMaxKB", 1024,
            "Largest request, in KB (max.request.size); a larger record fails to the fallback stream.");
    public static final Param<Integer> BATCH_TIMEOUT_MS = Param.millis("Batch/TimeoutMs", 5,
            "How long a partial record batch waits for more records (linger.ms); deliver flushes its own at once.");
    public static final Param<Integer> MESSAGE_BUFFER_COUNT = Param.integer("MessageBufferCount", 8192,
            "Gollum's sarama channel size; ignored: the client buffers in bytes (Settings: buffer.memory).");
    public static final Param<Boolean> FLUSH_ON_DELIVER = Param.bool("FlushOnDeliver", true,
            "Each delivered batch is sent at once (the client's flush) rather than after Batch/TimeoutMs. false"
                    + " lets many concurrent workers (ModulatorRoutines) fill larger requests instead.");
    public static final Param<String> ERROR_FIELD = Param.string("ErrorField", "kafka_error",
            "Metadata field that carries the reason on messages sent to the fallback stream.");

    private static final List<Param<?>> OWN = List.of(TOPIC, TOPICS, KEY_FROM, KEY_META_FIELD, HEADERS_FROM,
            COMPRESSION, REQUIRED_ACKS, IDEMPOTENCE, TIMEOUT_MS, DELIVERY_TIMEOUT_MS, SEND_RETRIES, SEND_TIMEOUT_MS,
            GRACE_PERIOD_MS, ALLOW_NIL_VALUE, PARTITIONER, PARTITION_HASHER, BATCH_MIN_COUNT, BATCH_MAX_COUNT,
            BATCH_MIN_SIZE_BYTE, BATCH_SIZE_MAX_KB, BATCH_TIMEOUT_MS, MESSAGE_BUFFER_COUNT, FLUSH_ON_DELIVER, ERROR_FIELD);

    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "producer.Kafka",
            "Writes messages to Kafka topics; acknowledges upstream only once Kafka acknowledged them.")
            .params(KafkaParams.with(OWN))
            .factory(KafkaProducer::new);

    private final Properties properties;
    private final byte[] keyField;
    private final byte[][] headerFields;
    private final String[] headerNames;
    private final boolean allHeaders;
    private final int sendRetries;
    private final long retryPauseMs;
    private final boolean allowNil;
    private final boolean flushOnDeliver;
    private final byte[] errorField;
    private final StreamTopics topics;
    private final long closeTimeoutMs;
    private final String acksNote;
    private final AtomicLong skippedEmpty = new AtomicLong();
    private final ThreadLocal<DeliveryWork> work = ThreadLocal.withInitial(DeliveryWork::new);
    private Producer<byte[], byte[]> producer;
    private Log log;

    public KafkaProducer(PluginConfig config) {
        super(config);
        String key = config.get(KEY_FROM).isEmpty() ? config.get(KEY_META_FIELD) : config.get(KEY_FROM);
        this.keyField = key.isEmpty() ? null : key.getBytes(StandardCharsets.UTF_8);
        List<String> headers = config.get(HEADERS_FROM);
        this.allHeaders = headers.contains("*");
        this.headerNames = headers.stream().filter(h -> !h.equals("*")).toArray(String[]::new);
        this.headerFields = Arrays.stream(headerNames).map(h -> h.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        this.sendRetries = Math.max(0, config.get(SEND_RETRIES));
        this.retryPauseMs = Math.max(0, config.get(SEND_TIMEOUT_MS));
        this.allowNil = config.get(ALLOW_NIL_VALUE);
        this.flushOnDeliver = config.get(FLUSH_ON_DELIVER);
        this.errorField = config.get(ERROR_FIELD).getBytes(StandardCharsets.UTF_8);
        this.closeTimeoutMs = config.get(PluginSpec.SHUTDOWN_TIMEOUT_MS);
        this.topics = new StreamTopics(config);
        this.acksNote = ProducerProperties.acksNote(config);
        this.properties = ProducerProperties.of(config);
    }

    @Override
    public void start(ProducerContext ctx) {
        this.log = ctx.log();
        if (acksNote != null) {
            log.warn(acksNote);
        }
        if (!config.get(PARTITION_HASHER).equalsIgnoreCase("murmur2")) {
            log.warn(config.id() + ": PartitionHasher " + config.get(PARTITION_HASHER) + " is not available; keys hash"
                    + " with murmur2, as every Kafka client does");
        }
        producer = new org.apache.kafka.clients.producer.KafkaProducer<>(properties, new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    /** The client properties this producer was built with (tests, {@code sluice validate}). */
    public Properties clientProperties() {
        return (Properties) properties.clone();
    }

    @Override
    public boolean concurrent() {
        return true;
    }

    @Override
    public void deliver(Batch batch) throws Exception {
        DeliveryWork w = work.get();
        int n = batch.size();
        w.ensure(n);
        int pending = 0;
        for (int i = 0; i < n; i++) {
            if (allowNil || batch.get(i).length() > 0) {
                w.idx[pending++] = i;
            } else if (skippedEmpty.getAndIncrement() == 0) {
                log.warn(config.id() + ": skipping messages with an empty payload (AllowNilValue is false;"
                        + " further ones are only counted)");
            }
        }
        int failed = 0;
        for (int attempt = 0; pending > 0; attempt++) {
            for (int k = 0; k < pending; k++) {
                w.futures[k] = send(batch.get(w.idx[k]), w);
            }
            if (flushOnDeliver) {
                // Sends what lingers at once instead of after Batch/TimeoutMs; the futures then say which
                // records made it.
                producer.flush();
            }
            int retry = 0;
            for (int k = 0; k < pending; k++) {
                Throwable e = outcome(w.futures[k]);
                w.futures[k] = null;
                if (e == null) {
                    continue;
                }
                if (e instanceof RetriableException && attempt < sendRetries) {
                    w.idx[retry++] = w.idx[k];
                } else {
                    w.fail(failed++, w.idx[k], e);
                }
            }
            pending = retry;
            if (pending > 0) {
                log.warn(config.id() + ": " + pending + " records failed with a retriable error; sending them again in "
                        + retryPauseMs + " ms (attempt " + (attempt + 2) + " of " + (sendRetries + 1) + ")");
                TimeUnit.MILLISECONDS.sleep(retryPauseMs);
            }
        }
        if (failed > 0) {
            String first = w.reason(0);
            boolean permanent = w.allPermanent(failed);
            w.keepOnlyFailed(batch, failed, errorField);
            String what = failed + " of " + n + " records failed, first: " + first;
            if (permanent) {
                // Retrying cannot help (too large, invalid topic, not authorized): straight to the fallback stream.
                throw new PermanentDeliveryException(what);
            }
            // The pipeline retries the failed records (Retry/*); a permanent failure among them ends up alone in a
            // later attempt and then goes to the fallback stream.
            throw new KafkaException(what);
        }
    }

    /** Sends one record; errors the client throws at once come back as a failed future, like the others. */
    private Future<RecordMetadata> send(Message m, DeliveryWork w) throws InterruptedException {
        try {
            String topic = topics.topicOf(m, w.topics);
            if (topic == null) {
                return CompletableFuture.failedFuture(new InvalidTopicException("topic template rendered empty"));
            }
            byte[] value = Arrays.copyOf(m.payload(), m.length());
            byte[] key = null;
            RecordHeaders headers = null;
            if (m.hasMetadata()) {
                Metadata md = m.metadata();
                if (keyField != null) {
                    key = fieldBytes(md, md.indexOf(keyField));
                }
                if (allHeaders || headerFields.length > 0) {
                    headers = headers(md);
                }
            }
            long ts = m.timestamp();
            Long timestamp = ts > 0 ? ts / 1_000_000L : null;
            return producer.send(new ProducerRecord<>(topic, null, timestamp, key, value, headers));
        } catch (InterruptException e) {
            throw new InterruptedException(e.getMessage());
        } catch (KafkaException | IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private RecordHeaders headers(Metadata md) {
        RecordHeaders h = new RecordHeaders();
        if (allHeaders) {
            for (int i = 0; i < md.size(); i++) {
                h.add(md.key(i), fieldBytes(md, i));
            }
        } else {
            for (int f = 0; f < headerFields.length; f++) {
                int i = md.indexOf(headerFields[f]);
                if (i >= 0) {
                    h.add(headerNames[f], fieldBytes(md, i));
                }
            }
        }
        return h;
    }

    private static byte[] fieldBytes(Metadata md, int i) {
        if (i < 0) {
            return null;
        }
        int off = md.valueOffset(i);
        return Arrays.copyOfRange(md.arena(), off, off + md.valueLength(i));
    }

    private static Throwable outcome(Future<RecordMetadata> f) throws InterruptedException {
        try {
            f.get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause() == null ? e : e.getCause();
        }
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close(Duration.ofMillis(closeTimeoutMs));
        }
        if (skippedEmpty.get() > 0) {
            log.warn(config.id() + ": skipped " + skippedEmpty.get() + " messages with an empty payload");
        }
    }
}
