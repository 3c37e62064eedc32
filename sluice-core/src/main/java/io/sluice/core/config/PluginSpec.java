package io.sluice.core.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The one declaration of a plugin: its Gollum type name, family, documentation, parameters and factory.
 * Parsing, validation errors and the generated plugin reference all read from it.
 */
public final class PluginSpec {
    /** The stream that filtered messages go to unless a plugin names another. */
    public static final String DROPPED_STREAM = "_DROPPED_";

    public static final Param<Boolean> ENABLE = Param.bool("Enable", true, "Switches the plugin on or off.");
    public static final Param<List<String>> STREAMS = Param.strings("Streams", List.of("*"),
            "Streams this plugin publishes to (consumer) or reads from (producer). \"*\" means every stream.");
    public static final Param<List<PluginConfig>> MODULATORS = Param.modulators("Modulators",
            "Formatters and filters applied, in order, to every message.");
    public static final Param<Integer> MODULATOR_ROUTINES = Param.integer("ModulatorRoutines", 0,
            "Threads that run the modulators. 0 runs them on the plugin's own thread.").atLeast(0);
    public static final Param<Integer> MODULATOR_QUEUE_SIZE = Param.integer("ModulatorQueueSize", 1024,
            "Messages that may wait for a modulator routine.").atLeast(1);
    public static final Param<String> FALLBACK_STREAM = Param.string("FallbackStream", DROPPED_STREAM,
            "Stream that messages go to when a filter drops them or delivery fails permanently.");
    public static final Param<Integer> CHANNEL = Param.integer("Channel", 8192,
            "Messages that may wait in the producer's queue before senders are held back.").atLeast(1);
    public static final Param<Integer> CHANNEL_TIMEOUT_MS = Param.millis("ChannelTimeoutMs", 0,
            "How long a sender waits for room in a full queue; 0 waits as long as it takes (no loss).");
    public static final Param<Integer> SHUTDOWN_TIMEOUT_MS = Param.millis("ShutdownTimeoutMs", 10000,
            "How long shutdown waits for the queue to drain and the producer to flush.");
    public static final Param<String> BUFFER_TYPE = Param.choice("Buffer/Type", "memory",
            "memory (the queue above, acknowledged on delivery) or disk (segment files; acknowledged once written).",
            "memory", "disk");
    public static final Param<String> BUFFER_PATH = Param.string("Buffer/Path", "",
            "Directory of a disk buffer (one per producer).");
    public static final Param<Long> BUFFER_MAX_SIZE = Param.size("Buffer/MaxSize", 1L << 30,
            "Bytes a disk buffer may hold before Buffer/WhenFull applies; set on a memory buffer, it bounds the queue's payload bytes too.");
    public static final Param<Long> BUFFER_SEGMENT_SIZE = Param.size("Buffer/SegmentSize", 64L << 20,
            "Bytes per disk buffer segment file; delivered segments are deleted whole.");
    public static final Param<String> BUFFER_WHEN_FULL = Param.choice("Buffer/WhenFull", "block",
            "block (hold senders back) or drop_newest (drop new messages, counted).", "block", "drop_newest");
    public static final Param<String> BUFFER_FSYNC = Param.choice("Buffer/Fsync", "interval",
            "always (fsync before acknowledging), interval (every Buffer/FsyncIntervalMs) or never.", "always",
            "interval", "never");
    public static final Param<Integer> BUFFER_FSYNC_INTERVAL_MS = Param.millis("Buffer/FsyncIntervalMs", 1000,
            "Fsync period of a disk buffer with Buffer/Fsync: interval.");
    public static final Param<Integer> RETRY_MAX = Param.integer("Retry/Max", -1,
            "Delivery attempts after a retryable failure before the batch goes to FallbackStream; -1 retries forever.")
            .atLeast(-1);
    public static final Param<Integer> RETRY_BACKOFF_MS = Param.millis("Retry/BackoffMs", 100,
            "First pause between retries; it doubles (with jitter) up to Retry/MaxBackoffMs.");
    public static final Param<Integer> RETRY_MAX_BACKOFF_MS = Param.millis("Retry/MaxBackoffMs", 30000,
            "Longest pause between retries.");
    /** Listeners' connection limit, one declaration for every network input (HEC, Forward, Socket, Syslogd). */
    public static final Param<Integer> MAX_CONNECTIONS = Param.integer("MaxConnections", 1024,
            "Open connections at most; more are refused as they arrive (with the protocol's busy answer where it has "
                    + "one) and counted as rejected, reason busy.").atLeast(1);
    public static final Param<String> STREAM = Param.requiredString("Stream", "The stream this router handles.");
    public static final Param<Integer> TIMEOUT_MS = Param.millis("TimeoutMs", 0,
            "How long the router waits for room in a full producer queue; 0 waits as long as it takes.");
    public static final Param<String> APPLY_TO = Param.string("ApplyTo", "",
            "Metadata key to work on instead of the payload; empty means the payload.");

    private static final List<Param<?>> CONSUMER_COMMON =
            List.of(ENABLE, STREAMS, MODULATORS, MODULATOR_ROUTINES, MODULATOR_QUEUE_SIZE, FALLBACK_STREAM);
    private static final List<Param<?>> PRODUCER_COMMON = List.of(ENABLE, STREAMS, MODULATORS, MODULATOR_ROUTINES,
            CHANNEL, CHANNEL_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS, FALLBACK_STREAM, BUFFER_TYPE, BUFFER_PATH, BUFFER_MAX_SIZE,
            BUFFER_SEGMENT_SIZE, BUFFER_WHEN_FULL, BUFFER_FSYNC, BUFFER_FSYNC_INTERVAL_MS, RETRY_MAX, RETRY_BACKOFF_MS,
            RETRY_MAX_BACKOFF_MS);
    private static final List<Param<?>> ROUTER_COMMON = List.of(ENABLE, STREAM, MODULATORS, TIMEOUT_MS, FALLBACK_STREAM);

    private final String type;
    private final PluginKind kind;
    private final String doc;
    private final Map<String, Param<?>> params;
    private final Function<PluginConfig, ?> factory;

    private PluginSpec(String type, PluginKind kind, String doc, List<Param<?>> own, Function<PluginConfig, ?> factory) {
        this.type = type;
        this.kind = kind;
        this.doc = doc;
        this.factory = factory;
        Map<String, Param<?>> all = new LinkedHashMap<>();
        Stream.concat(common(kind).stream(), own.stream()).forEach(p -> all.put(p.name(), p));
        this.params = Collections.unmodifiableMap(all);
    }

    private static List<Param<?>> common(PluginKind kind) {
        return switch (kind) {
            case CONSUMER -> CONSUMER_COMMON;
            case PRODUCER -> PRODUCER_COMMON;
            case ROUTER -> ROUTER_COMMON;
            default -> List.of();
        };
    }

    /** Starts a declaration. */
    public static Builder builder(PluginKind kind, String type, String doc) {
        return new Builder(kind, type, doc);
    }

    public String type() {
        return type;
    }

    public PluginKind kind() {
        return kind;
    }

    public String doc() {
        return doc;
    }

    /** Every parameter, common ones first, by name. */
    public Map<String, Param<?>> params() {
        return params;
    }

    /**
     * The same declaration (type, parameters, documentation) built by another factory: {@code sluice test} puts an
     * injector in place of every consumer and a capture in place of every producer, with the settings users wrote.
     */
    public PluginSpec withFactory(Function<PluginConfig, ?> otherFactory) {
        return new PluginSpec(type, kind, doc, new ArrayList<>(params.values()), otherFactory);
    }

    /** Creates the plugin from a validated config. */
    public Object create(PluginConfig config) {
        return factory.apply(config);
    }

    /** Collects a plugin's own parameters. */
    public static final class Builder {
        private final PluginKind kind;
        private final String type;
        private final String doc;
        private final List<Param<?>> params = new ArrayList<>();

        private Builder(PluginKind kind, String type, String doc) {
            this.kind = kind;
            this.type = type;
            this.doc = doc;
        }

        /** Declares parameters, in the order docs list them. */
        public Builder params(Param<?>... more) {
            params.addAll(List.of(more));
            return this;
        }

        /** Finishes the declaration with the factory that builds the plugin. */
        public PluginSpec factory(Function<PluginConfig, ?> factory) {
            return new PluginSpec(type, kind, doc, params, factory);
        }
    }
}
