package io.sluice.kafka.consumer;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Modulator;
import io.sluice.kafka.KafkaParams;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;

/**
 * {@code consumer.Kafka}: reads topics (a list or a pattern) as a member of consumer group {@code GroupId} and
 * publishes their records as messages: the value is the payload, the record time the message time, and with
 * {@code SetMetadata} the topic, key, partition, offset and headers become metadata fields. With
 * {@code PayloadFormat: json} the payload's JSON object is also parsed into metadata.
 *
 * <p><b>At least once.</b> Each published batch carries a {@link io.sluice.core.message.Completion}; an offset is
 * committed only once every batch up to it was taken by every producer it went to (delivered, or written to a
 * disk buffer). Commits run on the poll thread every {@code PresistTimoutMs}, on partition revocation (after
 * waiting, up to {@code CommitTimeoutMs}, for the revoked partitions' batches in flight) and at shutdown. A crash
 * re-reads at most what was not yet committed; nothing acknowledged by Kafka to a producer is skipped.
 *
 * <p><b>Backpressure.</b> The poll thread never blocks on the pipeline (a consumer that stops polling is thrown
 * out of its group): it hands batches to a publisher thread, and while more than {@code MessageBufferCount}
 * messages wait there it pauses every assigned partition and keeps polling, which keeps its group membership
 * and fetches nothing. So memory stays bounded by {@code MessageBufferCount} plus one poll.
 *
 * <p>Without a {@code GroupId} (Gollum's default) it reads every partition of its topics from
 * {@code DefaultOffset} and commits nothing.
 */
public final class KafkaConsumer extends io.sluice.core.pipeline.Consumer {
    public static final Param<List<String>> TOPIC = Param.strings("Topic", List.of("default"),
            "Topic, or list of topics, to read.");
    public static final Param<String> TOPIC_PATTERN = Param.string("TopicPattern", "",
            "Regular expression: reads every topic whose whole name matches (needs GroupId); replaces Topic.");
    public static final Param<String> GROUP_ID = Param.string("GroupId", "",
            "Consumer group. Members of a group share the partitions and commit offsets (at-least-once). Empty:"
                    + " read every partition, commit nothing (Gollum's default).");
    public static final Param<String> DEFAULT_OFFSET = Param.string("DefaultOffset", "newest",
            "Where to start without a committed offset: newest, oldest, or (without GroupId) an offset number.");
    public static final Param<Boolean> SET_METADATA = Param.bool("SetMetadata", false,
            "Sets metadata fields topic, key, partition and offset, and one field per record header.");
    public static final Param<String> PAYLOAD_FORMAT = Param.choice("PayloadFormat", "raw",
            "raw: the value as it is. json: also parses the value's JSON object into metadata (as format.JSON"
                    + " does, on the poll thread); values that are not a JSON object go to the fallback stream.",
            "raw", "json");
    public static final Param<String> OFFSET_FILE = Param.string("OffsetFile", "",
            "Gollum's offset file; not supported: use GroupId, which stores offsets in Kafka.");
    public static final Param<String> FOLDER_PERMISSIONS = Param.string("FolderPermissions", "0755",
            "Gollum's offset file folder mode; ignored (see OffsetFile).");
    public static final Param<Boolean> ORDERED = Param.bool("Ordered", false,
            "Gollum's one-partition-at-a-time reading; ignored: order holds within a partition, never across.");
    public static final Param<Integer> MAX_FETCH_SIZE_BYTE = Param.sizeInt("MaxFetchSizeByte", 0,
            "Most bytes fetched per partition and request (max.partition.fetch.bytes); 0: the client's 1 MiB.");
    public static final Param<Integer> MIN_FETCH_SIZE_BYTE = Param.sizeInt("MinFetchSizeByte", 1,
            "Least bytes a broker collects before answering a fetch (fetch.min.bytes).");
    public static final Param<Integer> DEFAULT_FETCH_SIZE_BYTE = Param.sizeInt("DefaultFetchSizeByte", 32768,
            "Gollum's sarama fetch size; ignored: the Java client sizes fetches itself.");
    public static final Param<Integer> FETCH_TIMEOUT_MS = Param.millis("FetchTimeoutMs", 250,
            "Longest time a broker waits for MinFetchSizeByte (fetch.max.wait.ms).");
    public static final Param<Integer> MESSAGE_BUFFER_COUNT = Param.integer("MessageBufferCount", 8192,
            "Messages polled but not yet taken by the pipeline above which partitions are paused.");
    public static final Param<Integer> PRESIST_TIMOUT_MS = Param.millis("PresistTimoutMs", 1000,
            "Interval between offset commits, in ms (Gollum's spelling). Shorter: fewer duplicates after a crash.");
    public static final Param<Integer> COMMIT_TIMEOUT_MS = Param.millis("CommitTimeoutMs", 5000,
            "At revocation and shutdown, how long to wait for batches in flight before committing what completed.");

    private static final List<Param<?>> OWN = List.of(TOPIC, TOPIC_PATTERN, GROUP_ID, DEFAULT_OFFSET, SET_METADATA,
            PAYLOAD_FORMAT, OFFSET_FILE, FOLDER_PERMISSIONS, ORDERED, MAX_FETCH_SIZE_BYTE, MIN_FETCH_SIZE_BYTE,
            DEFAULT_FETCH_SIZE_BYTE, FETCH_TIMEOUT_MS, MESSAGE_BUFFER_COUNT, PRESIST_TIMOUT_MS, COMMIT_TIMEOUT_MS);

    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "consumer.Kafka",
            "Reads Kafka topics in a consumer group; commits offsets only once every producer took the messages.")
            .params(KafkaParams.with(OWN))
            .factory(KafkaConsumer::new);

    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration POLL_PAUSED = Duration.ofMillis(10);

    private final Properties properties;
    private final List<String> topics;
    private final Pattern pattern;
    private final boolean group;
    private final String defaultOffset;
    private final RecordMessages messages;
    private final int bufferLimit;
    private final long commitTimeoutMs;
    private final OffsetTracker tracker = new OffsetTracker();
    private final OffsetCommits commits;
    private volatile Consumer<ByteBuffer, ByteBuffer> client;
    private volatile boolean stopping;
    private boolean paused;
    private io.sluice.core.message.MemoryBudget memory;
    private Log log;

    public KafkaConsumer(PluginConfig config) {
        super(config);
        this.topics = config.get(TOPIC);
        String regex = config.get(TOPIC_PATTERN);
        try {
            this.pattern = regex.isEmpty() ? null : Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw config.error(TOPIC_PATTERN, "not a valid regular expression: " + e.getDescription());
        }
        String groupId = config.get(GROUP_ID);
        this.group = !groupId.isEmpty();
        if (pattern != null && !group) {
            throw config.error(TOPIC_PATTERN, "needs a GroupId: pattern subscriptions are a consumer group feature");
        }
        if (pattern == null && topics.isEmpty()) {
            throw config.error(TOPIC, "needs at least one topic (or a TopicPattern)");
        }
        this.defaultOffset = config.get(DEFAULT_OFFSET).trim().toLowerCase(Locale.ROOT);
        boolean numeric = defaultOffset.matches("-?\\d+");
        if (!defaultOffset.equals("newest") && !defaultOffset.equals("oldest") && !numeric) {
            throw config.error(DEFAULT_OFFSET, "expected newest, oldest or an offset number, found '" + config.get(DEFAULT_OFFSET) + "'");
        }
        if (numeric && group) {
            throw config.error(DEFAULT_OFFSET, "an offset number works only without GroupId; a group starts from"
                    + " its committed offsets, else from newest or oldest");
        }
        String format = config.get(PAYLOAD_FORMAT);
        this.messages = new RecordMessages(config.get(SET_METADATA), format.equals("json") ? jsonParser(config) : null,
                Streams.id(config.get(PluginSpec.FALLBACK_STREAM)));
        this.bufferLimit = Math.max(1, config.get(MESSAGE_BUFFER_COUNT));
        this.commitTimeoutMs = Math.max(0, config.get(COMMIT_TIMEOUT_MS));
        this.commits = new OffsetCommits(tracker, config.id(),
                TimeUnit.MILLISECONDS.toNanos(Math.max(0, config.get(PRESIST_TIMOUT_MS))), commitTimeoutMs);

        Properties p = KafkaParams.clientProperties(config);
        if (group) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
            // Cooperative rebalancing: a member joining or leaving moves only the partitions that must move,
            // the others keep flowing (the classic eager protocol stops every member).
            p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        }
        // Offsets are committed by this plugin, only for delivered messages; never by the client on a timer.
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, defaultOffset.equals("oldest") ? "earliest" : "latest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2048");
        if (config.get(MAX_FETCH_SIZE_BYTE) > 0) {
            p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(config.get(MAX_FETCH_SIZE_BYTE)));
        }
        p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, String.valueOf(Math.max(1, config.get(MIN_FETCH_SIZE_BYTE))));
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, String.valueOf(config.get(FETCH_TIMEOUT_MS)));
        KafkaParams.applySettings(config, p);
        this.properties = p;
    }

    /** The client properties this consumer was built with (tests, {@code sluice validate}). */
    public Properties clientProperties() {
        return (Properties) properties.clone();
    }

    @Override
    public void consume(ConsumerContext ctx) throws Exception {
        this.log = ctx.log();
        commits.logTo(log);
        if (!config.get(OFFSET_FILE).isEmpty()) {
            log.warn(config.id() + ": OffsetFile is not supported; set GroupId to keep offsets in Kafka");
        }
        this.memory = ctx.memory();
        Properties p = (Properties) properties.clone();
        // One fetch response is held whole by the client before a record is seen: keep it a small share of the
        // budget (the client's default is 50 MiB, a quarter of the launcher's heap) unless the user set it.
        p.putIfAbsent(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, String.valueOf(fetchMaxBytes(memory)));
        Consumer<ByteBuffer, ByteBuffer> c = new org.apache.kafka.clients.consumer.KafkaConsumer<>(p,
                new ByteBufferDeserializer(), new ByteBufferDeserializer());
        client = c;
        Publisher publisher = new Publisher(ctx, config.id());
        try {
            if (stopping) {
                return;
            }
            subscribe(c);
            publisher.start();
            commits.start();
            while (ctx.isActive() && !stopping && !publisher.failed()) {
                applyBackpressure(c, publisher);
                ConsumerRecords<ByteBuffer, ByteBuffer> records;
                try {
                    records = c.poll(paused ? POLL_PAUSED : POLL);
                } catch (WakeupException e) {
                    continue;
                }
                if (!records.isEmpty()) {
                    toBatches(records, ctx, publisher);
                }
                if (group) {
                    commits.maybeCommit(c);
                }
            }
        } finally {
            shutdown(c, publisher);
        }
    }

    private void subscribe(Consumer<ByteBuffer, ByteBuffer> c) {
        if (group) {
            ConsumerRebalanceListener listener = rebalance(c);
            if (pattern != null) {
                c.subscribe(pattern, listener);
            } else {
                c.subscribe(topics, listener);
            }
            return;
        }
        List<TopicPartition> all = new ArrayList<>();
        for (String t : topics) {
            for (PartitionInfo info : c.partitionsFor(t)) {
                all.add(new TopicPartition(t, info.partition()));
            }
        }
        c.assign(all);
        if (defaultOffset.equals("oldest")) {
            c.seekToBeginning(all);
        } else if (defaultOffset.equals("newest")) {
            c.seekToEnd(all);
        } else {
            long at = Long.parseLong(defaultOffset);
            for (TopicPartition tp : all) {
                c.seek(tp, at);
            }
        }
    }

    /** The most bytes one fetch may bring: an eighth of the memory budget, between 1 MiB and the client's 50 MiB. */
    static int fetchMaxBytes(io.sluice.core.message.MemoryBudget memory) {
        return (int) Math.max(1 << 20, Math.min(50L << 20, memory.limit() / 8));
    }

    /**
     * Pauses every assigned partition while the memory budget has no room for another fetch or the publisher
     * holds too much; resumes once both drained below.
     */
    private void applyBackpressure(Consumer<ByteBuffer, ByteBuffer> c, Publisher publisher) {
        if (publisher.buffered() >= bufferLimit || memory.used() >= memory.limit() - fetchMaxBytes(memory)) {
            // Pause again each round: partitions assigned by a rebalance since come unpaused.
            c.pause(c.assignment());
            paused = true;
        } else if (paused) {
            c.resume(c.paused());
            paused = false;
        }
    }

    private void toBatches(ConsumerRecords<ByteBuffer, ByteBuffer> records, ConsumerContext ctx, Publisher publisher) {
        Batch batch = null;
        OffsetTracker.Ack ack = null;
        for (TopicPartition tp : records.partitions()) {
            OffsetTracker.Partition part = tracker.partition(tp);
            for (ConsumerRecord<ByteBuffer, ByteBuffer> r : records.records(tp)) {
                if (batch == null) {
                    batch = ctx.newBatch();
                    // Without a group nothing is committed, so nothing needs tracking.
                    ack = group ? tracker.newAck() : null;
                }
                messages.fill(batch.add(), r, part);
                if (ack != null) {
                    ack.note(part, r.offset() + 1);
                }
                if (batch.isFull()) {
                    publisher.hand(batch, ack);
                    batch = null;
                }
            }
        }
        if (batch != null) {
            publisher.hand(batch, ack);
        }
    }

    /**
     * The registry's format.JSON, so parsing is the same code (and the same error fields) as the modulator;
     * the plugin stays free of a compile-time tie to the JSON scanner.
     */
    private static Modulator jsonParser(PluginConfig config) {
        PluginSpec spec = PluginRegistry.defaultRegistry().find("format.JSON");
        if (spec == null) {
            throw config.error(PAYLOAD_FORMAT, "json needs format.JSON, which no module on the class path provides");
        }
        return (Modulator) spec.create(PluginConfig.of(config.id() + "/PayloadFormat", "format.JSON", Map.of()));
    }

    /**
     * Ends reading: batches polled but not published are dropped without being acknowledged (they will be read
     * again), those published get up to CommitTimeoutMs to be delivered, then what completed is committed and
     * the client leaves the group.
     */
    private void shutdown(Consumer<ByteBuffer, ByteBuffer> c, Publisher publisher) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(commitTimeoutMs);
        try {
            publisher.stopAndCancel(deadline);
            if (group) {
                commits.last(c, deadline);
            }
        } finally {
            try {
                // Leaving the group (the default for members without a static id) hands the partitions over
                // at once instead of after session.timeout.ms.
                c.close(CloseOptions.timeout(Duration.ofMillis(Math.max(1000, commitTimeoutMs))));
            } catch (KafkaException e) {
                log.warn(config.id() + ": closing the Kafka client: " + e);
            }
            client = null;
        }
    }

    @Override
    public void stop() {
        stopping = true;
        Consumer<ByteBuffer, ByteBuffer> c = client;
        if (c != null) {
            c.wakeup();
        }
    }

    /** Commits on revocation; runs on the poll thread, inside poll(). */
    private ConsumerRebalanceListener rebalance(Consumer<ByteBuffer, ByteBuffer> c) {
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
                if (!revoked.isEmpty()) {
                    commits.revoked(c, revoked);
                }
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
                for (TopicPartition tp : assigned) {
                    tracker.partition(tp);
                }
                if (paused) {
                    c.pause(assigned);
                }
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> lost) {
                // Another member may own them already: committing now could move its offsets backwards.
                tracker.remove(lost);
            }
        };
    }
}
