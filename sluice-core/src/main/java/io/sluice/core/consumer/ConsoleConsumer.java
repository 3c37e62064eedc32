package io.sluice.core.consumer;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Clock;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads lines from stdin, one message per line (the newline, and a CR before it, removed). A batch is
 * published when full or when no more input is waiting, so interactive input flows at once.
 */
public final class ConsoleConsumer extends Consumer {
    public static final Param<String> PIPE = Param.string("Pipe", "stdin", "Where to read from; only stdin is supported.");
    public static final Param<Boolean> EXIT_ON_EOF = Param.bool("ExitOnEOF", true,
            "Shut the process down (after delivering everything) when the input ends.");
    public static final Param<Integer> MAX_MESSAGE_SIZE = Param.sizeInt("MaxMessageSize", 1 << 20,
            "Longest line in bytes; a longer line is cut at this size (and counted in the log).");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.CONSUMER, "consumer.Console",
            "Reads newline-separated messages from stdin.")
            .params(PIPE, EXIT_ON_EOF, MAX_MESSAGE_SIZE)
            .factory(ConsoleConsumer::new);

    private final InputStream in;
    private final boolean exitOnEof;
    private final int maxMessageSize;
    private long truncated;

    public ConsoleConsumer(PluginConfig config) {
        this(config, System.in);
    }

    /** Reads from the given stream instead of stdin (tests). */
    public ConsoleConsumer(PluginConfig config, InputStream in) {
        super(config);
        if (!config.get(PIPE).equals("stdin")) {
            throw config.error(PIPE, "only stdin is supported; use consumer.File for named pipes");
        }
        this.in = in;
        this.exitOnEof = config.get(EXIT_ON_EOF);
        this.maxMessageSize = config.get(MAX_MESSAGE_SIZE);
    }

    @Override
    public void consume(ConsumerContext ctx) throws Exception {
        byte[] buf = new byte[64 * 1024];
        int start = 0;
        int end = 0;
        Batch batch = null;
        while (ctx.isActive()) {
            if (end == buf.length) {
                if (start > 0) {
                    System.arraycopy(buf, start, buf, 0, end - start);
                    end -= start;
                    start = 0;
                } else if (buf.length < maxMessageSize) {
                    buf = Arrays.copyOf(buf, Math.min(maxMessageSize, buf.length * 2));
                } else {
                    batch = emit(ctx, batch, buf, 0, end);
                    truncated++;
                    start = end = 0;
                }
            }
            int n = in.read(buf, end, buf.length - end);
            if (n < 0) {
                break;
            }
            end += n;
            for (int i = end - n; i < end; i++) {
                if (buf[i] == '\n') {
                    int stop = i > start && buf[i - 1] == '\r' ? i - 1 : i;
                    batch = emit(ctx, batch, buf, start, stop - start);
                    start = i + 1;
                }
            }
            if (batch != null && in.available() == 0) {
                ctx.publish(batch);
                batch = null;
            }
        }
        if (end > start) {
            batch = emit(ctx, batch, buf, start, end - start);
        }
        if (batch != null) {
            ctx.publish(batch);
        }
        if (truncated > 0) {
            ctx.log().warn(config.id() + ": " + truncated + " lines longer than MaxMessageSize were cut");
        }
    }

    private Batch emit(ConsumerContext ctx, Batch batch, byte[] buf, int off, int len) throws InterruptedException {
        if (batch == null) {
            batch = ctx.newBatch();
        }
        batch.add().setPayload(buf, off, len);
        batch.get(batch.size() - 1).setTimestamp(Clock.epochNanos());
        if (batch.isFull()) {
            ctx.publish(batch);
            return null;
        }
        return batch;
    }

    @Override
    public boolean endsPipeline() {
        return exitOnEof;
    }
}
