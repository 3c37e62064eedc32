package io.sluice.core.buffer;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.BatchPool;
import io.sluice.core.pipeline.BatchQueue;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.PluginStats;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A producer's {@code Buffer/*} group (and {@code Channel}, the memory buffer's bound), read and checked in one
 * place when the producer is configured, so that a mistake is a config error before anything runs. Each
 * {@link Kind} is the factory of its buffer.
 */
public final class BufferSettings {
    /** The kinds of buffer, each building its own. */
    public enum Kind {
        /** The producer's bounded queue; upstream is acknowledged on delivery. */
        MEMORY {
            @Override
            ProducerBuffer open(BufferSettings s, BatchPool pool, PluginStats stats, Log log) {
                return new MemoryBuffer(new BatchQueue(s.channel, s.memoryBytes));
            }
        },
        /** Segment files in {@code Buffer/Path}; upstream is acknowledged once written. */
        DISK {
            @Override
            ProducerBuffer open(BufferSettings s, BatchPool pool, PluginStats stats, Log log) {
                try {
                    return new DiskBuffer(s.path, s.maxBytes, s.segmentBytes, s.whenFull, s.fsync, s.fsyncIntervalMillis,
                            pool, stats, log, s.config.id());
                } catch (IOException e) {
                    throw s.config.error(PluginSpec.BUFFER_PATH, "cannot open disk buffer " + s.path + ": " + e.getMessage());
                }
            }
        };

        abstract ProducerBuffer open(BufferSettings s, BatchPool pool, PluginStats stats, Log log);
    }

    private final PluginConfig config;
    private final Kind kind;
    private final int channel;
    private final long memoryBytes;
    private final Path path;
    private final long maxBytes;
    private final long segmentBytes;
    private final DiskBuffer.WhenFull whenFull;
    private final DiskBuffer.Fsync fsync;
    private final long fsyncIntervalMillis;

    private BufferSettings(PluginConfig config) {
        this.config = config;
        // The choices themselves (Buffer/Type, Buffer/WhenFull, Buffer/Fsync) are checked where the config is read.
        this.kind = Kind.valueOf(config.get(PluginSpec.BUFFER_TYPE).toUpperCase(Locale.ROOT));
        if (kind == Kind.DISK && config.get(PluginSpec.BUFFER_PATH).isEmpty()) {
            throw config.error(PluginSpec.BUFFER_PATH, "a disk buffer needs a directory");
        }
        this.whenFull = DiskBuffer.WhenFull.valueOf(config.get(PluginSpec.BUFFER_WHEN_FULL).toUpperCase(Locale.ROOT));
        this.fsync = DiskBuffer.Fsync.valueOf(config.get(PluginSpec.BUFFER_FSYNC).toUpperCase(Locale.ROOT));
        this.channel = config.get(PluginSpec.CHANNEL);
        // A memory buffer is bounded in messages by Channel and, when Buffer/MaxSize is set, in payload bytes too.
        this.memoryBytes = kind == Kind.MEMORY && config.isSet(PluginSpec.BUFFER_MAX_SIZE)
                ? config.get(PluginSpec.BUFFER_MAX_SIZE) : Long.MAX_VALUE;
        this.path = kind == Kind.DISK ? Path.of(config.get(PluginSpec.BUFFER_PATH)) : null;
        this.maxBytes = config.get(PluginSpec.BUFFER_MAX_SIZE);
        this.segmentBytes = config.get(PluginSpec.BUFFER_SEGMENT_SIZE);
        this.fsyncIntervalMillis = config.get(PluginSpec.BUFFER_FSYNC_INTERVAL_MS);
    }

    /** Reads and checks a producer's buffer settings; throws a {@link ConfigException} naming the bad key. */
    public static BufferSettings of(PluginConfig config) {
        return new BufferSettings(config);
    }

    /** Which buffer the producer has. */
    public Kind kind() {
        return kind;
    }

    /**
     * Builds (for a disk buffer: opens and replays) the buffer; a disk buffer that cannot be opened is a config
     * error naming {@code Buffer/Path}.
     */
    public ProducerBuffer open(BatchPool pool, PluginStats stats, Log log) {
        return kind.open(this, pool, stats, log);
    }
}
