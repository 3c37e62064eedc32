package io.sluice.kafka.consumer;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.json.Decimal;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Clock;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.Streams;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Modulator;
import io.sluice.kafka.KafkaParams;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
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
public final class Kafka extends Consumer {
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
    public static final Param<String> PAYLOAD_FORMAT = Param.string("PayloadFormat", "raw",
            "raw: the value as it is. json: also parses the value's JSON object into metadata (as format.JSON"
                    + " does, on the poll thread); values that are not a JSON object go to the fallback stream.");
    public static final Param<String> OFFSET_FILE = Param.string("OffsetFile", "",
            "Gollum's offset file; not supported: use GroupId, which stores offsets in Kafka.");
    public static final Param<String> FOLDER_PERMISSIONS = Param.string("FolderPermissions", "0755",
            "Gollum's offset file folder mode; ignored (see OffsetFile).");
    public static final Param<Boolean> ORDERED = Param.bool("Ordered", false,
            "Gollum's one-partition-at-a-time reading; ignored: order holds within a partition, never across.");
    public static final Param<Integer> MAX_FETCH_SIZE_BYTE = Param.integer("MaxFetchSizeByte", 0,
            "Most bytes fetched per partition and request (max.partition.fetch.bytes); 0: the client's 1 MiB.");
    public static final Param<Integer> MIN_FETCH_SIZE_BYTE = Param.integer("MinFetchSizeByte", 1,
            "Least bytes a broker collects before answering a fetch (fetch.min.bytes).");
    public static final Param<Integer> DEFAULT_FETCH_SIZE_BYTE = Param.integer("DefaultFetchSizeByte", 32768,
            "Gollum's sarama fetch size; ignored: the Java client sizes fetches itself.");
    public static final Param<Integer> FETCH_TIMEOUT_MS = Param.integer("FetchTimeoutMs", 250,
            "Longest time a broker waits for MinFetchSizeByte (fetch.max.wait.ms).");
    public static final Param<Integer> MESSAGE_BUFFER_COUNT = Param.integer("MessageBufferCount", 8192,
            "Messages polled but not yet taken by the pipeline above which partitions are paused.");
    public static final Param<Integer> PRESIST_TIMOUT_MS = Param.integer("PresistTimoutMs", 1000,
            "Interval between offset commits, in ms (Gollum's spelling). Shorter: fewer duplicates after a crash.");
    public static final Param<Integer> COMMIT_TIMEOUT_MS = Param.integer("CommitTimeoutMs", 5000,
            "At revocation and shutdown, how long to wait for batches in flight before committing what completed.");

    private static final List<Param<?>> OWN = List.of(TOPIC, TOPIC_PATTERN, GROUP_ID, DEFAULT_OFFSET, SET_METADATA,
            PAYLOAD_FORMAT, OFFSET_FILE, FOLDER_PERMISSIONS, ORDERED, MAX_FETCH_SIZE_BYTE, MIN_FETCH_SIZE_BYTE,
            DEFAULT_FETCH_SIZE_BYTE, FETCH_TIMEOUT_MS, MESSAGE_BUFFER_COUNT, PRESIST_TIMOUT_MS, COMMIT_TIMEOUT_MS);

    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "consumer.Kafka",
            "Reads Kafka topics in a consumer group; commits offsets only once every producer took the messages.")
            .params(KafkaParams.with(OWN))
            .factory(Kafka::new);

    private static final byte[] F_TOPIC = bytes("topic");
    private static final byte[] F_KEY = bytes("key");
    private static final byte[] F_PARTITION = bytes("partition");
    private static final byte[] F_OFFSET = bytes("offset");
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration POLL_PAUSED = Duration.ofMillis(10);

    private final Properties properties;
    private final List<String> topics;
    private final Pattern pattern;
    private final boolean group;
    private final String defaultOffset;
    private final boolean setMetadata;
    /** format.JSON, found through the registry (PayloadFormat json), or null. */
    private final Modulator json;
    private final int bufferLimit;
    private final long commitIntervalNanos;
    private final long commitTimeoutMs;
    private final int fallbackStream;
    private final OffsetTracker tracker = new OffsetTracker();
    private final byte[] digits = new byte[Decimal.MAX_LONG];
    private final Map<String, byte[]> headerKeys = new HashMap<>();
    private volatile KafkaConsumer<ByteBuffer, ByteBuffer> client;
    private volatile boolean stopping;
    private byte[] keyBuf = new byte[64];
    private Log log;
    private boolean paused;
    private io.sluice.core.message.MemoryBudget memory;
    private long lastCommitNanos;

    public Kafka(PluginConfig config) {
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
        String format = config.get(PAYLOAD_FORMAT).trim().toLowerCase(Locale.ROOT);
        if (!format.equals("raw") && !format.equals("json")) {
            throw config.error(PAYLOAD_FORMAT, "expected raw or json, found '" + config.get(PAYLOAD_FORMAT) + "'");
        }
        this.json = format.equals("json") ? jsonParser(config) : null;
        this.setMetadata = config.get(SET_METADATA);
        this.bufferLimit = Math.max(1, config.get(MESSAGE_BUFFER_COUNT));
        this.commitIntervalNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, config.get(PRESIST_TIMOUT_MS)));
        this.commitTimeoutMs = Math.max(0, config.get(COMMIT_TIMEOUT_MS));
        this.fallbackStream = Streams.id(config.get(PluginSpec.FALLBACK_STREAM));

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
        Properties copy = new Properties();
        copy.putAll(properties);
        return copy;
    }

    @Override
    public void consume(ConsumerContext ctx) throws Exception {
        this.log = ctx.log();
        if (!config.get(OFFSET_FILE).isEmpty()) {
            log.warn(config.id() + ": OffsetFile is not supported; set GroupId to keep offsets in Kafka");
        }
        this.memory = ctx.memory();
        Properties p = new Properties();
        p.putAll(properties);
        // One fetch response is held whole by the client before a record is seen: keep it a small share of the
        // budget (the client's default is 50 MiB, a quarter of the launcher's heap) unless the user set it.
        p.putIfAbsent(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, String.valueOf(fetchMaxBytes(memory)));
        KafkaConsumer<ByteBuffer, ByteBuffer> c = new KafkaConsumer<>(p, new ByteBufferDeserializer(),
                new ByteBufferDeserializer());
        client = c;
        Publisher publisher = new Publisher(ctx);
        try {
            if (stopping) {
                return;
            }
            subscribe(c);
            publisher.start();
            lastCommitNanos = System.nanoTime();
            while (ctx.isActive() && !stopping) {
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
                if (group && System.nanoTime() - lastCommitNanos >= commitIntervalNanos) {
                    commitAsync(c);
                }
            }
        } finally {
            shutdown(c, publisher);
        }
    }

    private void subscribe(KafkaConsumer<ByteBuffer, ByteBuffer> c) {
        if (group) {
            ConsumerRebalanceListener listener = new Rebalance(c);
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
    private void applyBackpressure(KafkaConsumer<ByteBuffer, ByteBuffer> c, Publisher publisher) {
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
                fill(batch.add(), r, part);
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

    /** One record into one message: copies the value; metadata only when asked for. */
    private void fill(Message m, ConsumerRecord<ByteBuffer, ByteBuffer> r, OffsetTracker.Partition part) {
        ByteBuffer v = r.value();
        if (v != null) {
            int len = v.remaining();
            byte[] dst = m.ensureCapacity(len, false);
            v.get(v.position(), dst, 0, len);
            m.setLength(len);
        }
        long ts = r.timestamp();
        m.setTimestamp(ts >= 0 ? ts * 1_000_000L : Clock.epochNanos());
        if (setMetadata) {
            Metadata md = m.metadata();
            for (Header h : r.headers()) {
                byte[] hv = h.value();
                byte[] k = headerKeys.computeIfAbsent(h.key(), Kafka::bytes);
                if (hv != null) {
                    md.set(k, 0, k.length, hv, 0, hv.length, Metadata.STRING);
                }
            }
            md.set(F_TOPIC, 0, F_TOPIC.length, part.topicBytes, 0, part.topicBytes.length, Metadata.STRING);
            ByteBuffer key = r.key();
            if (key != null) {
                int kl = key.remaining();
                md.set(F_KEY, 0, F_KEY.length, copyKey(key, kl), 0, kl, Metadata.STRING);
            }
            md.set(F_PARTITION, 0, F_PARTITION.length, part.partitionDigits, 0, part.partitionDigits.length, Metadata.NUMBER);
            int n = Decimal.putLong(digits, 0, r.offset());
            md.set(F_OFFSET, 0, F_OFFSET.length, digits, 0, n, Metadata.NUMBER);
        }
        if (json != null && json.modulate(m) != Modulator.Result.CONTINUE) {
            // Not a JSON object: format.JSON set json_error; the message goes on, to the fallback stream.
            m.setStream(fallbackStream);
        }
    }

    /** Copies a key into a reused buffer (the metadata arena copies it again, so it need not be exact). */
    private byte[] copyKey(ByteBuffer key, int len) {
        if (keyBuf.length < len) {
            keyBuf = new byte[Math.max(len, keyBuf.length * 2)];
        }
        key.get(key.position(), keyBuf, 0, len);
        return keyBuf;
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

    private void commitAsync(KafkaConsumer<ByteBuffer, ByteBuffer> c) {
        lastCommitNanos = System.nanoTime();
        Map<TopicPartition, OffsetAndMetadata> offsets = tracker.committable(null);
        if (offsets == null) {
            return;
        }
        tracker.committed(offsets);
        c.commitAsync(offsets, (done, error) -> {
            if (error != null) {
                log.warn(config.id() + ": offset commit failed, retrying with the next one: " + error);
                tracker.commitFailed(done == null ? offsets : done);
            }
        });
    }

    /** Commits synchronously what completed for {@code only} (all if null); used at revocation and shutdown. */
    private void commitSync(KafkaConsumer<ByteBuffer, ByteBuffer> c, Collection<TopicPartition> only) {
        Map<TopicPartition, OffsetAndMetadata> offsets = tracker.committable(only);
        if (offsets == null) {
            return;
        }
        try {
            c.commitSync(offsets, Duration.ofMillis(Math.max(1000, commitTimeoutMs)));
            tracker.committed(offsets);
        } catch (WakeupException e) {
            // stop() woke the client during the commit: try once more, the wake-up is used up.
            c.commitSync(offsets, Duration.ofMillis(Math.max(1000, commitTimeoutMs)));
            tracker.committed(offsets);
        } catch (KafkaException e) {
            log.warn(config.id() + ": offset commit failed; the records after the last commit will be read again: " + e);
        }
    }

    /**
     * Ends reading: batches polled but not published are dropped without being acknowledged (they will be read
     * again), those published get up to CommitTimeoutMs to be delivered, then what completed is committed and
     * the client leaves the group.
     */
    private void shutdown(KafkaConsumer<ByteBuffer, ByteBuffer> c, Publisher publisher) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(commitTimeoutMs);
        try {
            publisher.stopAndCancel(deadline);
            if (group) {
                if (!tracker.awaitDone(null, deadline)) {
                    log.warn(config.id() + ": batches still in flight after " + commitTimeoutMs
                            + " ms; their records will be read again");
                }
                commitSync(c, null);
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
        KafkaConsumer<ByteBuffer, ByteBuffer> c = client;
        if (c != null) {
            c.wakeup();
        }
    }

    /** Commits on revocation; runs on the poll thread, inside poll(). */
    private final class Rebalance implements ConsumerRebalanceListener {
        private final KafkaConsumer<ByteBuffer, ByteBuffer> c;

        Rebalance(KafkaConsumer<ByteBuffer, ByteBuffer> c) {
            this.c = c;
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            if (revoked.isEmpty()) {
                return;
            }
            try {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(commitTimeoutMs);
                if (!tracker.awaitDone(revoked, deadline)) {
                    log.warn(config.id() + ": partitions " + revoked + " revoked with batches still in flight after "
                            + commitTimeoutMs + " ms; their new owner reads them again");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            commitSync(c, revoked);
            tracker.remove(revoked);
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
    }

    /**
     * The thread that calls {@link ConsumerContext#publish}, which blocks while the pipeline is full. Counts the
     * messages it holds (waiting or being published), which is what the poll thread pauses on.
     */
    private final class Publisher implements Runnable {
        private final ConsumerContext ctx;
        private final LinkedBlockingQueue<Batch> queue = new LinkedBlockingQueue<>();
        private final AtomicInteger buffered = new AtomicInteger();
        private final Thread thread;
        private volatile boolean stop;

        Publisher(ConsumerContext ctx) {
            this.ctx = ctx;
            this.thread = new Thread(this, "consumer-" + config.id() + "-publish");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        int buffered() {
            return buffered.get();
        }

        /** Registers the batch's offsets (if tracked) and queues it; never blocks. */
        void hand(Batch batch, OffsetTracker.Ack ack) {
            if (ack != null) {
                ack.register();
                batch.setCompletion(ack);
            }
            buffered.addAndGet(batch.size());
            queue.add(batch);
        }

        @Override
        public void run() {
            try {
                while (!stop) {
                    Batch b = queue.poll(100, TimeUnit.MILLISECONDS);
                    if (b == null) {
                        continue;
                    }
                    int n = b.size();
                    try {
                        ctx.publish(b);
                    } finally {
                        buffered.addAndGet(-n);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.error(config.id() + ": publishing failed: " + e);
                stopping = true;
            }
        }

        /**
         * Lets the batch being published finish (the producers are still running during shutdown), then drops
         * what waits without acknowledging it.
         */
        void stopAndCancel(long deadlineNanos) throws InterruptedException {
            stop = true;
            if (thread.isAlive()) {
                thread.join(Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000));
            }
            Batch b;
            while ((b = queue.poll()) != null) {
                OffsetTracker.Ack ack = (OffsetTracker.Ack) b.completion();
                if (ack != null) {
                    ack.cancelled = true;
                }
                buffered.addAndGet(-b.size());
                b.release();
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
