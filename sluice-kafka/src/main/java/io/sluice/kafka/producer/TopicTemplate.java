package io.sluice.kafka.producer;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.Streams;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A topic name template: literal text with {@code {stream}} (the message's stream name), {@code {tag}} (its
 * Forward tag) and {@code {field}} (the value of metadata field {@code field}) references. Braces rather than
 * {@code ${...}} because the config loader substitutes environment variables in {@code ${...}}.
 *
 * <p>A template that refers only to the stream renders one String per stream, once. One that refers to tags or
 * metadata renders the name's bytes into a per-thread buffer and looks them up in a small per-thread cache, so
 * the String is made once per distinct topic, not once per event.
 */
final class TopicTemplate {
    private static final int LITERAL = 0;
    private static final int STREAM = 1;
    private static final int TAG = 2;
    private static final int FIELD = 3;

    private final String source;
    private final int[] kinds;
    private final byte[][] parts;
    private final boolean perStream;

    private TopicTemplate(String source, int[] kinds, byte[][] parts) {
        this.source = source;
        this.kinds = kinds;
        this.parts = parts;
        boolean s = true;
        for (int k : kinds) {
            if (k == TAG || k == FIELD) {
                s = false;
            }
        }
        this.perStream = s;
    }

    /** Parses a template; an unclosed brace is an error (the message says where). */
    static TopicTemplate compile(String template) {
        List<Integer> kinds = new ArrayList<>();
        List<byte[]> parts = new ArrayList<>();
        StringBuilder lit = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char ch = template.charAt(i);
            if (ch != '{') {
                lit.append(ch);
                i++;
                continue;
            }
            int close = template.indexOf('}', i);
            if (close < 0) {
                throw new IllegalArgumentException("unclosed '{' at position " + i + " in topic template '" + template + "'");
            }
            if (lit.length() > 0) {
                kinds.add(LITERAL);
                parts.add(lit.toString().getBytes(StandardCharsets.UTF_8));
                lit.setLength(0);
            }
            String name = template.substring(i + 1, close).trim();
            if (name.isEmpty()) {
                throw new IllegalArgumentException("empty '{}' in topic template '" + template + "'");
            }
            kinds.add(name.equals("stream") ? STREAM : name.equals("tag") ? TAG : FIELD);
            parts.add(name.getBytes(StandardCharsets.UTF_8));
            i = close + 1;
        }
        if (lit.length() > 0) {
            kinds.add(LITERAL);
            parts.add(lit.toString().getBytes(StandardCharsets.UTF_8));
        }
        return new TopicTemplate(template, kinds.stream().mapToInt(Integer::intValue).toArray(), parts.toArray(new byte[0][]));
    }

    /** True when the topic depends on the stream only: {@link #forStream} gives it once. */
    boolean perStream() {
        return perStream;
    }

    /** The topic for a stream; only for {@link #perStream()} templates. */
    String forStream(int stream) {
        StringBuilder b = new StringBuilder();
        for (int p = 0; p < kinds.length; p++) {
            b.append(kinds[p] == STREAM ? Streams.name(stream) : new String(parts[p], StandardCharsets.UTF_8));
        }
        return b.toString();
    }

    /** Renders the topic of one message, through the caller's per-thread cache; null if it renders empty. */
    String render(Message m, Cache cache) {
        int len = 0;
        for (int p = 0; p < kinds.length; p++) {
            switch (kinds[p]) {
                case LITERAL -> len = cache.append(len, parts[p], 0, parts[p].length);
                case STREAM -> {
                    byte[] s = cache.streamName(m.stream());
                    len = cache.append(len, s, 0, s.length);
                }
                case TAG -> {
                    String tag = m.tag();
                    if (tag != null) {
                        byte[] t = cache.tagBytes(tag);
                        len = cache.append(len, t, 0, t.length);
                    }
                }
                default -> {
                    if (m.hasMetadata()) {
                        Metadata md = m.metadata();
                        int f = md.indexOf(parts[p]);
                        if (f >= 0) {
                            len = cache.append(len, md.arena(), md.valueOffset(f), md.valueLength(f));
                        }
                    }
                }
            }
        }
        return len == 0 ? null : cache.lookup(len);
    }

    @Override
    public String toString() {
        return source;
    }

    /**
     * Per-thread rendering state: the byte buffer a name is rendered into and a direct-mapped cache from
     * rendered bytes to the topic String. A miss costs one String; telemetry has few distinct topics.
     */
    static final class Cache {
        private static final int SLOTS = 256;
        private byte[] buf = new byte[128];
        private final byte[][] keys = new byte[SLOTS][];
        private final String[] values = new String[SLOTS];
        private byte[][] streamNames = new byte[0][];
        private String lastTag;
        private byte[] lastTagBytes;

        int append(int at, byte[] src, int off, int len) {
            if (at + len > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(at + len, buf.length * 2));
            }
            System.arraycopy(src, off, buf, at, len);
            return at + len;
        }

        byte[] streamName(int stream) {
            if (stream >= streamNames.length) {
                streamNames = Arrays.copyOf(streamNames, Math.max(stream + 1, Streams.count()));
            }
            byte[] s = streamNames[stream];
            if (s == null) {
                s = Streams.name(stream).getBytes(StandardCharsets.UTF_8);
                streamNames[stream] = s;
            }
            return s;
        }

        byte[] tagBytes(String tag) {
            // Forward tags repeat from message to message and are usually the same String instance.
            if (tag != lastTag) {
                lastTag = tag;
                lastTagBytes = tag.getBytes(StandardCharsets.UTF_8);
            }
            return lastTagBytes;
        }

        String lookup(int len) {
            int h = 1;
            for (int i = 0; i < len; i++) {
                h = 31 * h + buf[i];
            }
            int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
            byte[] k = keys[slot];
            if (k != null && Arrays.equals(k, 0, k.length, buf, 0, len)) {
                return values[slot];
            }
            keys[slot] = Arrays.copyOf(buf, len);
            values[slot] = new String(buf, 0, len, StandardCharsets.UTF_8);
            return values[slot];
        }
    }
}
