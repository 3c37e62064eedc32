package io.sluice.hec.consumer;

import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Splunk's indexer acknowledgement ({@code UseAck}): per channel (the {@code X-Splunk-Request-Channel} header or
 * {@code ?channel=}), the ack ids handed out and which of them were delivered, and the answer to an {@code /ack}
 * query. Bounded: at most {@value #MAX_CHANNELS} channels, and a channel with {@value #MAX_UNQUERIED} delivered
 * acks nobody asked for takes no more requests until it queries.
 */
final class AckChannels {
    /** Indexer-ack channels kept at most; requests on a new channel beyond this get 503. */
    static final int MAX_CHANNELS = 10_000;
    /** Delivered acks of one channel not yet queried, at most; beyond this its requests get 503 until it queries. */
    static final int MAX_UNQUERIED = 100_000;
    /** Largest /ack request body. */
    static final int MAX_BODY = 64 * 1024;

    private final Map<String, Channel> channels = new ConcurrentHashMap<>();

    /** The request's channel: the header, else the query parameter; null when neither names one. */
    static String channelOf(HttpRequest head, QueryStringDecoder uri) {
        String ch = head.headers().get("X-Splunk-Request-Channel");
        if (ch == null) {
            List<String> p = uri.parameters().get("channel");
            ch = p == null || p.isEmpty() ? null : p.get(0);
        }
        return ch == null || ch.isBlank() ? null : ch;
    }

    /** The channel of that name, created if new; null when {@link #MAX_CHANNELS} exist. */
    Channel open(String channel) {
        Channel c = channels.get(channel);
        if (c == null) {
            if (channels.size() >= MAX_CHANNELS) {
                return null;
            }
            c = channels.computeIfAbsent(channel, k -> new Channel());
        }
        return c;
    }

    /** The channel of that name, or null if it never took a request. */
    Channel get(String channel) {
        return channels.get(channel);
    }

    /**
     * The answer to an {@code /ack} query body ({@code {"acks":[1,2]}}): each id's state, a true one reported once
     * as Splunk forgets reported acks.
     */
    static HecAnswer query(Channel ch, String body) {
        int a = body.indexOf('[');
        int z = body.indexOf(']', a + 1);
        if (a < 0 || z < 0) {
            return HecAnswer.refuse(HecStatus.INVALID_DATA_FORMAT, "ack query without a list of ids");
        }
        StringBuilder r = new StringBuilder("{\"acks\":{");
        boolean first = true;
        for (String id : body.substring(a + 1, z).split(",")) {
            String t = id.trim();
            if (t.isEmpty()) {
                continue;
            }
            long v;
            try {
                v = Long.parseLong(t);
            } catch (NumberFormatException e) {
                return HecAnswer.refuse(HecStatus.INVALID_DATA_FORMAT, "ack id '" + t + "' is not a number");
            }
            r.append(first ? "" : ",").append('"').append(v).append("\":").append(ch.query(v));
            first = false;
        }
        r.append("}}");
        return new HecAnswer(HecStatus.SUCCESS, r.toString().getBytes(StandardCharsets.US_ASCII), null, null);
    }

    /** Indexer-ack state of one channel: ids handed out, and which of them were delivered. */
    static final class Channel {
        private final AtomicLong next = new AtomicLong();
        private final Set<Long> done = ConcurrentHashMap.newKeySet();

        long next() {
            return next.getAndIncrement();
        }

        void done(long id) {
            done.add(id);
        }

        /** Delivered acks not yet reported. */
        int unqueried() {
            return done.size();
        }

        /** Whether id was delivered; a true answer is given once, as Splunk forgets reported acks. */
        boolean query(long id) {
            return done.remove(id);
        }
    }
}
