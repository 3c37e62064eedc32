package io.sluice.core.pipeline;

import io.sluice.core.json.JsonWriter;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.Streams;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A sample of the messages passing a plugin, for {@code sluice tap}. A plugin checks one volatile field per
 * batch; only when someone taps does it copy messages, and never more than the tap asked for, into a small
 * queue that never blocks the pipeline (a full queue skips messages).
 */
public final class Tap {
    private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(1024);
    private final int limit;
    private int taken;
    private boolean closed;

    /** A tap that wants at most {@code limit} messages. */
    public Tap(int limit) {
        this.limit = limit;
    }

    /** Copies messages of a batch as JSON lines; returns false once the tap has had enough. */
    synchronized boolean offer(Batch batch) {
        for (int i = 0; i < batch.size() && taken < limit && !closed && lines.remainingCapacity() > 0; i++) {
            if (lines.offer(toJson(batch.get(i)))) {
                taken++;
            }
        }
        return taken < limit && !closed;
    }

    /** The reader went away: the plugin drops the tap at its next batch. */
    public synchronized void close() {
        closed = true;
    }

    /** The next sampled message as a JSON line, or null at once when none is waiting (never blocks: the admin event loop polls). */
    public String poll() {
        return lines.poll();
    }

    static String toJson(Message m) {
        JsonWriter w = new JsonWriter(64 + m.length()).beginObject();
        w.name("stream").string(Streams.name(m.stream())).name("timestamp").number(m.timestamp());
        if (m.tag() != null) {
            w.name("tag").string(m.tag());
        }
        // Through a String: bytes that are not UTF-8 become U+FFFD, so the line is always valid JSON text.
        w.name("payload").string(new String(m.payload(), 0, m.length(), StandardCharsets.UTF_8));
        if (m.hasMetadata()) {
            Metadata md = m.metadata();
            w.name("metadata").beginObject();
            for (int i = 0; i < md.size(); i++) {
                w.name(md.key(i)).string(md.value(i));
            }
            w.endObject();
        }
        return w.endObject().toString();
    }
}
